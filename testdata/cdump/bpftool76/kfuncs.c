// What bpftool 7.6's header adds over 7.1's: kfunc prototypes (functions
// with a bpf_kfunc declaration tag, some also bpf_fastcall), enums of one
// and eight bytes (mode attributes), and types whose sorted order needs
// every sort key (rank, names, the disambiguating hash, the ID).
// Compile: clang -g -O0 -c kfuncs.c -o kfuncs.o
// BTF:     gobtf -J --btf_encode_detached=kfuncs.btf kfuncs.o
// The .h files beside it are bpftool 7.6's; see README.
#define __kfunc __attribute__((btf_decl_tag("bpf_kfunc")))
#define __fastcall __attribute__((btf_decl_tag("bpf_fastcall")))

enum __attribute__((packed)) small { SMALL_A, SMALL_B };
enum __attribute__((mode(word))) word { WORD_A = 1 };
enum big { BIG_A = 0x100000000ULL };
enum { ANON_Z = 1 };
enum { ANON_A = 2 };
typedef struct { int x; } anon_t;
typedef int (*cb_t)(void *);

struct task { int pid; enum small s; enum word w; enum big b; };
struct arr { struct task t[2]; cb_t cb; anon_t a; };

__kfunc __fastcall struct task *bpf_task_acquire(struct task *t) { return t; }
__kfunc void bpf_task_release(struct task *t) { (void)t; }
__kfunc int bpf_zzz_last(int (*fn)(int), struct arr *a, ...) { return fn(0) + a->t[0].pid; }
__kfunc long bpf_aaa_first(void) { return ANON_Z + ANON_A; }
int not_a_kfunc(void) { return 0; }

int scope_a(void) { struct dup { int a; } d = { 1 }; return d.a; }
int scope_b(void) { struct dup { long b; } d = { 2 }; return (int)d.b; }

struct arr v_arr;
