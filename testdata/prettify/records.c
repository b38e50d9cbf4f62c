/*
 * gobtf's own fixture for the data pretty-printer (--prettify): record
 * types, and a program that writes a file of them (records.bin) to
 * standard output. gen.sh compiles it (the types' DWARF in records.o,
 * their BTF in records.btf, encoded from it by pahole master) and runs it.
 *
 * The file: a struct file_hdr, whose records section holds records of
 * variable size, each starting with a struct rec_header whose type names
 * its struct (REC_POINT: struct rec_point) and whose size is the record's,
 * and whose extra section holds an array of struct file_sect.
 */
#include <stdio.h>
#include <string.h>

enum rec_type {
	REC_POINT = 1,
	REC_NAME = 2,
	REC_BLOB = 3,
	REC_BITS = 4,
	REC_EMPTY = 9, /* no struct rec_empty: printed as the header */
};

enum rec_more {
	REC_DEEP = 100,
	REC_ODD = 101,
};

struct rec_header {
	unsigned int type;
	unsigned short misc;
	unsigned short size;
};

typedef int coord_t;
typedef unsigned char byte_t;
typedef struct {
	int lo, hi;
} span_t;

struct rec_point {
	struct rec_header header;
	coord_t x;
	int y;
	long long t;
	unsigned char tag[4];
	signed char delta[3];
	short s;
	_Bool ok;
	float f;
	double d;
	int grid[2][3];
	byte_t bytes[3];
	span_t span;
	enum rec_type kind;
	void *ptr;
	const char cname[4];
	char label[6];
};

struct rec_name {
	struct rec_header header;
	char name[12];
	unsigned int a:3, b:5, c:24;
	int neg:4;
	union {
		int i;
		float f;
		unsigned char raw[4];
	} u;
	union {
		unsigned int word;
		unsigned short halves[2];
	};
	struct {
		short p, q;
	} pq;
	struct {
		char c1, c2;
	};
	char rest[];
};

struct rec_blob {
	struct rec_header header;
	unsigned long long big;
	unsigned int count;
	unsigned int data[];
};

struct rec_bits {
	struct rec_header header;
	unsigned long long lo:40, hi:24;
	unsigned char flag:1, mode:7;
	signed char sc;
	unsigned short us;
};

struct l3 { int v; unsigned char b[2]; };
struct l2 { struct l3 in; short w; };
struct l1 { struct l2 in; struct l2 other; };

struct rec_deep {
	struct rec_header header;
	struct l1 in;
};

struct rec_odd {
	struct rec_header header;
	long double ld;
	__int128 wide;
	char three[3];
};

union rec_any {
	struct rec_header header;
	unsigned char bytes[8];
};

struct file_sect {
	unsigned long long offset;
	unsigned long long size;
};

struct file_hdr {
	char magic[8];
	unsigned int version;
	unsigned int nr;
	struct file_sect records;
	struct file_sect extra;
	struct {
		struct file_sect inner;
	} nested;
	long long negative;
	span_t tspan;
	unsigned long long big;
};

typedef struct file_hdr file_hdr_t;

static unsigned char out[1 << 16];
static size_t len;

static void put(const void *p, size_t n)
{
	memcpy(out + len, p, n);
	len += n;
}

static void header(struct rec_header *h, unsigned int type, unsigned short size)
{
	h->type = type;
	h->misc = (unsigned short)(len & 0xffff);
	h->size = size;
}

