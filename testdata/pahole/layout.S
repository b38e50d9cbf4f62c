// build: $CC -c $SRC -o $OUT
//
// The kind layout fixture: gcc 12.2 -g -O1 -S -fno-asynchronous-unwind-tables
// output for this C, kept as assembly so that its DWARF does not depend
// on the compiler that runs the test (layout.pahole.btf, its oracle, is
// what pahole writes for it):
//
//   struct s { int a; char b; struct s *n; };
//   enum e { A, B = 5 };
//   typedef unsigned long ul;
//   struct s g;
//   enum e ge;
//   ul gu;
//   int f(struct s *p, ul x) { return p->a + x; }
	.file	"layout.c"
	.text
.Ltext0:
	.cfi_sections	.debug_frame
	.file 0 "/tmp/lay" "layout.c"
	.globl	f
	.type	f, @function
f:
.LVL0:
.LFB0:
	.file 1 "layout.c"
	.loc 1 7 26 view -0
	.cfi_startproc
	.loc 1 7 28 view .LVU1
	.loc 1 7 40 is_stmt 0 view .LVU2
	movl	%esi, %eax
	addl	(%rdi), %eax
	.loc 1 7 45 view .LVU3
	ret
	.cfi_endproc
.LFE0:
	.size	f, .-f
	.globl	gu
	.bss
	.align 8
	.type	gu, @object
	.size	gu, 8
gu:
	.zero	8
	.globl	ge
	.align 4
	.type	ge, @object
	.size	ge, 4
ge:
	.zero	4
	.globl	g
	.align 16
	.type	g, @object
	.size	g, 16
g:
	.zero	16
	.text
.Letext0:
	.section	.debug_info,"",@progbits
.Ldebug_info0:
	.long	0x104
	.value	0x5
	.byte	0x1
	.byte	0x8
	.long	.Ldebug_abbrev0
	.uleb128 0x6
	.long	.LASF5
	.byte	0x1d
	.long	.LASF0
	.long	.LASF1
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.long	.Ldebug_line0
	.uleb128 0x7
	.string	"s"
	.byte	0x10
	.byte	0x1
	.byte	0x1
	.byte	0x8
	.long	0x55
	.uleb128 0x1
	.string	"a"
	.byte	0x10
	.long	0x55
	.byte	0
	.uleb128 0x1
	.string	"b"
	.byte	0x18
	.long	0x5c
	.byte	0x4
	.uleb128 0x1
	.string	"n"
	.byte	0x25
	.long	0x63
	.byte	0x8
	.byte	0
	.uleb128 0x8
	.byte	0x4
	.byte	0x5
	.string	"int"
	.uleb128 0x2
	.byte	0x1
	.byte	0x6
	.long	.LASF2
	.uleb128 0x9
	.byte	0x8
	.long	0x2e
	.uleb128 0xa
	.string	"e"
	.byte	0x7
	.byte	0x4
	.long	0x82
	.byte	0x1
	.byte	0x2
	.byte	0x6
	.long	0x82
	.uleb128 0x4
	.string	"A"
	.byte	0
	.uleb128 0x4
	.string	"B"
	.byte	0x5
	.byte	0
	.uleb128 0x2
	.byte	0x4
	.byte	0x7
	.long	.LASF3
	.uleb128 0xb
	.string	"ul"
	.byte	0x1
	.byte	0x3
	.byte	0x17
	.long	0x94
	.uleb128 0x2
	.byte	0x8
	.byte	0x7
	.long	.LASF4
	.uleb128 0x3
	.string	"g"
	.byte	0x4
	.byte	0xa
	.long	0x2e
	.uleb128 0x9
	.byte	0x3
	.quad	g
	.uleb128 0x3
	.string	"ge"
	.byte	0x5
	.byte	0x8
	.long	0x69
	.uleb128 0x9
	.byte	0x3
	.quad	ge
	.uleb128 0x3
	.string	"gu"
	.byte	0x6
	.byte	0x4
	.long	0x89
	.uleb128 0x9
	.byte	0x3
	.quad	gu
	.uleb128 0xc
	.string	"f"
	.byte	0x1
	.byte	0x7
	.byte	0x5
	.long	0x55
	.quad	.LFB0
	.quad	.LFE0-.LFB0
	.uleb128 0x1
	.byte	0x9c
	.uleb128 0x5
	.string	"p"
	.byte	0x11
	.long	0x63
	.uleb128 0x1
	.byte	0x55
	.uleb128 0x5
	.string	"x"
	.byte	0x17
	.long	0x89
	.uleb128 0x1
	.byte	0x54
	.byte	0
	.byte	0
	.section	.debug_abbrev,"",@progbits
.Ldebug_abbrev0:
	.uleb128 0x1
	.uleb128 0xd
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x3b
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x38
	.uleb128 0xb
	.byte	0
	.byte	0
	.uleb128 0x2
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0xe
	.byte	0
	.byte	0
	.uleb128 0x3
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x2
	.uleb128 0x18
	.byte	0
	.byte	0
	.uleb128 0x4
	.uleb128 0x28
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x1c
	.uleb128 0xb
	.byte	0
	.byte	0
	.uleb128 0x5
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x3b
	.uleb128 0x21
	.sleb128 7
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x18
	.byte	0
	.byte	0
	.uleb128 0x6
	.uleb128 0x11
	.byte	0x1
	.uleb128 0x25
	.uleb128 0xe
	.uleb128 0x13
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x1f
	.uleb128 0x1b
	.uleb128 0x1f
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x10
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0x7
	.uleb128 0x13
	.byte	0x1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x8
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x8
	.byte	0
	.byte	0
	.uleb128 0x9
	.uleb128 0xf
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xa
	.uleb128 0x4
	.byte	0x1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xb
	.uleb128 0x16
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xc
	.uleb128 0x2e
	.byte	0x1
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x40
	.uleb128 0x18
	.uleb128 0x7a
	.uleb128 0x19
	.byte	0
	.byte	0
	.byte	0
	.section	.debug_aranges,"",@progbits
	.long	0x2c
	.value	0x2
	.long	.Ldebug_info0
	.byte	0x8
	.byte	0
	.value	0
	.value	0
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.quad	0
	.quad	0
	.section	.debug_line,"",@progbits
.Ldebug_line0:
	.section	.debug_str,"MS",@progbits,1
.LASF3:
	.string	"unsigned int"
.LASF5:
	.string	"GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -O1 -fno-asynchronous-unwind-tables"
.LASF4:
	.string	"long unsigned int"
.LASF2:
	.string	"char"
	.section	.debug_line_str,"MS",@progbits,1
.LASF0:
	.string	"layout.c"
.LASF1:
	.string	"/tmp/lay"
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
