// Types of every shape a C compiler emits, as data (no functions, so the
// comparison with pahole is about types alone).
// Compile: $CC -g -c -O0 -gdwarf-$V basic.c -o basic.o   (CC=gcc|clang, V=4|5)
// Cross:   clang --target=i386-linux-gnu -ffreestanding -g -c -O0 basic.c -o basic.o
//          (also s390x-linux-gnu for big-endian)
#include <stdint.h>

struct list { struct list *next, *prev; };

struct bits {
	unsigned int a : 3, b : 5;
	signed char c : 2;
	unsigned long long wide : 40;
	int : 0;
	_Bool flag : 1;
	uint16_t tail : 7;
};

struct __attribute__((packed)) packed {
	char c;
	int i;
	long long l : 33;
};

struct with_anon {
	int kind;
	union {
		struct { short lo, hi; };
		int whole;
	};
	struct { char tag; } named;
	char flex[];
};

enum small { S_A = -1, S_B = 5 };
enum __attribute__((packed)) tiny { T_X, T_Y = 200 };
enum big_unsigned { BU = 0xffffffffffULL };
enum big_signed { BS_NEG = -0x100000000LL, BS_POS = 1 };
enum fwd_only;

typedef struct list list_t;
typedef list_t *list_p;
typedef const volatile list_p cv_list_p;
typedef int (*callback_t)(void *ctx, const char *fmt, ...);
typedef void (*noargs_t)(void);

struct opaque;
union opaque_u;

struct uses {
	struct opaque *o;
	union opaque_u *u;
	enum fwd_only *e;
	int matrix[3][4][5];
	char *restrict r;
	callback_t cb;
	noargs_t na;
	float f;
	double d;
	long double ld;
	_Bool b;
#ifdef __SIZEOF_INT128__
	__int128 i128;
	unsigned __int128 u128;
#endif
	char name[16];
	cv_list_p cvp;
	struct bits bits;
	struct packed packed;
	struct with_anon *anon;
	enum small s;
	enum tiny t;
	enum big_unsigned bu;
	enum big_signed bs;
	void *vp;
	const void *cvp2;
	int zero_len[0];
};

struct uses uses_var;
struct list list_var;
