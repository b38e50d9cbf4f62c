// build: $CC -O2 -g -gdwarf-4 -fno-inline -nostdlib -static -Wl,-e,main -o $OUT $SRC $DIR/b.c $DIR/c.c
//
// Three units that share shared.h. The test runs dwz on the program, which
// moves the common types into DW_TAG_partial_unit entries imported with
// DW_TAG_imported_unit and referenced with DW_FORM_ref_addr; the BTF must
// stay what it is without dwz.
#include "shared.h"

struct s0 g0;
struct s10 g10;

long use_a(struct s3 *p, s0_t *q)
{
	return p->a + q->b;
}

int main(void)
{
	return use_a(0, &g0) + use_b(0, 0) + use_c(0, K_B) + g10.f;
}
