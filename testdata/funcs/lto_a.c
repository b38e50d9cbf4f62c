// build: $CC -O2 -g -flto $LTOLD -nostdlib -static -Wl,-e,main -o $OUT $SRC $DIR/lto_b.c
//
// A program linked with link-time optimization: the compiler's final units
// refer to types, subprograms and parameters of the per-file units with
// DW_FORM_ref_addr, which makes pahole read all units as one. lto_b.c holds
// the other half; several structs reach this file only through it.
#include "lto.h"

struct list gl;
struct extra ge;

int main(void)
{
	return sum(&gl) + count_flags(&ge) + walk_tree(gl.root, 3);
}
