// Second half of the lto_a.c fixture (built with it; see its first line).
#include "lto.h"

struct node *last_seen;

__attribute__((noinline)) int sum(struct list *l)
{
	int s = 0;

	for (struct node *n = l->head; n; n = n->next)
		s += n->v;
	return s;
}

__attribute__((noinline)) unsigned count_flags(struct extra *e)
{
	return e->flags + (e->l.n > 0) + (e->mode == MODE_B);
}

__attribute__((noinline)) long walk_tree(struct tree *t, int depth)
{
	if (!t || depth <= 0)
		return 0;
	last_seen = t->leaf;
	return t->key + walk_tree(t->left, depth - 1) + walk_tree(t->right, depth - 1);
}
