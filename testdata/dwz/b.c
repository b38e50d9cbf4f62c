// Part of the dwz fixture (built with a.c, see its first line).
#include "shared.h"

struct s11 g11;
union u gu;

long use_b(struct s4 *p, union u *v)
{
	return p->b + v->k + g11.a;
}
