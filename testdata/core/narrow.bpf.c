// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// The order of flavors.bpf.c the other way round: a field only the second
// definition of struct syscall_tp_t has first, then one both have. bpftool
// keeps only the first match of the field both have; here that is enough.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[16];

struct syscall_tp_t___b {
	unsigned long syscall_nr;
	unsigned long ret;
	unsigned long args[6];
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/sys_enter")
int narrow(void *ctx)
{
	struct syscall_tp_t___b *s = ctx;

	out[0] = BPF_CORE_READ(s, args[2]);
	out[1] = BPF_CORE_READ(s, syscall_nr);
	out[2] = BPF_CORE_READ(s, ret);
	return 0;
}