int main(void)
{
	struct file_hdr fh;
	unsigned int i;

	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, "GOBTFREC", 8);
	fh.version = 3;
	fh.negative = -5;
	fh.tspan.lo = -1;
	fh.tspan.hi = 7;
	fh.big = 0x8000000000000001ULL;
	len = sizeof(fh);
	/* A gap between the header and the records. */
	len += 24;
	fh.records.offset = len;
	for (i = 0; i < 40; i++) {
		switch (i % 8) {
		case 0: {
			struct rec_point r;
			memset(&r, 0, sizeof(r));
			header(&r.header, REC_POINT, sizeof(r));
			r.x = -(int)i;
			r.y = 1000000 * i;
			r.t = -1234567890123LL * (i + 1);
			memcpy(r.tag, "\x01\x80\xff\x7f", 4);
			r.delta[0] = -1; r.delta[1] = 127; r.delta[2] = -128;
			r.s = -300;
			r.ok = i & 1;
			r.f = 1.5f;
			r.d = -2.25;
			r.grid[0][0] = 1; r.grid[1][2] = -6;
			r.bytes[0] = 200; r.bytes[2] = 3;
			r.span.lo = 5; r.span.hi = -5;
			r.kind = REC_BLOB;
			r.ptr = (void *)0x1122334455667788ULL;
			memcpy((char *)r.cname, "abc", 4);
			memcpy(r.label, "label!", 6); /* no NUL */
			put(&r, sizeof(r));
			break;
		}
		case 1: {
			struct rec_name r;
			const char *tail = i & 2 ? "tail of the record" : "t";
			size_t n = strlen(tail) + 1;
			memset(&r, 0, sizeof(r));
			header(&r.header, REC_NAME, sizeof(r) + n);
			snprintf(r.name, sizeof(r.name), "name-%u-%s", i, "xxxxxxxxxx");
			r.a = i & 7; r.b = 31; r.c = 0xabcdef;
			r.neg = -3;
			r.u.i = -2;
			r.word = 0x00020001;
			r.pq.p = -1; r.pq.q = 2;
			r.c1 = 'A'; r.c2 = -1;
			put(&r, sizeof(r));
			put(tail, n);
			break;
		}
		case 2: {
			struct rec_blob r;
			unsigned int d[5] = { 1, 0xffffffff, 3, 0x80000000, 5 };
			unsigned int k = i % 5 + 1;
			memset(&r, 0, sizeof(r));
			header(&r.header, REC_BLOB, sizeof(r) + k * 4);
			r.big = 0xfedcba9876543210ULL;
			r.count = k;
			put(&r, sizeof(r));
			put(d, k * 4);
			break;
		}
		case 3: {
			struct rec_bits r;
			memset(&r, 0, sizeof(r));
			header(&r.header, REC_BITS, sizeof(r));
			r.lo = 0xffffffffffULL; r.hi = 0x123456;
			r.flag = 1; r.mode = 0x55;
			r.sc = -7; r.us = 65535;
			put(&r, sizeof(r));
			break;
		}
		case 4: {
			struct rec_header r;
			header(&r, REC_EMPTY, sizeof(r) + 8);
			put(&r, sizeof(r));
			put("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
			break;
		}
		case 5: {
			struct rec_deep r;
			memset(&r, 0, sizeof(r));
			header(&r.header, REC_DEEP, sizeof(r));
			r.in.in.in.v = 42; r.in.in.in.b[1] = 9; r.in.in.w = -42;
			r.in.other.in.v = 43; r.in.other.w = 44;
			put(&r, sizeof(r));
			break;
		}
		case 6: {
			struct rec_odd r;
			memset(&r, 0, sizeof(r));
			header(&r.header, REC_ODD, sizeof(r));
			r.ld = 1.0L;
			r.wide = 77;
			memcpy(r.three, "xyz", 3);
			put(&r, sizeof(r));
			break;
		}
		case 7: {
			/* A type no enumerator names. */
			struct rec_header r;
			header(&r, 77, sizeof(r));
			put(&r, sizeof(r));
			break;
		}
		}
		fh.nr++;
	}
	fh.records.size = len - fh.records.offset;
	fh.extra.offset = len;
	for (i = 0; i < 6; i++) {
		struct file_sect s = { i * 0x100ULL, ~0ULL - i };
		put(&s, sizeof(s));
	}
	fh.extra.size = len - fh.extra.offset;
	fh.nested.inner = fh.extra;
	memcpy(out, &fh, sizeof(fh));
	fwrite(out, 1, len, stdout);
	return 0;
}
