// build: clang-19 -g -O2 -target bpf -c $SRC -o $OUT
// CO-RE relocations against tagged_target.c's BTF: type matches of structs
// whose members are tagged pointers (bpftool 7.1 fails there: "unsupported
// kind: type_tag"), type existence through a typedef of a tagged pointer
// and of a pointer to a FWD (bpftool: "unsupported kind: fwd"), fields
// behind tagged pointers, bitfields, enum64 values.
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 out[32];

#define __user __attribute__((btf_type_tag("user")))

struct only_declared;
union only_declared_union;

struct inner {
	int a;
	unsigned int flags : 3, mode : 5;
	long b;
} __attribute__((preserve_access_index));

struct tagged {
	int __user *uptr;
	struct inner *rcu_inner;
	struct inner in;
	struct only_declared *fwd;
	union only_declared_union *fwd_union;
	char name[16];
	int (*callback)(struct tagged __user *, long);
} __attribute__((preserve_access_index));

/* A flavor that does not match: fwd points to a union here. */
struct tagged___bad {
	int __user *uptr;
	struct inner *rcu_inner;
	struct inner in;
	union only_declared_union *fwd;
} __attribute__((preserve_access_index));

typedef struct tagged tagged_t;
typedef struct only_declared *only_declared_p;
typedef int __user *user_int_p;

enum wide {
	WIDE_SMALL = 1,
	WIDE_BIG = 0x100000000ULL,
};

SEC("raw_tracepoint/sys_enter")
int tagged(void *ctx)
{
	struct tagged *t = ctx;

	out[0] = bpf_core_type_matches(struct tagged);
	out[1] = bpf_core_type_matches(struct tagged___bad);
	out[2] = bpf_core_type_matches(tagged_t);
	out[3] = bpf_core_type_exists(only_declared_p);
	out[4] = bpf_core_type_exists(user_int_p);
	out[5] = bpf_core_type_size(tagged_t);
	out[6] = BPF_CORE_READ(t, rcu_inner, b);
	out[7] = BPF_CORE_READ_BITFIELD_PROBED(&t->in, mode);
	out[8] = bpf_core_field_offset(t->name[3]);
	out[9] = bpf_core_enum_value(enum wide, WIDE_BIG);
	out[10] = bpf_core_type_matches(enum wide);
	out[11] = bpf_core_type_id_kernel(struct tagged);
	out[12] = (__u64)BPF_CORE_READ(t, uptr);
	out[13] = bpf_core_type_matches(user_int_p);
	return 0;
}
