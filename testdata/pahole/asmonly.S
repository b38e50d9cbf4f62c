// build: $CC -g -c $SRC -o $OUT
//
// An assembly-only object with DWARF: clang describes it by a compile unit
// and a DW_TAG_label, which gives no BTF type at all, and pahole's encoder
// then writes nothing ("Empty file, nothing to do") and exits 0; GNU as
// adds a DW_TAG_subprogram, which becomes a FUNC. Kernel builds have such
// objects (arch/x86/kernel/irqflags.o, head_64.o).
	.text
	.globl	asm_answer
	.type	asm_answer, @function
asm_answer:
	movl	$42, %eax
	ret
	.size	asm_answer, .-asm_answer
