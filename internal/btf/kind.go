// Package btf is the pipeline's representation of BTF: types as flat streams
// of 32-bit words indexed by type ID (base and split), decoded from and
// encoded to the wire format in either byte order, validated by the kernel's
// rules, dumped as bpftool prints them, and distilled for split BTF.
// docs/design.md explains the representation and its invariants.
package btf

import "fmt"

// Kind is a BTF type kind, the value stored in bits 24-30 of a type's info
// word (bits 24-28 before libbpf 1.8 and Linux 7.1; see KindMask).
type Kind uint8

// The BTF kinds, numbered as in the kernel's include/uapi/linux/btf.h.
const (
	KindUnknown   Kind = 0
	KindInt       Kind = 1
	KindPtr       Kind = 2
	KindArray     Kind = 3
	KindStruct    Kind = 4
	KindUnion     Kind = 5
	KindEnum      Kind = 6
	KindFwd       Kind = 7
	KindTypedef   Kind = 8
	KindVolatile  Kind = 9
	KindConst     Kind = 10
	KindRestrict  Kind = 11
	KindFunc      Kind = 12
	KindFuncProto Kind = 13
	KindVar       Kind = 14
	KindDatasec   Kind = 15
	KindFloat     Kind = 16
	KindDeclTag   Kind = 17
	KindTypeTag   Kind = 18
	KindEnum64    Kind = 19

	// MaxKind is the highest kind this package understands.
	MaxKind = KindEnum64
)

var kindNames = [...]string{
	KindUnknown:   "UNKNOWN",
	KindInt:       "INT",
	KindPtr:       "PTR",
	KindArray:     "ARRAY",
	KindStruct:    "STRUCT",
	KindUnion:     "UNION",
	KindEnum:      "ENUM",
	KindFwd:       "FWD",
	KindTypedef:   "TYPEDEF",
	KindVolatile:  "VOLATILE",
	KindConst:     "CONST",
	KindRestrict:  "RESTRICT",
	KindFunc:      "FUNC",
	KindFuncProto: "FUNC_PROTO",
	KindVar:       "VAR",
	KindDatasec:   "DATASEC",
	KindFloat:     "FLOAT",
	KindDeclTag:   "DECL_TAG",
	KindTypeTag:   "TYPE_TAG",
	KindEnum64:    "ENUM64",
}

// String returns the kind's name as bpftool prints it ("STRUCT", "FUNC_PROTO").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("KIND(%d)", uint8(k))
}

// The layout of the info word: vlen in bits 0-23, kind in bits 24-30,
// kind_flag in bit 31. Until libbpf 1.8 and Linux 7.1 vlen had bits 0-15 and
// kind bits 24-28, and the bits between were reserved (zero), so BTF of
// either age reads the same through these masks; reading it with the old ones
// would misread a newer file's long types (a DATASEC of more than 65,535
// variables, say) as short ones of another length, and a kind above 31 as a
// known kind.
const (
	infoVlenMask  = 0xffffff
	infoKindShift = 24
	infoFlagBit   = 1 << 31

	// KindMask is the kind field's width: every kind InfoKind returns is
	// at most KindMask, so a table of KindMask+1 entries indexed by a
	// kind masked with it needs no bounds check.
	KindMask = 0x7f

	// MaxEncodedVlen is the largest vlen gobtf writes into a type it
	// converts from DWARF: kernels before 7.1 read only 16 bits of vlen
	// and reject the others, and pahole 1.31 (with the libbpf of its day)
	// cannot write more either.
	MaxEncodedVlen = 0xffff
)

// Info packs a kind, a kind_flag and a vlen into an info word. vlen is
// truncated to 24 bits; callers that convert must keep to [MaxEncodedVlen]
// and check first.
func Info(k Kind, kindFlag bool, vlen int) uint32 {
	w := uint32(k)<<infoKindShift | uint32(vlen)&infoVlenMask
	if kindFlag {
		w |= infoFlagBit
	}
	return w
}

// InfoKind extracts the kind from an info word.
func InfoKind(info uint32) Kind { return Kind(info >> infoKindShift & KindMask) }

// InfoVlen extracts vlen from an info word.
func InfoVlen(info uint32) int { return int(info & infoVlenMask) }

// InfoKindFlag extracts kind_flag from an info word.
func InfoKindFlag(info uint32) bool { return info&infoFlagBit != 0 }

// headerWords is the size of the common btf_type header in 32-bit words.
const headerWords = 3

// trailingWords returns how many 32-bit words follow the btf_type header of a
// type with the given kind and vlen, and false for an unknown kind.
func trailingWords(k Kind, vlen int) (int, bool) {
	switch k {
	case KindInt, KindVar, KindDeclTag:
		return 1, true
	case KindPtr, KindFwd, KindTypedef, KindVolatile, KindConst, KindRestrict,
		KindFunc, KindFloat, KindTypeTag:
		return 0, true
	case KindArray:
		return 3, true
	case KindStruct, KindUnion, KindDatasec, KindEnum64:
		return 3 * vlen, true
	case KindEnum, KindFuncProto:
		return 2 * vlen, true
	}
	return 0, false
}

// INT encoding bits (bits 24-27 of an INT's trailing word).
const (
	IntSigned = 1 << 0
	IntChar   = 1 << 1
	IntBool   = 1 << 2
)

// Linkage values of FUNC (stored in vlen) and VAR (stored in its trailing word).
const (
	LinkageStatic = 0
	LinkageGlobal = 1
	LinkageExtern = 2
)
