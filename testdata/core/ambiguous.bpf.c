// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// The kernel BTF has two structs named irq_info (vmlinux.h calls the
// second irq_info___2) that both have a member irq, at different offsets:
// libbpf finds the relocation ambiguous and rejects the object; gobtf
// reports it, and its output keeps both candidates, so that libbpf
// rejects the object on the output too.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[4];

struct irq_info___c {
	int irq;
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/sys_enter")
int ambiguous(void *ctx)
{
	struct irq_info___c *i = ctx;

	out[0] = BPF_CORE_READ(i, irq);
	return 0;
}
