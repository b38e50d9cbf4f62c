// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// The vmlinux-first rule on a name collision, with fixmod.c's module:
// program "modtype" reads the module's struct fixmod_dev down into its own
// file_system_type (the module is searched: the vmlinux has no
// fixmod_dev); program "vmfirst" reads a field fix_b of a local type whose
// essential name is file_system_type, which the vmlinux has, without that
// field: on a running kernel the search stops at the vmlinux and the read
// is poisoned, though the module's file_system_type has fix_b.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[4];

struct file_system_type___fixmod {
	long fix_b;
} __attribute__((preserve_access_index));

struct fixmod_dev {
	int id;
	struct file_system_type___fixmod fs;
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/modtype")
int modtype(void *ctx)
{
	struct fixmod_dev *d = ctx;

	out[0] = BPF_CORE_READ(d, id);
	out[1] = BPF_CORE_READ(d, fs.fix_b);
	return 0;
}

SEC("raw_tracepoint/vmfirst")
int vmfirst(void *ctx)
{
	struct file_system_type___fixmod *f = ctx;
	struct file_system_type *v = ctx;

	out[2] = BPF_CORE_READ(f, fix_b);
	out[3] = (__u64)BPF_CORE_READ(v, name);
	return 0;
}
