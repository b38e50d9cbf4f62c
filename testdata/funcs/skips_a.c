// build: $CC -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $SRC $DIR/skips_b.c
//
// One function for each reason pahole -V gives for leaving a function out
// of BTF ("NAME : skipping BTF encoding of function due to REASON"); the
// lines pahole master prints for a gcc and a clang build are in
// skips.gcc.want and skips.clang.want (commands there), and
// internal/pahole/verbose_test.go compares gobtf's with them.
//   - dup_static: static in both units at two addresses (ambiguous address);
//   - drop_first, cprop: an unused parameter and one always given the same
//     constant; gcc makes .constprop clones without them (optimized
//     parameters), clang 14 keeps the symbol but passes the remaining
//     parameters in other registers (unexpected register usage);
//   - takes_packed: a packed struct passed on the stack (uncertain parameter
//     location);
//   - count_mm, ret_mm, type_mm: inlined here, out of line in skips_b.c with
//     another parameter count, return type or parameter type (a mismatch
//     line, then an inconsistent prototype with consistent_func);
//   - keep: nothing to skip.
//   - reord: a constant first parameter and a cold part, so that gcc's clone
//     has no DW_AT_low_pc and lists its parameters in another order
//     (reordered parameters).

volatile long sink;

struct __attribute__((packed)) pk { char c; int i; };

static __attribute__((noinline)) long drop_first(long unused, long b, long c)
{
	sink = b;
	return b * c;
}

static __attribute__((noinline)) long cprop(long a, long k, long c)
{
	sink = a + c;
	return a * k;
}

__attribute__((cold, noinline)) void slow(long v) { sink = v; }

static __attribute__((noinline)) long reord(long flag, long *p, long k)
{
	if (__builtin_expect(*p == 42, 0)) {
		slow(k);
		slow(*p);
		slow(k + 1);
	}
	if (flag)
		sink = *p;
	return *p + k;
}

static __attribute__((noinline)) long dup_static(long x) { sink = x; return x * 3; }

static inline __attribute__((always_inline)) int count_mm(int x) { sink = x * 7; return x + 1; }
static inline __attribute__((always_inline)) int ret_mm(long x) { sink = x * 7; return x + 1; }
static inline __attribute__((always_inline)) int type_mm(int x, long y) { sink = x * 7 + y; return x + 1; }

__attribute__((noinline)) long takes_packed(long a, long b, long c, long d, long e, long f, struct pk p)
{
	return a + b + c + d + e + f + p.c + p.i;
}

__attribute__((noinline)) long keep(long a, long b) { return a - b; }

long use_b(long x);

int main(void)
{
	struct pk p = { 1, 2 };
	long v = sink;

	sink = drop_first(0, sink, 3) + drop_first(1, sink, 4) + cprop(sink, 5, 1) + cprop(sink + 1, 5, 2) +
	       dup_static(sink) + count_mm(sink) + ret_mm(sink) + type_mm(sink, sink) +
	       takes_packed(1, 2, 3, 4, 5, 6, p) + keep(sink, 3) + use_b(sink) +
	       reord(0, &v, 3) + reord(0, &v, 4);
	return 0;
}
