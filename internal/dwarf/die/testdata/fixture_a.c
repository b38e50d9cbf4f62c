/* Fixture for the DIE decoder tests: many kinds of DIEs and forms. */
#include <stdarg.h>

struct fixture_point {
	int x, y;
	unsigned flags : 3;
	unsigned wide : 13;
	long long big;
	const char *label;
	struct fixture_point *next;
};

enum fixture_color { FIXTURE_RED, FIXTURE_GREEN = 5, FIXTURE_BLUE = -1 };

typedef struct fixture_point point_t;

union fixture_u {
	int i;
	float f;
	char c[16];
	double d[2][3];
};

static const char *fixture_names[] = { "alpha", "beta", "gamma" };
int fixture_global = 42;
_Thread_local int fixture_tls;
volatile enum fixture_color fixture_color_var = FIXTURE_BLUE;
union fixture_u fixture_union;
__int128 fixture_wide_int = 7;

int fixture_other(const point_t *p);

static int fixture_sum(point_t *p, int n, ...)
{
	va_list ap;
	int total = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int v = va_arg(ap, int);
		if (v > 3) {
			long sq = (long)v * v;
			total += (int)sq + p->x;
		} else {
			total -= v;
		}
	}
	va_end(ap);
	return total + fixture_tls;
}

int main(int argc, char **argv)
{
	point_t pt = { .x = argc, .y = 2, .flags = 5, .label = fixture_names[argc % 3] };
	int (*fp)(point_t *, int, ...) = fixture_sum;

	fixture_union.i = fp(&pt, 3, argc, 4, 9);
	return fixture_other(&pt) + fixture_global + (int)fixture_color_var + (int)fixture_wide_int +
	       (argv[0][0] == 'x');
}
