package btf

import "math"

// Sizes and alignments of types, as libbpf works them out (btf.c:
// determine_ptr_size, btf__resolve_size, btf__align_of and
// btf_is_struct_packed, skip_mods_and_typedefs). pahole's rules differ: its
// natural alignment of a scalar is its whole size, not capped at a pointer's,
// and a struct's is its largest member's whether or not the members sit
// where that alignment puts them; callers that follow pahole (the function
// encoder's packed-struct check, the layout view) keep their own rules.

// PointerSize returns the target's pointer size as libbpf guesses it: the
// size of the first 4- or 8-byte INT named like a C long, or 8 when there is
// none. A split Spec's base types are looked at first.
func (s *Spec) PointerSize() uint32 {
	for id := TypeID(1); id <= s.TypeCount(); id++ {
		t := s.Type(id)
		if t.Kind() != KindInt || t.Size() != 4 && t.Size() != 8 {
			continue
		}
		switch s.Name(t) {
		case "long", "long int", "int long", "unsigned long", "long unsigned",
			"unsigned long int", "unsigned int long", "long unsigned int",
			"long int unsigned", "int unsigned long", "int long unsigned":
			return t.Size()
		}
	}
	return 8
}

// MaxResolveDepth is how many links ResolveSize follows before giving up,
// libbpf's MAX_RESOLVE_DEPTH.
const MaxResolveDepth = 32

// ResolveSize returns the size in bytes of a value of type id, pointers
// being ptrSize bytes, as libbpf's btf__resolve_size resolves it: through
// typedefs, qualifiers, type tags, VARs and DECL_TAGs, arrays multiplied
// out, at most MaxResolveDepth links deep. It returns -1 for a type without
// a size (void, FWD, FUNC, FUNC_PROTO), a longer chain, and a size that
// does not fit 32 bits.
func (s *Spec) ResolveSize(id TypeID, ptrSize uint32) int64 {
	nelems := uint64(1)
	size := int64(-1)
	t := s.Type(id)
loop:
	for i := 0; i < MaxResolveDepth && t != nil && t.Kind() != KindFwd; i++ {
		switch t.Kind() {
		case KindInt, KindStruct, KindUnion, KindEnum, KindEnum64, KindDatasec, KindFloat:
			size = int64(t.Size())
			break loop
		case KindPtr:
			size = int64(ptrSize)
			break loop
		case KindTypedef, KindVolatile, KindConst, KindRestrict, KindVar, KindDeclTag, KindTypeTag:
			id = t.Ref()
		case KindArray:
			elem, _, n := t.Array()
			if nelems != 0 && uint64(n) > math.MaxUint32/nelems {
				return -1
			}
			nelems *= uint64(n)
			id = elem
		default:
			return -1
		}
		t = s.Type(id)
	}
	if size < 0 {
		return -1
	}
	if nelems != 0 && uint64(size) > math.MaxUint32/nelems {
		return -1
	}
	return int64(nelems) * size
}

// maxSkip bounds the links SkipQualifiers follows, so that a loop of
// typedefs (which validation rejects, but a Spec may hold) ends.
const maxSkip = 64

// SkipQualifiers follows typedefs, const, volatile, restrict and type tags
// from id, as libbpf's skip_mods_and_typedefs does, and returns the first
// other type and its ID: (0, nil) for void, for an ID no type has, and
// after maxSkip links.
func (s *Spec) SkipQualifiers(id TypeID) (TypeID, Type) {
	for range maxSkip {
		t := s.Type(id)
		switch t.Kind() {
		case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag:
			id = t.Ref()
		case KindUnknown:
			return 0, nil
		default:
			return id, t
		}
	}
	return 0, nil
}

// Alignments answers libbpf's btf__align_of for the types of a Spec, with
// pointers ptrSize bytes, remembering each answer.
type Alignments struct {
	s       *Spec
	ptrSize int
	memo    []int32 // alignment+1 by ID, 0 while unknown
}

// NewAlignments returns the alignments of s's types for a pointer size.
func NewAlignments(s *Spec, ptrSize int) *Alignments {
	return &Alignments{s: s, ptrSize: ptrSize, memo: make([]int32, s.TypeCount()+1)}
}

// Of returns the alignment libbpf infers for type id: a scalar's size (at
// most a pointer's), a pointer's size, an array's element's, and a struct's
// or union's largest member's, or 1 when a member sits off its alignment
// or the size is not a multiple of it (the type must be packed). Kinds with
// no alignment (void, functions) give 0. A struct met again while its
// alignment is worked out (a by-value cycle) counts as 1, and so does a
// chain of typedefs, qualifiers and arrays longer than there are types.
func (a *Alignments) Of(id TypeID) int { return a.chain(id, 0) }

func (a *Alignments) chain(id TypeID, depth int) int {
	if int(id) >= len(a.memo) {
		return 0
	}
	if m := a.memo[id]; m != 0 {
		return int(m - 1)
	}
	if depth >= len(a.memo) { // more links than types
		return 1
	}
	t := a.s.Type(id)
	var al int
	switch t.Kind() {
	case KindInt, KindEnum, KindEnum64, KindFloat:
		al = min(a.ptrSize, int(t.Size()))
	case KindPtr:
		al = a.ptrSize
	case KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		al = a.chain(t.Ref(), depth+1)
	case KindArray:
		elem, _, _ := t.Array()
		al = a.chain(elem, depth+1)
	case KindStruct, KindUnion:
		a.memo[id] = 2 // in progress: 1
		al = a.composite(t)
	}
	a.memo[id] = int32(al) + 1
	return al
}

func (a *Alignments) composite(t Type) int {
	maxAlign := 1
	kf := t.KindFlag()
	for i := range t.Vlen() {
		m := t.Member(i)
		al := a.Of(m.Type)
		if al <= 0 {
			return al
		}
		maxAlign = max(maxAlign, al)
		if MemberBitfieldSize(kf, m.Offset) == 0 && m.Offset%uint32(8*al) != 0 {
			return 1
		}
	}
	if t.Size()%uint32(maxAlign) != 0 {
		return 1
	}
	return maxAlign
}

// Packed reports whether struct t needs __attribute__((packed)), as
// libbpf's btf_is_struct_packed decides: a member that is no bitfield sits
// off its type's alignment, or the size is not a multiple of the largest
// member alignment.
func (a *Alignments) Packed(t Type) bool {
	maxAlign := 1
	kf := t.KindFlag()
	for i := range t.Vlen() {
		m := t.Member(i)
		al := a.Of(m.Type)
		if al != 0 && MemberBitfieldSize(kf, m.Offset) == 0 && m.Offset%uint32(8*al) != 0 {
			return true
		}
		maxAlign = max(maxAlign, al)
	}
	return t.Size()%uint32(maxAlign) != 0
}
