// Types that exercise each rule of the C header printer (internal/cdump),
// compared byte for byte with "bpftool btf dump file FILE format c".
// Compile: $CC -g -O0 -c layout.c -o layout.o   (CC=gcc|clang)
// BTF:     gobtf -J --btf_encode_detached=layout.btf layout.o
#include <stdarg.h>

// Bitfields: runs that share a unit, cross a unit, start a new one, and a
// zero-width bitfield; signed, unsigned, enum and _Bool fields.
enum colour { RED, GREEN, BLUE };
struct bits {
	unsigned int a : 3;
	int b : 5;
	unsigned int : 0;
	unsigned long long c : 40;
	unsigned long long d : 30;
	enum colour e : 2;
	_Bool f : 1;
	char g;
	unsigned short h : 7;
};

// Packed structs: misaligned members, and a size that is not a multiple of
// the alignment with every member aligned.
struct __attribute__((packed)) packed_mis {
	char a;
	int b;
	short c;
};
struct __attribute__((packed)) packed_tail {
	int a;
	char b;
};
struct holds_packed {
	char x;
	struct packed_mis p;
	long y;
};

// Explicit alignment: gaps the natural layout would not leave, inside and
// at the end of a struct, which the printer fills with padding members.
struct aligned_member {
	char a;
	int b __attribute__((aligned(8)));
	char c;
	long d __attribute__((aligned(32)));
};
struct __attribute__((aligned(16))) aligned_struct {
	int a;
};
struct gaps {
	char a;
	struct aligned_struct s;
	char b[3];
	short c __attribute__((aligned(16)));
};

// Anonymous types inline, nested several levels, and an anonymous enum no
// type refers to (printed on its own).
struct nested {
	int kind;
	union {
		struct {
			short lo, hi;
		} half;
		struct {
			unsigned char b0 : 4, b1 : 4;
			union {
				int i;
				float f;
			};
		};
		long whole;
	};
	enum { N_ONE = 1, N_TWO } which;
	struct {
	} empty;
};
enum { LOOSE_A = 10, LOOSE_B = -3 };
int loose_use = LOOSE_A;

// Declarators: function pointers taking and returning function pointers,
// varargs, no parameters, arrays of pointers to functions, pointers to
// arrays, arrays of arrays, and qualifiers in every position.
typedef int (*binop)(int, int);
struct decls {
	void (*noargs)(void);
	int (*vararg)(const char *fmt, ...);
	binop (*pick)(char op);
	int (*(*table)[4])(long);
	void (*handlers[3])(int sig, void *ctx);
	char (*rowp)[16];
	int grid[2][3][4];
	const char *const names[2];
	volatile unsigned long *volatile reg;
	int *restrict rp;
	const binop ops[2];
	struct decls *(*next)(struct decls *self, int (*cmp)(const void *, const void *));
	char flex[];
};

// Typedef chains: typedefs of typedefs, of pointers to a struct declared
// only later, of anonymous structs, of arrays and of functions.
typedef struct chain_s chain_t;
typedef chain_t *chain_p;
typedef chain_p chain_pp[2];
struct chain_s {
	chain_p next;
	int v;
};
typedef struct {
	int x, y;
} point;
typedef point points[4];
typedef const points cpoints;
typedef void handler_fn(int);
typedef handler_fn *handler_p;
struct uses_chain {
	chain_pp pp;
	cpoints *ps;
	handler_p h;
	va_list args;
};

// Enum sizes and signedness: 64-bit values, negative values, a one-byte
// enum and an 8-byte one whose values fit 32 bits.
enum big { BIG_LOW = 1, BIG_HIGH = 0x100000000ULL, BIG_MAX = 0xffffffffffffffffULL };
enum neg { NEG_MIN = -2147483647 - 1, NEG_ONE = -1, NEG_MAX = 2147483647 };
enum neg64 { N64_LOW = -0x100000000LL, N64_HIGH = 1 };
enum __attribute__((packed)) tiny { TINY_A, TINY_B = 200 };
enum __attribute__((mode(word))) wide { WIDE_A = 1 };
enum empty_vals;
struct enums {
	enum big b;
	enum neg n;
	enum neg64 n64;
	enum tiny t;
	enum wide w;
	enum empty_vals *ev;
};

// Forward declarations: a struct and a union only pointed to, two structs
// that point at each other, and one that holds the other by value.
struct opaque;
union opaque_u;
struct ping;
struct pong {
	struct ping *ping;
	struct opaque *o;
	union opaque_u *u;
};
struct ping {
	struct pong pong;
	struct ping *self;
};

// Scalars.
struct scalars {
	_Bool b;
	signed char sc;
	unsigned char uc;
	float f;
	double d;
	long double ld;
	__int128 i128;
	unsigned __int128 u128;
	long long ll;
};

// Name conflicts: a tag and an identifier reused in block scope.
struct dup {
	int outer;
};
enum clash { CLASH_A, CLASH_B };
int block_scope(void)
{
	struct dup {
		long inner;
	} d = { 1 };
	typedef long CLASH_A_t;
	enum clash2 { CLASH_B2 = 7 } e = CLASH_B2;
	struct clash {
		int in_block;
	} c = { 2 };
	CLASH_A_t t = 3;
	return (int)(d.inner + e + c.in_block + t);
}

struct bits v_bits;
struct holds_packed v_hp;
struct packed_tail v_pt;
struct aligned_member v_am;
struct gaps v_gaps;
struct nested v_nested;
struct decls v_decls;
struct uses_chain v_chain;
point v_point;
struct enums v_enums;
struct pong v_pong;
struct scalars v_scalars;
struct dup v_dup;
enum clash v_clash;
