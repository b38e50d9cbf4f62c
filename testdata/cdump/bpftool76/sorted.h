#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

#ifndef __ksym
#define __ksym __attribute__((section(".ksyms")))
#endif

#ifndef __weak
#define __weak __attribute__((weak))
#endif

#ifndef __bpf_fastcall
#if __has_attribute(bpf_fastcall)
#define __bpf_fastcall __attribute__((bpf_fastcall))
#else
#define __bpf_fastcall
#endif
#endif

enum {
	ANON_Z = 1,
};

enum big {
	BIG_A = 4294967296ULL,
};

enum small {
	SMALL_A = 0,
	SMALL_B = 1,
} __attribute__((mode(byte)));

enum word {
	WORD_A = 1LL,
} __attribute__((mode(word)));

typedef struct {
	int x;
} anon_t;

struct task {
	int pid;
	enum small s;
	enum word w;
	enum big b;
};

typedef int (*cb_t)(void *);

struct arr {
	struct task t[2];
	cb_t cb;
	anon_t a;
};

struct dup {
	int a;
};

struct dup___2 {
	long b;
};


/* BPF kfuncs */
#ifndef BPF_NO_KFUNC_PROTOTYPES
extern long bpf_aaa_first(void) __weak __ksym;
extern __bpf_fastcall struct task *bpf_task_acquire(struct task *t) __weak __ksym;
extern void bpf_task_release(struct task *t) __weak __ksym;
extern int bpf_zzz_last(int (*fn)(int), struct arr *a, ...) __weak __ksym;
#endif

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
