// Part of the dwz fixture (built with a.c, see its first line).
#include "shared.h"

struct s12 g12;

long use_c(struct s5 *p, enum kind k)
{
	return p->a + k + g12.b;
}
