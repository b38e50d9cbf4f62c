// build: $CC -c $SRC -o $OUT
//
// DWARF 5 written by hand as gcc 16 writes btf_type_tag and btf_decl_tag
// annotations (gcc 16 is not in Debian 12): DW_TAG_GNU_annotation entries
// that an annotated entry names with DW_AT_GNU_annotation, chained through
// the same attribute. It has: an annotation met before the pointer that
// names it; a chain of two type tags (PTR -> "user" -> "rcu" -> int); a
// pointer naming the second entry of that chain directly; a type-tag chain
// that goes on into a decl tag (pahole stops there); decl tags on a struct,
// on a member (a chain of two) and on a member of another struct; and a
// typedef with a decl tag, which pahole does not read; a struct nested in
// another, both with decl tags on themselves and on a member; and a
// function, int f(int x, int y), with two decl tags and one on y.
	.text
	.globl	f
	.type	f, @function
f:
	leal	(%rdi,%rsi), %eax
	ret
.Lf_end:
	.size	f, .-f
	.section	.debug_abbrev,"",@progbits
.Ldebug_abbrev0:
	.uleb128 1
	.uleb128 0x11	# DW_TAG_compile_unit
	.byte 1		# children
	.uleb128 0x25, 0x08	# DW_AT_producer, DW_FORM_string
	.uleb128 0x13, 0x0b	# DW_AT_language, DW_FORM_data1
	.uleb128 0x03, 0x08	# DW_AT_name, DW_FORM_string
	.byte 0, 0
	.uleb128 2
	.uleb128 0x24	# DW_TAG_base_type
	.byte 0
	.uleb128 0x0b, 0x0b	# DW_AT_byte_size, DW_FORM_data1
	.uleb128 0x3e, 0x0b	# DW_AT_encoding, DW_FORM_data1
	.uleb128 0x03, 0x08	# DW_AT_name, DW_FORM_string
	.byte 0, 0
	.uleb128 3
	.uleb128 0x0f	# DW_TAG_pointer_type
	.byte 0
	.uleb128 0x0b, 0x0b	# DW_AT_byte_size, DW_FORM_data1
	.uleb128 0x49, 0x13	# DW_AT_type, DW_FORM_ref4
	.uleb128 0x2139, 0x13	# DW_AT_GNU_annotation, DW_FORM_ref4
	.byte 0, 0
	.uleb128 4
	.uleb128 0x0f	# DW_TAG_pointer_type
	.byte 0
	.uleb128 0x0b, 0x0b
	.uleb128 0x49, 0x13
	.byte 0, 0
	.uleb128 5
	.uleb128 0x13	# DW_TAG_structure_type
	.byte 1
	.uleb128 0x03, 0x08	# DW_AT_name
	.uleb128 0x0b, 0x0b	# DW_AT_byte_size
	.uleb128 0x2139, 0x13	# DW_AT_GNU_annotation
	.byte 0, 0
	.uleb128 6
	.uleb128 0x0d	# DW_TAG_member
	.byte 0
	.uleb128 0x03, 0x08	# DW_AT_name
	.uleb128 0x49, 0x13	# DW_AT_type
	.uleb128 0x38, 0x0b	# DW_AT_data_member_location, DW_FORM_data1
	.uleb128 0x2139, 0x13	# DW_AT_GNU_annotation
	.byte 0, 0
	.uleb128 7
	.uleb128 0x0d	# DW_TAG_member
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x49, 0x13
	.uleb128 0x38, 0x0b
	.byte 0, 0
	.uleb128 8
	.uleb128 0x6001	# DW_TAG_GNU_annotation
	.byte 0
	.uleb128 0x03, 0x08	# DW_AT_name
	.uleb128 0x1c, 0x08	# DW_AT_const_value, DW_FORM_string
	.byte 0, 0
	.uleb128 9
	.uleb128 0x6001	# DW_TAG_GNU_annotation, chained on
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x1c, 0x08
	.uleb128 0x2139, 0x13	# DW_AT_GNU_annotation
	.byte 0, 0
	.uleb128 10
	.uleb128 0x16	# DW_TAG_typedef
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x49, 0x13
	.uleb128 0x2139, 0x13
	.byte 0, 0
	.uleb128 12
	.uleb128 0x2e	# DW_TAG_subprogram
	.byte 1
	.uleb128 0x3f, 0x19	# DW_AT_external, DW_FORM_flag_present
	.uleb128 0x03, 0x08	# DW_AT_name
	.uleb128 0x27, 0x19	# DW_AT_prototyped, DW_FORM_flag_present
	.uleb128 0x49, 0x13	# DW_AT_type
	.uleb128 0x11, 0x01	# DW_AT_low_pc, DW_FORM_addr
	.uleb128 0x12, 0x07	# DW_AT_high_pc, DW_FORM_data8
	.uleb128 0x2139, 0x13	# DW_AT_GNU_annotation
	.byte 0, 0
	.uleb128 13
	.uleb128 0x05	# DW_TAG_formal_parameter
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x49, 0x13
	.uleb128 0x2139, 0x13
	.byte 0, 0
	.uleb128 14
	.uleb128 0x05	# DW_TAG_formal_parameter
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x49, 0x13
	.byte 0, 0
	.uleb128 11
	.uleb128 0x13	# DW_TAG_structure_type, no annotation
	.byte 1
	.uleb128 0x03, 0x08
	.uleb128 0x0b, 0x0b
	.byte 0, 0
	.byte 0

	.section	.debug_info,"",@progbits
.Ldebug_info0:
	.long .Linfo_end - .Linfo_start
