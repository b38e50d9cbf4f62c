// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// Field relocations against the kernel's types (vmlinux.h, from "gobtf dump
// --format c" of the kernel BTF): byte offsets through pointers, nested
// structs, anonymous unions and arrays of structs; sizes; existence of
// present and absent fields; signedness and the shifts of bitfield reads;
// local "___flavor" definitions, one of them with a field the kernel lacks.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[64];

/* A flavor of task_struct with fields under other names: one the kernel
 * has (pid) and one it does not. */
struct task_struct___v2 {
	int pid;
	int no_such_field_in_the_kernel;
	struct task_struct___v2 *real_parent;
} __attribute__((preserve_access_index));

/* A flavor that exists nowhere: no candidate at all. */
struct gobtf_absent_struct {
	int x;
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/sys_enter")
int read_task(void *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct task_struct___v2 *t2 = (void *)t;
	struct gobtf_absent_struct *a = (void *)t;

	out[0] = BPF_CORE_READ(t, pid);
	out[1] = BPF_CORE_READ(t, real_parent, tgid);
	out[2] = BPF_CORE_READ(t, mm, mmap_base);
	out[3] = BPF_CORE_READ(t, signal, rlim[3].rlim_max);
	out[4] = bpf_core_field_size(t->comm);
	out[5] = bpf_core_field_exists(t->pid);
	out[6] = bpf_core_field_exists(t2->no_such_field_in_the_kernel);
	out[7] = BPF_CORE_READ(t2, real_parent, pid);
	out[8] = BPF_CORE_READ_BITFIELD_PROBED(t, in_execve);
	out[9] = BPF_CORE_READ_BITFIELD_PROBED(t, sched_remote_wakeup);
	out[10] = __builtin_preserve_field_info(t->pid, BPF_FIELD_SIGNED);
	out[11] = bpf_core_field_offset(t->se.vruntime);
	out[12] = bpf_core_field_exists(a->x);
	if (bpf_core_field_exists(t2->no_such_field_in_the_kernel))
		out[13] = BPF_CORE_READ(t2, no_such_field_in_the_kernel);
	out[14] = BPF_CORE_READ(t, thread.sp);
	out[15] = bpf_core_field_size(t->signal->rlim[1]);
	out[16] = bpf_core_field_offset(t->signal->rlim[2].rlim_cur);
	return 0;
}

SEC("kprobe/do_nanosleep")
int read_files(void *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct file *f = BPF_CORE_READ(t, mm, exe_file);

	out[20] = BPF_CORE_READ(f, f_path.dentry, d_name.len);
	out[21] = BPF_CORE_READ(f, f_inode, i_ino);
	out[22] = bpf_core_field_size(f->f_path);
	out[23] = BPF_CORE_READ(t, nsproxy, pid_ns_for_children, level);
	return 0;
}
