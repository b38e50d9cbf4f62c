// build: clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$INC -c $SRC -o $OUT
// Type relocations (existence, size, match, target and local ID) and
// enumerator relocations (existence, value) of enums and enum64, on kernel
// types and on local flavors: present, absent, and types whose local
// definition does not match the kernel's.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[64];

/* Matches the kernel's struct rlimit (same member names and types). */
struct rlimit___local {
	__kernel_ulong_t rlim_cur;
	__kernel_ulong_t rlim_max;
};

/* Does not match: a member the kernel's lacks. */
struct rlimit___bad {
	__kernel_ulong_t rlim_cur;
	__kernel_ulong_t rlim_extra;
};

/* Matches through a pointer to a struct and a nested struct. */
struct list_head___local {
	struct list_head___local *next;
	struct list_head___local *prev;
};

struct gobtf_absent_type {
	int x;
};

enum pid_type___local {
	PIDTYPE_PID___local = 0,
	PIDTYPE_TGID___local = 1,
	PIDTYPE_GOBTF_ABSENT___local = 42,
};

enum perf_callchain_context___local {
	PERF_CONTEXT_KERNEL___local = 1,
	PERF_CONTEXT_USER___local = 2,
};

enum gobtf_absent_enum {
	GOBTF_ABSENT_VALUE = 7,
};

typedef struct rlimit___local rlimit_t;

SEC("raw_tracepoint/sys_enter")
int types(void *ctx)
{
	out[0] = bpf_core_type_exists(struct task_struct);
	out[1] = bpf_core_type_exists(struct gobtf_absent_type);
	out[2] = bpf_core_type_size(struct task_struct);
	out[3] = bpf_core_type_size(struct rlimit___local);
	out[4] = bpf_core_type_matches(struct rlimit___local);
	out[5] = bpf_core_type_matches(struct rlimit___bad);
	out[6] = bpf_core_type_matches(struct list_head___local);
	out[7] = bpf_core_type_id_kernel(struct task_struct);
	out[8] = bpf_core_type_id_local(struct task_struct);
	out[9] = bpf_core_type_exists(pid_t);
	out[10] = bpf_core_type_size(pid_t);
	out[11] = bpf_core_type_matches(work_func_t);
	out[12] = bpf_core_type_size(union sigval);
	out[13] = bpf_core_type_matches(struct trace_event_raw_sys_enter);
	out[14] = bpf_core_type_size(rlimit_t);
	out[15] = bpf_core_type_id_kernel(struct gobtf_absent_type);
	out[16] = bpf_core_type_exists(enum pid_type);
	out[17] = bpf_core_type_matches(enum pid_type___local);
	return 0;
}

SEC("raw_tracepoint/sys_exit")
int enums(void *ctx)
{
	out[20] = bpf_core_enum_value_exists(enum pid_type, PIDTYPE_TGID);
	out[21] = bpf_core_enum_value(enum pid_type, PIDTYPE_SID);
	out[22] = bpf_core_enum_value_exists(enum pid_type___local, PIDTYPE_GOBTF_ABSENT___local);
	out[23] = bpf_core_enum_value(enum pid_type___local, PIDTYPE_TGID___local);
	out[24] = bpf_core_enum_value(enum perf_callchain_context, PERF_CONTEXT_USER);
	out[25] = bpf_core_enum_value(enum perf_callchain_context___local, PERF_CONTEXT_KERNEL___local);
	out[26] = bpf_core_enum_value_exists(enum gobtf_absent_enum, GOBTF_ABSENT_VALUE);
	out[27] = bpf_core_enum_value(enum gobtf_absent_enum, GOBTF_ABSENT_VALUE);
	out[28] = bpf_core_enum_value(enum hmm_pfn_flags, HMM_PFN_VALID);
	out[29] = bpf_core_type_size(enum netdev_priv_flags);
	return 0;
}
