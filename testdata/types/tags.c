// clang's BTF annotations: btf_type_tag on pointers and btf_decl_tag on
// structs, members and typedefs (DW_TAG_LLVM_annotation children).
// Compile: clang -g -c -O0 -gdwarf-$V tags.c -o tags.o
#define __tag(x) __attribute__((btf_type_tag(x)))
#define __decl(x) __attribute__((btf_decl_tag(x)))

struct sample { int v; } __decl("sample_decl");

struct holder {
	int __tag("user") *up;
	struct sample __tag("outer") __tag("inner") *chain;
	int plain __decl("member_decl");
	void __tag("percpu") * __tag("rcu") *pp;
} __decl("holder_decl");

typedef struct holder holder_t __decl("typedef_decl");

holder_t holder_var;
