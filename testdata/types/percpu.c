// Variables in a per-CPU-style section, as the kernel's DEFINE_PER_CPU makes
// them, next to ordinary globals (which only global_var describes).
// Compile: $CC -g -O0 -gdwarf-$V -shared -nostdlib -fPIC percpu.c -o percpu.so
//          objcopy --rename-section .data=.data..percpu percpu.so
// (the default linker script folds .data..percpu into .data; the ordinary
// globals are zero-initialized, so .data holds only the per-CPU variables)
#define __percpu_var __attribute__((section(".data..percpu")))

struct counter { long hits; int cpu; };

extern struct counter shared_counter;
struct counter shared_counter __percpu_var;
static int local_seq __percpu_var = 3;
unsigned long pcpu_array[8] __percpu_var;
const char *pcpu_name __percpu_var = "x";

int plain_global;
static long plain_static;
long *use_static(void);
long *use_static(void) { return &plain_static + local_seq; }
