// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// Candidates that the kernel BTF has twice: struct syscall_tp_t has two
// definitions there (vmlinux.h names the second syscall_tp_t___2). A
// field both have matches both (the candidate list keeps both), a field
// only one has narrows the list to it, and a field of the other then
// finds nothing, as libbpf decides in this order.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[16];

struct syscall_tp_t___a {
	unsigned long syscall_nr;
	unsigned long ret;
	unsigned long args[6];
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/sys_enter")
int flavors(void *ctx)
{
	struct syscall_tp_t___a *s = ctx;

	out[0] = BPF_CORE_READ(s, syscall_nr);
	out[1] = BPF_CORE_READ(s, ret);
	out[2] = BPF_CORE_READ(s, args[1]);
	out[3] = bpf_core_field_exists(s->args);
	return 0;
}
