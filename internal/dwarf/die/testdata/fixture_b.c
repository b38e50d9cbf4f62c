/* Second unit of the decoder fixture, sharing a type with the first. */
struct fixture_point {
	int x, y;
	unsigned flags : 3;
	unsigned wide : 13;
	long long big;
	const char *label;
	struct fixture_point *next;
};

typedef struct fixture_point point_t;

static inline int fixture_len(const char *s)
{
	int n = 0;

	while (s && s[n])
		n++;
	return n;
}

int fixture_other(const point_t *p)
{
	return p->x * p->y + fixture_len(p->label);
}
