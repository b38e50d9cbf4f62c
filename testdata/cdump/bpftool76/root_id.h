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

enum small {
	SMALL_A = 0,
	SMALL_B = 1,
} __attribute__((mode(byte)));

enum word {
	WORD_A = 1LL,
} __attribute__((mode(word)));

enum big {
	BIG_A = 4294967296ULL,
};

struct task {
	int pid;
	enum small s;
	enum word w;
	enum big b;
};

typedef int (*cb_t)(void *);

typedef struct {
	int x;
} anon_t;

struct arr {
	struct task t[2];
	cb_t cb;
	anon_t a;
};

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
