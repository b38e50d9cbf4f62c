// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// Reads xfs module types (struct xfs_inode, struct xfs_mount: only the
// xfs module's BTF has them), defined here as tracing tools define them,
// beside vmlinux types (struct inode, super_block, task_struct from
// vmlinux.h): every kind of path between the two, a type size, a field
// existence and a target type ID of a module type.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[8];

struct xfs_mount {
	struct super_block *m_super;
	char *m_logname;
} __attribute__((preserve_access_index));

struct xfs_inode {
	struct xfs_mount *i_mount;
	unsigned long long i_ino;
	atomic_t i_pincount;
	struct inode i_vnode;
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/xfs_inode")
int xfs_reader(void *ctx)
{
	struct xfs_inode *ip = ctx;
	struct task_struct *t = (void *)bpf_get_current_task();

	out[0] = BPF_CORE_READ(ip, i_ino);
	out[1] = BPF_CORE_READ(ip, i_vnode.i_size);
	out[2] = BPF_CORE_READ(ip, i_mount, m_super, s_magic);
	out[3] = (__u64)BPF_CORE_READ(ip, i_mount, m_logname);
	out[4] = BPF_CORE_READ(t, pid);
	out[5] = bpf_core_field_exists(ip->i_pincount);
	out[6] = bpf_core_type_size(struct xfs_mount);
	out[7] = bpf_core_type_id_kernel(struct xfs_inode);
	return 0;
}
