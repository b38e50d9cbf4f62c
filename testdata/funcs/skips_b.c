// Second unit of skips_a.c (built with it, see there).

extern volatile long sink;

static __attribute__((noinline)) long dup_static(long x) { sink = x; return x * 5; }

__attribute__((noinline)) int count_mm(long x, long y) { sink = y; return (int)(x + y); }
__attribute__((noinline)) long ret_mm(long x) { sink = x; return x + 2; }
__attribute__((noinline)) int type_mm(int x, int *y) { sink = x + *y; return x; }

long use_b(long x)
{
	int k = 3;

	return dup_static(x) + count_mm(x, x + 1) + ret_mm(x) + type_mm(x, &k);
}
