package cdump

import (
	"math"

	"github.com/gobtf/gobtf/internal/btf"
)

// pointerSize guesses the target's pointer size as libbpf does: the size of
// the first 4- or 8-byte INT named like a C long, or 8 when there is none.
func pointerSize(p *printer) int {
	for id := btf.TypeID(1); id <= p.last; id++ {
		t := p.typ(id)
		if t.Kind() != btf.KindInt || t.Size() != 4 && t.Size() != 8 {
			continue
		}
		switch p.str(t.NameOff()) {
		case "long", "long int", "int long", "unsigned long", "long unsigned",
			"unsigned long int", "unsigned int long", "long unsigned int",
			"long int unsigned", "int unsigned long", "int long unsigned":
			return int(t.Size())
		}
	}
	return 8
}

// alignOf returns the alignment libbpf infers for a type: a scalar's size
// (at most a pointer's), a pointer's size, an array's element's, and a
// struct's or union's largest member's, or 1 when a member sits off its
// alignment or the size is not a multiple of it (the type must be packed).
// Kinds with no alignment (void, functions) give 0. Results are memoized; a
// struct met again while its alignment is computed (a by-value cycle, which
// ordering rejects before any alignment is asked for) counts as 1, and so
// does a chain of typedefs, modifiers and arrays longer than there are types
// (a loop ordering rejects too).
func (p *printer) alignOf(id btf.TypeID) int { return p.alignChain(id, 0) }

func (p *printer) alignChain(id btf.TypeID, chain int) int {
	if a := p.align[id]; a != 0 {
		return int(a - 1)
	}
	if chain > int(p.last) {
		return 1
	}
	t := p.typ(id)
	var a int
	switch t.Kind() {
	case btf.KindInt, btf.KindEnum, btf.KindEnum64, btf.KindFloat:
		a = min(p.ptrSz, int(t.Size()))
	case btf.KindPtr:
		a = p.ptrSz
	case btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		a = p.alignChain(t.Ref(), chain+1)
	case btf.KindArray:
		elem, _, _ := t.Array()
		a = p.alignChain(elem, chain+1)
	case btf.KindStruct, btf.KindUnion:
		p.align[id] = 2 // in progress: 1
		a = p.compositeAlign(t)
	}
	p.align[id] = int32(a) + 1
	return a
}

func (p *printer) compositeAlign(t btf.Type) int {
	maxAlign := 1
	kf := t.KindFlag()
	for i := range t.Vlen() {
		m := t.Member(i)
		a := p.alignOf(m.Type)
		if a <= 0 {
			return a
		}
		maxAlign = max(maxAlign, a)
		if btf.MemberBitfieldSize(kf, m.Offset) == 0 && m.Offset%uint32(8*a) != 0 {
			return 1
		}
	}
	if t.Size()%uint32(maxAlign) != 0 {
		return 1
	}
	return maxAlign
}

// isPacked reports whether struct t needs __attribute__((packed)): a
// non-bitfield member off its type's alignment, or a size that is not a
// multiple of the largest member alignment.
func (p *printer) isPacked(t btf.Type) bool {
	maxAlign := 1
	kf := t.KindFlag()
	for i := range t.Vlen() {
		m := t.Member(i)
		a := p.alignOf(m.Type)
		if a != 0 && btf.MemberBitfieldSize(kf, m.Offset) == 0 && m.Offset%uint32(8*a) != 0 {
			return true
		}
		maxAlign = max(maxAlign, a)
	}
	return t.Size()%uint32(maxAlign) != 0
}

// maxResolveDepth is how many links resolveSize follows before giving up.
const maxResolveDepth = 32

// resolveSize returns a type's size in bytes as libbpf resolves it (through
// typedefs, modifiers and arrays, at most 32 links deep), or -1 when it has
// none or the product overflows 32 bits.
func (p *printer) resolveSize(id btf.TypeID) int64 {
	nelems := uint64(1)
	size := int64(-1)
	t := p.typ(id)
loop:
	for i := 0; i < maxResolveDepth && t != nil && t.Kind() != btf.KindFwd; i++ {
		switch t.Kind() {
		case btf.KindInt, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64,
			btf.KindDatasec, btf.KindFloat:
			size = int64(t.Size())
			break loop
		case btf.KindPtr:
			size = int64(p.ptrSz)
			break loop
		case btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict,
			btf.KindVar, btf.KindDeclTag, btf.KindTypeTag:
			id = t.Ref()
		case btf.KindArray:
			elem, _, n := t.Array()
			if nelems != 0 && uint64(n) > math.MaxUint32/nelems {
				return -1
			}
			nelems *= uint64(n)
			id = elem
		default:
			return -1
		}
		t = p.typ(id)
	}
	if size < 0 {
		return -1
	}
	if nelems != 0 && uint64(size) > math.MaxUint32/nelems {
		return -1
	}
	return int64(nelems) * size
}
