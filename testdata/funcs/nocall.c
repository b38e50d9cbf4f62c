// build: $CC -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $SRC
//
// A function whose calling convention the compiler changed. clang 15 and
// later drop drop_mid's unused parameter (dead argument elimination) and
// mark the function DW_AT_calling_convention DW_CC_nocall (0x03); the
// parameter keeps its DIE but has no location. pahole (btf_encoder.c, the
// skipping of optimized parameters when the ABI changed) leaves such a
// function out unless the true_signature feature is on, which encodes it
// without the parameter. keep_all and ret_unused keep their conventions.
// use_second and use_file take structs of two registers of which clang
// passes only one member (p.b, f.file) in one register: true_signature
// encodes that member in the parameter's place, named p__b and f__file.
// The expectations are in internal/dwarf2btf/functions_test.go (TestFuncsNocall).

volatile long sink;

struct pair { long a; long b; };
struct fd { void *file; unsigned int flags; };

static __attribute__((noinline)) int drop_mid(int a, int unused, int b)
{
	sink = a;
	return a + b;
}

static __attribute__((noinline)) void ret_unused(long a, long b)
{
	sink = a * b;
}

static __attribute__((noinline)) int keep_all(int a, int b)
{
	sink = a - b;
	return a ^ b;
}

static __attribute__((noinline)) long use_second(struct pair p)
{
	sink = p.b;
	return p.b * 3;
}

static __attribute__((noinline)) long use_file(struct fd f, long x)
{
	sink = (long)f.file + x;
	return x;
}

int main(void)
{
	struct pair p = { sink, sink + 1 };
	struct fd f = { (void *)sink, 0 };
	int r = drop_mid((int)sink, 7, 3);

	ret_unused(sink, r);
	r += use_second(p);
	return keep_all(r, (int)use_file(f, sink));
}
