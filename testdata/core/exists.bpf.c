// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// Existence checks only, each of which the kernel answers "no": a field
// of a flavor the kernel's struct lacks, a struct, an enumerator and a
// type the kernel does not have, and a type match that fails. libbpf
// writes 0 for each; gobtf reports them as absent, not as errors.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[8];

struct task_struct___old {
	int gobtf_no_such_field;
} __attribute__((preserve_access_index));

struct gobtf_absent_struct {
	int x;
} __attribute__((preserve_access_index));

enum pid_type___gobtf {
	PIDTYPE_GOBTF___gobtf = 9,
};

struct rlimit___wrong {
	int rlim_cur;
};

SEC("raw_tracepoint/sys_enter")
int exists(void *ctx)
{
	struct task_struct___old *t = (void *)bpf_get_current_task();
	struct gobtf_absent_struct *a = ctx;

	out[0] = bpf_core_field_exists(t->gobtf_no_such_field);
	out[1] = bpf_core_field_exists(a->x);
	out[2] = bpf_core_enum_value_exists(enum pid_type___gobtf, PIDTYPE_GOBTF___gobtf);
	out[3] = bpf_core_type_exists(struct gobtf_absent_struct);
	out[4] = bpf_core_type_matches(struct rlimit___wrong);
	return 0;
}
