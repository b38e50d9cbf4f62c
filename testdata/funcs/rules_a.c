// build: $CC -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $SRC $DIR/rules_b.c
//
// Cases where pahole 1.31 leaves functions out (the expectations are in
// internal/dwarf2btf/functions_test.go, derived from pahole's btf_encoder.c):
//   - dup_static: a static function defined in both units at two addresses
//     (ambiguous address);
//   - incons: inlined-only here with one parameter, out of line in rules_b.c
//     with two (inconsistent prototypes: kept without consistent_func);
//   - takes_packed: a packed struct passed by value after the six register
//     arguments (uncertain location); takes_plain is the same with an
//     unpacked struct (kept);
//   - kf_one, kf_two, kf_none: functions named in a .BTF_ids set built below;
//     the set of kf_one and kf_two has the KFUNCS flag, kf_two's entry has
//     KF_FASTCALL; kf_none's set has no flags.

volatile long sink;

struct __attribute__((packed)) pk { char c; int i; };
struct plain { int a, b; };

static __attribute__((noinline)) long dup_static(long x) { sink = x; return x * 3; }

static inline __attribute__((always_inline)) int incons(int x) { sink = x * 7; return x + 1; }

__attribute__((noinline)) long takes_packed(long a, long b, long c, long d, long e, long f, struct pk p)
{
	return a + b + c + d + e + f + p.c + p.i;
}

__attribute__((noinline)) long takes_plain(long a, long b, long c, long d, long e, long f, struct plain p)
{
	return a + b + c + d + e + f + p.a + p.b;
}

__attribute__((noinline)) long kf_one(long a) { sink = a; return a + 1; }
__attribute__((noinline)) long kf_two(long a) { sink = a; return a + 2; }
__attribute__((noinline)) long kf_none(long a) { sink = a; return a + 3; }

long use_b(long x);

asm(".pushsection .BTF_ids,\"a\"\n"
    "__BTF_ID__set8__kset:\n"
    ".long 2\n.long 1\n"
    "__BTF_ID__func__kf_one__1:\n.long 0\n.long 0\n"
    "__BTF_ID__func__kf_two__2:\n.long 0\n.long 4096\n"
    ".size __BTF_ID__set8__kset, 24\n"
    "__BTF_ID__set8__plain:\n"
    ".long 1\n.long 0\n"
    "__BTF_ID__func__kf_none__3:\n.long 0\n.long 0\n"
    ".size __BTF_ID__set8__plain, 16\n"
    ".popsection\n");

int main(void)
{
	struct pk p = { 1, 2 };
	struct plain q = { 3, 4 };

	sink = dup_static(sink) + incons((int)sink) + use_b(sink) + takes_packed(1, 2, 3, 4, 5, 6, p) +
	       takes_plain(1, 2, 3, 4, 5, 6, q) + kf_one(1) + kf_two(2) + kf_none(3);
	return 0;
}
