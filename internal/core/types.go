package core

import (
	"debug/elf"
	"errors"
	"math"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Types is a BTF as the relocation calculator reads it: its types and the
// size libbpf takes a pointer to have in it.
type Types struct {
	Spec    *btf.Spec
	PtrSize uint32
}

// The failures of libbpf's relocation calculator, by the errno it returns.
var (
	errInvalid = errors.New("a type that is not in the BTF, or whose size cannot be resolved")          // EINVAL
	errTooBig  = errors.New("a size of 2^32 bytes or more")                                             // E2BIG
	errTooDeep = errors.New("an access nested deeper than libbpf's 64 steps (anonymous members count)") // E2BIG
)

// maxModChain bounds a chain of modifiers and typedefs: libbpf follows
// them without a bound (the kernel's BTF has no cycles); here a longer chain
// is an invalid type rather than a hang.
const maxModChain = 1 << 12

// longNames are the names under which libbpf looks for "long" to guess the
// pointer size of BTF that does not come from an ELF file.
var longNames = map[string]bool{
	"long": true, "long int": true, "int long": true, "unsigned long": true,
	"long unsigned": true, "unsigned long int": true, "unsigned int long": true,
	"long unsigned int": true, "long int unsigned": true, "int unsigned long": true,
	"int long unsigned": true,
}

// FilePointerSize returns the pointer size libbpf takes for the kernel BTF
// s read from a file whose first bytes are head (at least its ELF
// identification): its ELF class's for an ELF file, else
// GuessPointerSize's.
func FilePointerSize(head []byte, s *btf.Spec) uint32 {
	if !elfio.IsELF(head) {
		return GuessPointerSize(s)
	}
	if len(head) > elf.EI_CLASS && elf.Class(head[elf.EI_CLASS]) == elf.ELFCLASS32 {
		return 4
	}
	return 8
}

// GuessPointerSize returns the pointer size libbpf assumes for BTF read
// from a raw file: the size of the first 4- or 8-byte INT named like
// "long", or 8 (the host's) when there is none. (BTF read from an ELF file
// has its class's pointer size instead.)
func GuessPointerSize(s *btf.Spec) uint32 {
	for id := btf.TypeID(1); id <= s.TypeCount(); id++ {
		t := s.Type(id)
		if t.Kind() != btf.KindInt || (t.Size() != 4 && t.Size() != 8) {
			continue
		}
		if name, ok := s.Strings().Lookup(t.NameOff()); ok && longNames[name] {
			return t.Size()
		}
	}
	return 8
}

// typ returns type id, nil for void, and false when id is not a type of
// ts (libbpf's btf__type_by_id failing).
func (ts *Types) typ(id btf.TypeID) (btf.Type, bool) {
	if id == 0 {
		return nil, true
	}
	if id > ts.Spec.TypeCount() {
		return nil, false
	}
	return ts.Spec.Type(id), true
}

// name returns the string at off, and false when off is not in the string
// table (libbpf's btf__name_by_offset returning NULL).
func (ts *Types) name(off uint32) (string, bool) { return ts.Spec.Strings().Lookup(off) }

// nameOf returns the name of t ("" for void and invalid offsets).
func (ts *Types) nameOf(t btf.Type) string {
	if len(t) == 0 {
		return ""
	}
	return ts.Spec.Strings().String(t.NameOff())
}

// Accessors of a type that treat void (nil) as libbpf's zeroed btf_void.
func vlen(t btf.Type) int {
	if len(t) == 0 {
		return 0
	}
	return t.Vlen()
}

func kflag(t btf.Type) bool { return len(t) != 0 && t.KindFlag() }

func nameOff(t btf.Type) uint32 {
	if len(t) == 0 {
		return 0
	}
	return t.NameOff()
}

func isMod(k btf.Kind) bool {
	return k == btf.KindVolatile || k == btf.KindConst || k == btf.KindRestrict || k == btf.KindTypeTag
}

func isComposite(k btf.Kind) bool { return k == btf.KindStruct || k == btf.KindUnion }

func isAnyEnum(k btf.Kind) bool { return k == btf.KindEnum || k == btf.KindEnum64 }

// kindsCompatible is libbpf's btf_kind_core_compat: the same kind, or
// both enums of either width.
func kindsCompatible(a, b btf.Kind) bool { return a == b || isAnyEnum(a) && isAnyEnum(b) }

// memberBitOffset and memberBitfieldSize decode member i of a struct or union.
func memberBitOffset(t btf.Type, i int) uint32 {
	return btf.MemberBitOffset(t.KindFlag(), t.Member(i).Offset)
}

func memberBitfieldSize(t btf.Type, i int) uint32 {
	return btf.MemberBitfieldSize(t.KindFlag(), t.Member(i).Offset)
}

// intSigned reports whether an INT's encoding has the signed bit.
func intSigned(t btf.Type) bool {
	enc, _, _ := t.IntData()
	return enc&btf.IntSigned != 0
}

// intOffset returns an INT's bit offset (nonzero only in the deprecated
// bitfield-like encoding).
func intOffset(t btf.Type) uint8 {
	_, off, _ := t.IntData()
	return off
}

// enumNameOff returns the name offset of enumerator i of an ENUM or ENUM64.
func enumNameOff(t btf.Type, i int) uint32 {
	if t.Kind() == btf.KindEnum {
		off, _ := t.EnumValue(i)
		return off
	}
	off, _ := t.Enum64Value(i)
	return off
}

// skipModsAndTypedefs follows modifiers (const, volatile, restrict,
// type tags) and typedefs from id, as libbpf's skip_mods_and_typedefs does,
// and returns the first other type (nil for void) and its ID; false when
// the chain reaches an ID that is not a type.
func (ts *Types) skipModsAndTypedefs(id btf.TypeID) (btf.Type, btf.TypeID, bool) {
	t, ok := ts.typ(id)
	for n := 0; ok && len(t) != 0 && (isMod(t.Kind()) || t.Kind() == btf.KindTypedef); n++ {
		if n == maxModChain {
			return nil, 0, false
		}
		id = t.Ref()
		t, ok = ts.typ(id)
	}
	return t, id, ok
}

// maxResolveDepth is libbpf's MAX_RESOLVE_DEPTH: how many types
// resolveSize follows before giving up.
const maxResolveDepth = 32

// resolveSize returns the size in bytes of type id, as libbpf's
// btf__resolve_size computes it: through typedefs, modifiers, VARs and
// DECL_TAGs, multiplying array lengths; errInvalid for void, FWD, FUNC,
// FUNC_PROTO and chains of more than 32 types, errTooBig past 2^32-1 bytes.
func (ts *Types) resolveSize(id btf.TypeID) (uint32, error) {
	nelems := uint32(1)
	size := int64(-1)
	t, ok := ts.typ(id)
loop:
	for i := 0; i < maxResolveDepth && ok && len(t) != 0; i++ {
		switch t.Kind() {
		case btf.KindInt, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindDatasec, btf.KindFloat:
			size = int64(t.Size())
			break loop
		case btf.KindPtr:
			size = int64(ts.PtrSize)
			break loop
		case btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindVar, btf.KindDeclTag, btf.KindTypeTag:
			id = t.Ref()
		case btf.KindArray:
			elem, _, n := t.Array()
			if nelems != 0 && n > math.MaxUint32/nelems {
				return 0, errTooBig
			}
			nelems *= n
			id = elem
		default:
			return 0, errInvalid
		}
		t, ok = ts.typ(id)
	}
	if size < 0 {
		return 0, errInvalid
	}
	if nelems != 0 && size > int64(math.MaxUint32/nelems) {
		return 0, errTooBig
	}
	return nelems * uint32(size), nil
}

// EssentialNameLen returns the length of name without its flavor: the
// part after the last "___" that has a non-underscore on both sides
// ("task_struct___v2" has essential name "task_struct"). CO-RE compares
// names up to that length.
func EssentialNameLen(name string) int {
	if !strings.Contains(name, "___") {
		return len(name)
	}
	for i := len(name) - 5; i >= 0; i-- {
		if name[i] != '_' && name[i+1] == '_' && name[i+2] == '_' && name[i+3] == '_' && name[i+4] != '_' {
			return i + 1
		}
	}
	return len(name)
}

// essentialName returns name up to its essential length.
func essentialName(name string) string { return name[:EssentialNameLen(name)] }
