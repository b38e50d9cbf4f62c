// Struct layouts for pahole's layout view: holes, padding, bitfields,
// packed and aligned structs, anonymous and nested members, flexible
// arrays, enums, function pointers, arrays. Data only.
// Compile: gcc -g -c -O0 layout.c -o layout.gcc.o; clang -g -c -O0 layout.c -o layout.clang.o
// BTF:     pahole-master -J --btf_encode_detached=layout.CC.btf layout.CC.o  (CC=gcc|clang)
// See README for the outputs of pahole master stored beside it.

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

struct holes {
	char a;
	int b;
	char c;
	long d;
	short e;
};

struct bits {
	unsigned int a:3;
	unsigned int b:5;
	u8 c;
	unsigned int d:1;
	unsigned long long e:40;
	int f;
	unsigned int g:2;
};

struct bit_hole {
	unsigned int a:1;
	unsigned int :3;
	unsigned int b:2;
	unsigned int c:30;
	char tail;
};

struct packed {
	char a;
	int b;
	short c;
} __attribute__((__packed__));

struct with_packed {
	char x;
	struct packed p;
	long y;
};

struct aligned {
	int a;
	int b __attribute__((__aligned__(16)));
	char c;
} __attribute__((__aligned__(64)));

enum color { RED, GREEN = 5, BLUE = -1 };
enum small { S0, S1 } __attribute__((__packed__));
enum big { B0 = 0x100000000ULL };

struct anon {
	int kind;
	union {
		int i;
		float f;
		struct {
			u16 lo;
			u16 hi;
		};
		struct {
			u8 bytes[3];
		} b3;
	};
	struct {
		char name[13];
		long v;
	} named;
	enum { AX, AY } anon_enum;
	enum color color;
	enum small small;
};

struct flex {
	u32 len;
	char data[];
};

struct has_flex {
	long x;
	struct flex f;
};

typedef struct {
	int x;
	char y;
} anon_typedef_t;

struct fnptrs {
	void (*cb)(void);
	int (*cmp)(const void *, const void *);
	char *(*name)(struct fnptrs *self, int n, ...);
	void (*table[4])(int);
	const char *const *strs;
	volatile int v;
};

struct arrays {
	int m[2][3];
	char s[7];
	u64 big[0];
};

struct big_one {
	char pad0[60];
	int across;
	char pad1[100];
	struct holes h[3];
	long tail;
};

union u {
	u64 x;
	struct holes h;
	struct {
		u8 a, b;
	};
};

struct empty {
};

struct list {
	struct list *next, *prev;
};

struct uses {
	struct list l;
	struct holes h;
	struct bits b;
	struct bit_hole bh;
	struct with_packed wp;
	struct aligned al;
	struct anon an;
	anon_typedef_t at;
	struct fnptrs fp;
	struct arrays ar;
	struct big_one bo;
	union u un;
	struct empty e;
	struct has_flex hf;
	enum big eb;
};

struct uses uses;
