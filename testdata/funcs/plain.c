// build: $CC -O2 -g -std=gnu11 -fno-inline -nostdlib -static -Wl,-e,main -o $OUT $SRC
//
// Plain functions whose calling convention the compiler keeps: external,
// never inlined, every parameter used. pahole 1.24 and 1.31 agree on them,
// so the test compares gobtf's FUNCs with `pahole -J` on the built file.
#include <stdarg.h>

struct point { long x, y; };
union num { int i; float f; };
enum color { RED, GREEN };
typedef unsigned long ulong_t;

#if defined(__clang__)
#define TAG(x) __attribute__((btf_decl_tag(x)))
#else
#define TAG(x)
#endif

volatile long sink;

__attribute__((noinline)) long add2(long a, long b) { sink = a; return a + b; }
__attribute__((noinline)) void set_point(struct point *p, long x, long y) { p->x = x; p->y = y; }
__attribute__((noinline)) int pick(const union num *n, enum color c) { return c == RED ? n->i : (int)n->f; }
__attribute__((noinline)) ulong_t widen(unsigned char c, short s, ulong_t u) { return c + s + u; }
__attribute__((noinline)) void no_args(void) { sink = 1; }
__attribute__((noinline)) char *str_at(char **v, int i) { return v[i]; }
__attribute__((noinline)) int TAG("fn_tag") tagged(int TAG("arg_tag") a, int b) { return a * b; }
__attribute__((noinline)) long six(long a, long b, long c, long d, long e, long f) { return a ^ b ^ c ^ d ^ e ^ f; }

__attribute__((noinline)) long sum(int n, ...)
{
	va_list ap;
	long s = 0;

	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, long);
	va_end(ap);
	return s;
}

int main(void)
{
	struct point p;
	union num n = { .i = 3 };
	char *v[] = { "a", "b" };

	set_point(&p, 1, 2);
	no_args();
	sink = add2(p.x, p.y) + pick(&n, GREEN) + (long)widen(1, 2, 3) + (long)str_at(v, 1) +
	       tagged(2, 3) + six(1, 2, 3, 4, 5, 6) + sum(2, 1L, 2L);
	return 0;
}
