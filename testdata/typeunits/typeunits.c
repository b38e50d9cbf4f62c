// build: $CC -g -gdwarf-$V $TYPES -O0 -c $SRC -o $OUT
//
// With TYPES=-fdebug-types-section, gcc moves the struct, union and enum
// types out of the unit into type units (.debug_types in DWARF 4, type units
// of .debug_info in DWARF 5). The unit refers to them by signature
// (DW_FORM_ref_sig8), directly or through a stub carrying DW_AT_signature,
// and a type unit refers to another the same way. An enum used only for its
// constants is in a type unit that nothing refers to. The BTF of the two
// builds must be the same.

struct node {
	struct node *next;
	int key;
	union value {
		int i;
		float f;
	} v;
};

enum color { RED, GREEN, BLUE };

enum flags { F_READ = 1, F_WRITE = 2 }; // only its constants are used

typedef struct node node_t;

struct pair {
	node_t items[2];
	enum color c;
	const struct pair *twin;
};

struct pair pairs[4];
struct node *head;

int count_nodes(const struct node *n)
{
	int c = 0;

	for (; n; n = n->next)
		c++;
	return c;
}

enum color paint(union value v, struct pair *p)
{
	return v.i && p ? RED : BLUE;
}

int flags_of(void)
{
	return F_READ | F_WRITE;
}