.Linfo_start:
	.value 5		# DWARF 5
	.byte 1			# DW_UT_compile
	.byte 8			# address size
	.long .Ldebug_abbrev0
	.uleb128 1		# compile unit
	.string "GNU C17 16.0.0 -g"
	.byte 0x1d		# DW_LANG_C11
	.string "gnuannot.c"
.Lint:
	.uleb128 2
	.byte 4, 5
	.string "int"
// A tag met before the pointer that names it: the second of a chain.
.Lrcu:
	.uleb128 8
	.string "btf_type_tag"
	.string "rcu"
// int *: PTR -> "user" -> "rcu" -> int
.Lptr_user_rcu:
	.uleb128 3
	.byte 8
	.long .Lint - .Ldebug_info0
	.long .Luser - .Ldebug_info0
// int *: PTR -> "rcu" -> int (the same annotation entry, reached directly)
.Lptr_rcu:
	.uleb128 3
	.byte 8
	.long .Lint - .Ldebug_info0
	.long .Lrcu - .Ldebug_info0
// int *: a chain whose second entry is a decl tag: PTR -> "percpu" -> int
.Lptr_percpu:
	.uleb128 3
	.byte 8
	.long .Lint - .Ldebug_info0
	.long .Lpercpu - .Ldebug_info0
// struct S, with a decl tag, and decl tags on its first member
.LS:
	.uleb128 5
	.string "S"
	.byte 16
	.long .Lsdecl - .Ldebug_info0
	.uleb128 6
	.string "a"
	.long .Lint - .Ldebug_info0
	.byte 0
	.long .Lm1 - .Ldebug_info0
	.uleb128 7
	.string "b"
	.long .Lptr_user_rcu - .Ldebug_info0
	.byte 8
	.byte 0			# end of S's children
// struct T, without annotations, with a member pointing to S
.LT:
	.uleb128 11
	.string "T"
	.byte 8
	.uleb128 6
	.string "s"
	.long .Lptr_S - .Ldebug_info0
	.byte 0
	.long .Lm3 - .Ldebug_info0
	.byte 0
.Lptr_S:
	.uleb128 4
	.byte 8
	.long .LS - .Ldebug_info0
// struct U, with a decl tag, an annotated member and, nested in it, struct
// V with its own: V is numbered first, and its DECL_TAGs come first
.LU:
	.uleb128 5
	.string "U"
	.byte 8
	.long .Ludecl - .Ldebug_info0
	.uleb128 6
	.string "u1"
	.long .Lint - .Ldebug_info0
	.byte 0
	.long .Lu1 - .Ldebug_info0
.LV:
	.uleb128 5
	.string "V"
	.byte 4
	.long .Lvdecl - .Ldebug_info0
	.uleb128 6
	.string "v1"
	.long .Lint - .Ldebug_info0
	.byte 0
	.long .Lv1 - .Ldebug_info0
	.byte 0			// end of V's children
	.uleb128 7
	.string "u2"
	.long .LV - .Ldebug_info0
	.byte 4
	.byte 0			// end of U's children
// int f(int x, int y), with a decl tag on f and on y
	.uleb128 12
	.string "f"
	.long .Lint - .Ldebug_info0
	.quad f
	.quad .Lf_end - f
	.long .Lfdecl - .Ldebug_info0
	.uleb128 14
	.string "x"
	.long .Lint - .Ldebug_info0
	.uleb128 13
	.string "y"
	.long .Lint - .Ldebug_info0
	.long .Lydecl - .Ldebug_info0
	.byte 0			// end of f's children
// typedef with an annotation (pahole reads none on typedefs from gcc)
	.uleb128 10
	.string "myint"
	.long .Lint - .Ldebug_info0
	.long .Ltdecl - .Ldebug_info0
// the annotations after the types
.Luser:
	.uleb128 9
	.string "btf_type_tag"
	.string "user"
	.long .Lrcu - .Ldebug_info0
.Lpercpu:
	.uleb128 9
	.string "btf_type_tag"
	.string "percpu"
	.long .Lnotype - .Ldebug_info0
.Lnotype:
	.uleb128 8
	.string "btf_decl_tag"
	.string "stray"
.Lsdecl:
	.uleb128 8
	.string "btf_decl_tag"
	.string "sdecl"
.Lm1:
	.uleb128 9
	.string "btf_decl_tag"
	.string "m1"
	.long .Lm2 - .Ldebug_info0
.Lm2:
	.uleb128 8
	.string "btf_decl_tag"
	.string "m2"
.Lm3:
	.uleb128 8
	.string "btf_decl_tag"
	.string "m3"
.Ltdecl:
	.uleb128 8
	.string "btf_decl_tag"
	.string "tdecl"
.Ludecl:
	.uleb128 8
	.string "btf_decl_tag"
	.string "udecl"
.Lu1:
	.uleb128 8
	.string "btf_decl_tag"
	.string "u1"
.Lvdecl:
	.uleb128 8
	.string "btf_decl_tag"
	.string "vdecl"
.Lv1:
	.uleb128 8
	.string "btf_decl_tag"
	.string "v1"
.Lfdecl:
	.uleb128 9
	.string "btf_decl_tag"
	.string "fdecl"
	.long .Lfdecl2 - .Ldebug_info0
.Lfdecl2:
	.uleb128 8
	.string "btf_decl_tag"
	.string "fdecl2"
.Lydecl:
	.uleb128 8
	.string "btf_decl_tag"
	.string "ydecl"
	.byte 0			# end of the unit's children
.Linfo_end:
	.section	.note.GNU-stack,"",@progbits
