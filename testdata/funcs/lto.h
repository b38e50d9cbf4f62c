// Types shared by the lto_a.c and lto_b.c fixture halves.
struct node {
	int v;
	struct node *next;
};

struct tree {
	long key;
	struct tree *left, *right;
	struct node *leaf;
};

struct list {
	struct node *head;
	long n;
	struct tree *root;
};

enum mode { MODE_A, MODE_B };

struct extra {
	struct list l;
	unsigned flags : 3;
	enum mode mode;
};

int sum(struct list *l);
unsigned count_flags(struct extra *e);
long walk_tree(struct tree *t, int depth);
