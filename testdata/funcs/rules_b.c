// Second unit of rules_a.c (built with it, see there).

extern volatile long sink;

static __attribute__((noinline)) long dup_static(long x) { sink = x; return x * 5; }

__attribute__((noinline)) int incons(long x, long y) { sink = y; return (int)(x + y); }

long use_b(long x) { return dup_static(x) + incons(x, x + 1); }
