// Struct layouts for pahole's reorganize options (-R, -S, -P, -w): each
// struct takes one path of class__reorganize / class__move_member, of the
// packable test or of the word size fixup. Data only.
// Compile (CC=gcc|clang): CC -g -c -O0 -fdebug-prefix-map=$PWD=. reorg.c -o reorg.CC.o
// BTF:     pahole-master -J --btf_encode_detached=reorg.CC.btf reorg.CC.o
// With -DREORG_FOREVER, -o reorg_forever.CC.o: one more struct, at the end.
// gen_reorg.sh remakes them and pahole master's outputs on them for each
// option set of reorg_cases.txt.

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long word_t;

// A hole filled by a later smaller member that has a hole after it.
struct next_hole {
	char a;
	long b;
	char c;
	long d;
};

// A hole filled from the tail: no later member has a hole, no padding.
struct tail_fill {
	char a;
	long b;
	int c;
	int d;
	long e;
};

// The last member moved into a hole, its offset a multiple of 8: the
// padding goes away.
struct pad_aligned {
	char a;
	long b;
	char c;
};

// The last member moved into a hole from an offset not a multiple of 8:
// "adding N bytes from M to the padding".
struct pad_unaligned {
	char a;
	long b;
	int c;
	short d;
};

// A moved member whose own hole plus its size reach sizeof(long): the
// struct shrinks by a word.
struct shrink_word {
	char a;
	long b;
	int c;
	long d;
	short e;
	long f;
};

// The member that fits the hole is the next one (explicit alignment): it
// is not moved.
struct brother_next {
	char a;
	char b __attribute__((__aligned__(4)));
	long c;
};

// The member after the last moved one becomes the last: from_was_last.
struct was_last {
	short a;
	long b;
	int c;
	int d;
};

// Bitfields are never moved: the hole search returns the bitfield's head.
struct bits_hole {
	char a;
	long b;
	unsigned int x:3;
	unsigned int y:5;
	long c;
	char d;
};

// A bitfield at the tail: the tail search skips all but its first member.
struct bits_tail {
	char a;
	long b;
	unsigned int c;
	unsigned short x:4;
	unsigned short y:4;
	unsigned short z:4;
};

// Ten holes over three cachelines: the reorganized struct saves one.
struct cachelines {
	char c0;
	long l0;
	char c1;
	long l1;
	char c2;
	long l2;
	char c3;
	long l3;
	char c4;
	long l4;
	char c5;
	long l5;
	char c6;
	long l6;
	char c7;
	long l7;
	char c8;
	long l8;
	char c9;
	long l9;
};

// Nested struct, union and array members as movers and as destinations.
struct nested {
	char a;
	struct pad_aligned pa;
	u16 s;
	union {
		int i;
		char c[3];
	} un;
	char arr[3];
	struct {
		short x;
		char y;
	} in;
	long tail;
	char last[5];
};

// Pointers and function pointers with small members between them.
struct pointers {
	void *p;
	char a;
	const char *name;
	int (*fn)(int);
	short s;
	struct pointers *next;
	char b;
};

// A member aligned to a cacheline leaves a large hole before it.
struct cacheline_member {
	char a;
	int b;
	long c __attribute__((__aligned__(64)));
	char d;
	short e;
};

// A packed struct: no holes, so nothing to do.
struct packed {
	char a;
	long b;
	short c;
} __attribute__((__packed__));

// A struct with a packed struct member, holes around it.
struct with_packed {
	char x;
	struct packed p;
	long y;
	char z;
};

// No holes and no padding.
struct no_holes {
	long a;
	int b;
	short c;
	char d;
	char e;
};

// A union: -R does not reorganize unions, -P skips them.
union un {
	char c;
	long l;
	struct no_holes nh;
};

// An anonymous struct known only by its typedef.
typedef struct {
	char a;
	long b;
	char c;
} anon_t;

// Padding after an int-aligned tail: -R recomputes the padding from the
// word size and the struct grows.
struct int_pad {
	int a;
	char b;
};

