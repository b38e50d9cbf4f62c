// build: clang-19 -g -O2 -target bpf -c $SRC -o $OUT
// Two relocations of one local type against a target with two structs
// named task (TestMinCoreBTFWidens builds it: A {pid, x} and B {pid, x, y},
// x at the same offset in both). x matches A and B, and libbpf keeps both
// as candidates; y then matches B. bpftool keeps only the first match of
// x, A's: relocating against its output, libbpf finds x in A alone,
// narrows the candidates to A, and finds no y. gobtf keeps B's x too.
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

__u64 out[2];

struct task___l {
	int x;
	int y;
} __attribute__((preserve_access_index));

SEC("raw_tracepoint/sys_enter")
int widen(void *ctx)
{
	struct task___l *t = ctx;

	out[0] = BPF_CORE_READ(t, x);
	out[1] = BPF_CORE_READ(t, y);
	return 0;
}
