// Types every unit of the dwz fixture includes, so that dwz moves them into
// partial units that the compile units import (see a.c).
#define S(n, next) \
	struct s##n { int a; long b; struct s##n *self; struct s##next *other; unsigned f : 5; }
S(0, 1); S(1, 2); S(2, 3); S(3, 4); S(4, 5); S(5, 6); S(6, 7); S(7, 8);
S(8, 9); S(9, 10); S(10, 11); S(11, 12); S(12, 13); S(13, 14); S(14, 15);
S(15, 16); S(16, 17); S(17, 18); S(18, 19); S(19, 0);
typedef struct s0 s0_t;
enum kind { K_A, K_B = 7, K_C };
union u { struct s1 one; struct s2 two; enum kind k; };

long use_a(struct s3 *p, s0_t *q);
long use_b(struct s4 *p, union u *v);
long use_c(struct s5 *p, enum kind k);
