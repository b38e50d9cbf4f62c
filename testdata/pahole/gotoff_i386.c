// build: $CC -m32 -fPIC -O2 -g -c $SRC -o $OUT
//
// i386 position-independent code: gcc describes the value of limit_error's
// string argument at a call site as (the saved GOT pointer) + str@GOTOFF,
// so .rel.debug_info holds an R_386_GOTOFF relocation. libdwfl, through
// which pahole reads relocatable files, applies only address-sized absolute
// relocations to debug sections and leaves any other type as written;
// gobtf must do the same instead of rejecting the file.
extern void report(void *ctx, int limit, const char *what);

struct ctx {
	int n, lim;
	int *v;
};

static __attribute__((noinline)) void limit_error(struct ctx *c, int limit, const char *what)
{
	report(c, limit, what);
}

void grow(struct ctx *c, int a, int b, int d, int e)
{
	for (int i = 0; i < c->n; i++) {
		c->v[i] += a * i + b;
		if (c->v[i] > c->lim)
			limit_error(c, 0x3fffffff, "table overflow");
		c->v[i] ^= d + e;
	}
	if (c->n >= 0x3fffffff)
		limit_error(c, 0x3fffffff, "too many items");
}