// A 3-byte array rounds the alignment size up to 4.
struct odd_align {
	char a[3];
	char b;
	short c;
	char d;
};

// A flexible array at the tail (size 0) and holes before it.
struct flex_tail {
	char a;
	long b;
	char c;
	int len;
	char data[];
};

// A zero-length array in a hole's place.
struct zero_len {
	char a;
	long b;
	int z[0];
	char c;
	long d;
};

// No members at all.
struct empty {
};

// Larger than 65535 bytes, its holes past 65535: pahole keeps the offsets
// of moved members in 16 bits.
struct big_offsets {
	char big[70000];
	char a;
	long b;
	char c;
	long d;
	short e;
	long f;
	char g;
};

// Larger than 65535 bytes, the movable members near its start and end.
struct big_tail {
	char a;
	long b;
	long big[10000];
	int c;
	long d;
	char e;
};

// long, unsigned long, pointers, arrays of them and typedefs of long,
// for -w.
struct words {
	char a;
	long b;
	unsigned long c;
	int i;
	void *p;
	long arr[3];
	unsigned long *parr[2];
	word_t w;
	short s;
	long long ll;
};

// A struct and a union of long-sized members nested in another, for -w.
struct words_nested {
	char a;
	struct words w;
	union {
		long l;
		int i;
		void *p;
	} u;
	struct words wa[2];
	char b;
	struct {
		unsigned long x;
		char y;
	} anon;
};

// Bitfields of long type, for -w.
struct long_bits {
	long a:20;
	unsigned long b:40;
	char c;
	long d;
};

// An anonymous struct with holes, no typedef: -P -a names it by file and
// line.
struct {
	char a;
	long b;
	short c;
} anon_var;

// Holes of every size from 1 to 7 bytes.
struct hole_sizes {
	char a;
	short b;
	char c;
	int d;
	char e;
	long f;
	short g;
	long h;
	int i;
	long j;
	char k;
	char l;
	char m;
	char n;
	char o;
	long p;
};


// -R recomputes the padding from the word size: the struct grows past a
// cacheline and the cachelines saved, unsigned, wrap around.
struct grow_cacheline {
	int a[14];
	int x;
	char b;
};

struct next_hole *p_next_hole;
struct tail_fill *p_tail_fill;
struct pad_aligned *p_pad_aligned;
struct pad_unaligned *p_pad_unaligned;
struct shrink_word *p_shrink_word;
struct brother_next *p_brother_next;
struct was_last *p_was_last;
struct bits_hole *p_bits_hole;
struct bits_tail *p_bits_tail;
struct cachelines *p_cachelines;
struct nested *p_nested;
struct pointers *p_pointers;
struct cacheline_member *p_cacheline_member;
struct with_packed *p_with_packed;
struct no_holes *p_no_holes;
union un *p_un;
anon_t *p_anon;
struct int_pad *p_int_pad;
struct odd_align *p_odd_align;
struct flex_tail *p_flex_tail;
struct zero_len *p_zero_len;
struct empty *p_empty;
struct big_offsets *p_big_offsets;
struct big_tail *p_big_tail;
struct words *p_words;
struct words_nested *p_words_nested;
struct long_bits *p_long_bits;
struct hole_sizes *p_hole_sizes;
struct grow_cacheline *p_grow_cacheline;

#ifdef REORG_FOREVER
// pahole's -R -C reorg_forever (and -P, which reorganizes every struct)
// never ends, so this struct is left out of the default build and of
// reorg_cases.txt; gen_reorg.sh builds reorg_forever.CC.o from
// reorg.c with -DREORG_FOREVER. Moving 'w' to after 'big' keeps its new
// offset, 70000, in 16 bits (4464): the hole after 'big' turns negative,
// every member then fits it, and 'w' and 'm' trade places forever, each
// move taking 8 bytes off the offsets of the members after them.
struct reorg_forever {
	char big[70000];
	int z1[0] __attribute__((__aligned__(64)));
	long w;
	int z2[0] __attribute__((__aligned__(64)));
	void *m;
};

struct reorg_forever *p_reorg_forever;
#endif
