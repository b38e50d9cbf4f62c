// build: clang-19 -g -O2 -target bpf -c $SRC -o $OUT
// A target BTF with every kind a kernel's BTF can have, built by clang
// (its .BTF is the target): TYPE_TAGs on pointers (as clang kernels and
// newer pahole give them), DECL_TAGs on a struct, a member and a function,
// FWDs (structs only declared), FUNCs, VARs and DATASECs, an ENUM64.
#define __user __attribute__((btf_type_tag("user")))
#define __rcu __attribute__((btf_type_tag("rcu")))
#define __tag(x) __attribute__((btf_decl_tag(x)))

struct only_declared;
union only_declared_union;

struct inner {
	int a;
	unsigned int flags : 3, mode : 5;
	long b;
};

struct tagged {
	int __user *uptr;
	struct inner __rcu *rcu_inner;
	struct inner in;
	struct only_declared *fwd;
	union only_declared_union *fwd_union;
	char name[16] __tag("member_tag");
	int (*callback)(struct tagged __user *, long);
} __tag("struct_tag");

typedef struct tagged tagged_t;
typedef struct only_declared *only_declared_p;
typedef int __user *user_int_p;

enum wide {
	WIDE_SMALL = 1,
	WIDE_BIG = 0x100000000ULL,
};

struct tagged g_tagged;
tagged_t *g_tagged_p;
only_declared_p g_fwd;
user_int_p g_user;
enum wide g_wide;

__tag("func_tag") int use(struct tagged *t)
{
	return t->in.a + g_wide;
}
