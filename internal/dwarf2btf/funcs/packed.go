package funcs

import "github.com/gobtf/gobtf/internal/btf"

// structPacked approximates pahole's class__infer_packed_attributes on a
// unit's BTF struct: a struct with holes or tail padding is not packed;
// otherwise it is packed when a member sits at an offset that is not a
// multiple of its type's natural alignment, or when the size is not a
// multiple of the largest member alignment. (pahole's side effect of marking
// structs embedded at unnatural offsets as packed, which depends on the
// order of its queries, is not reproduced; nor is DW_AT_alignment, which
// pahole ignores when encoding BTF.)
func structPacked(u *unit, t btf.Type) bool {
	kflag := t.KindFlag()
	n := t.Vlen()
	var endBits uint64
	maxAlign := uint64(1)
	unaligned := false
	for i := 0; i < n; i++ {
		m := t.Member(i)
		off := uint64(btf.MemberBitOffset(kflag, m.Offset))
		bits := uint64(btf.MemberBitfieldSize(kflag, m.Offset))
		size := uint64(max(0, u.spec.ResolveSize(m.Type, uint32(u.addrSize()))))
		if bits == 0 {
			bits = size * 8
		}
		if i > 0 && off > endBits && (off+7)/8 > (endBits+7)/8 {
			return false // a hole
		}
		endBits = max(endBits, off+bits)
		align := naturalAlign(u, m.Type, 0)
		if align == 1 {
			continue
		}
		maxAlign = max(maxAlign, align)
		if (off/8)%align != 0 {
			unaligned = true
		}
	}
	if uint64(t.Size()) > (endBits+7)/8 {
		return false // tail padding
	}
	return unaligned || uint64(t.Size())%maxAlign != 0
}

// naturalAlign is pahole's tag__natural_alignment: a scalar's size, a
// pointer's address size, the largest member alignment of a struct or
// union, an array's element alignment; at least 1. It is not libbpf's
// btf.Alignments: pahole does not cap a scalar's alignment at a pointer's
// size, nor count a struct whose members sit off their alignment as
// aligned to 1.
func naturalAlign(u *unit, id btf.TypeID, depth int) uint64 {
	if depth > 32 {
		return 1
	}
	for hops := 0; id != 0 && hops < 64; hops++ {
		t := u.spec.Type(id)
		if t == nil {
			return 1
		}
		switch t.Kind() {
		case btf.KindPtr:
			return uint64(u.addrSize())
		case btf.KindInt, btf.KindFloat, btf.KindEnum, btf.KindEnum64:
			return max(uint64(t.Size()), 1)
		case btf.KindStruct, btf.KindUnion:
			a := uint64(1)
			for i := 0; i < t.Vlen(); i++ {
				a = max(a, naturalAlign(u, t.Member(i).Type, depth+1))
			}
			return a
		case btf.KindArray:
			id, _, _ = t.Array()
		case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			id = t.Ref()
		default:
			return 1
		}
	}
	return 1
}
