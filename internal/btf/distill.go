package btf

import "fmt"

// DistillBase splits a split Spec's dependence on its base into a small
// "distilled" base and a new split Spec on it, with the semantics of libbpf's
// btf__distill_base (pahole's distilled_base feature, which writes the result
// to an out-of-tree module's .BTF.base and .BTF sections). When the module is
// loaded, the kernel relocates the split types from the distilled base onto
// the running kernel's own BTF (see [Relocate]), so the module's BTF keeps
// working on a kernel whose vmlinux BTF differs from the one it was built on.
//
// Which base types are kept, and where:
//
//   - The needed base types are those the split types refer to, directly or
//     through other needed base types, except that nothing is followed out of
//     a named STRUCT or UNION (its members are not kept). A split type may only
//     refer to base INT, FLOAT, FWD, ARRAY, STRUCT, UNION, TYPEDEF, ENUM,
//     ENUM64, PTR, CONST, RESTRICT, VOLATILE, FUNC_PROTO and TYPE_TAG types;
//     any other kind (FUNC, VAR, DATASEC, DECL_TAG) is an error.
//   - The distilled base holds, in base ID order: every needed INT, FLOAT and
//     FWD as it is; every needed named STRUCT or UNION as one of the same kind,
//     name and size with no members (vlen 0, kind_flag 0); every needed named
//     ENUM or ENUM64 as an ENUM of the same name and size with no values
//     (ENUM64 becomes ENUM, kind_flag 0). These are what relocation matches
//     by name (and size) against the real base.
//   - Every other needed type (anonymous STRUCT, UNION, ENUM, ENUM64 and all
//     ARRAY, TYPEDEF, PTR, modifiers, FUNC_PROTO, TYPE_TAG) is copied whole
//     into the new split, after all the original split types, in base ID
//     order.
//
// IDs: the new split starts right after the distilled base. Original split
// types keep their order, so their IDs move down by the number of base types
// dropped; references to base types go to their distilled or copied versions.
//
// Strings: the distilled base's string table holds "" and the kept names,
// added in type order; the new split's table holds every other string of its
// types, added in type order and field order (name first, then member, value
// or parameter names), each stored once, and strings already in the
// distilled base are referred to there. This is the order in which libbpf
// adds them, so the results are libbpf's byte for byte.
//
// The distilled base keeps s's byte order and header length, and so does the
// new split. s and its base are not modified.
func DistillBase(s *Spec) (base, split *Spec, err error) {
	old := s.base
	if old == nil {
		return nil, nil, fmt.Errorf("btf: distilling a base needs split BTF")
	}
	nBase := old.TypeCount() // old base IDs are 1..nBase
	firstSplit := nBase + 1

	// idMap[id] for an old base ID: 0 while not needed, then (once the new
	// Specs are built) the ID of its distilled or copied version.
	idMap := make([]TypeID, nBase+1)
	const needed = ^TypeID(0)
	var stack []TypeID
	var badRef error
	mark := func(from TypeID) func(*uint32) {
		return func(w *uint32) {
			id := *w
			if id == 0 || id >= firstSplit || idMap[id] != 0 || badRef != nil {
				return
			}
			t := old.Type(id)
			switch t.Kind() {
			case KindInt, KindFloat, KindFwd, KindArray, KindStruct, KindUnion,
				KindTypedef, KindEnum, KindEnum64, KindPtr, KindConst,
				KindRestrict, KindVolatile, KindFuncProto, KindTypeTag:
			default:
				badRef = fmt.Errorf("btf: type [%d] refers to base type [%d] of kind %s, which a distilled base cannot hold", from, id, t.Kind())
				return
			}
			idMap[id] = needed
			// A named struct or union keeps no members in the distilled
			// base, so what its members refer to is not needed.
			if (t.Kind() == KindStruct || t.Kind() == KindUnion) && t.NameOff() != 0 {
				return
			}
			stack = append(stack, id)
		}
	}
	for i := range s.offs {
		s.typeAt(i).ForEachTypeRef(mark(s.firstID + TypeID(i)))
		for len(stack) > 0 && badRef == nil {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			old.Type(id).ForEachTypeRef(mark(id))
		}
		if badRef != nil {
			return nil, nil, badRef
		}
	}

	// The distilled base: named and basic types, memberless.
	base = NewSpec(nil)
	base.order, base.hdrLen = s.order, s.hdrLen
	for id := TypeID(1); id <= nBase; id++ {
		if idMap[id] == 0 {
			continue
		}
		t := old.Type(id)
		name := old.Name(t)
		switch k := t.Kind(); k {
		case KindInt, KindFloat, KindFwd:
			idMap[id] = base.appendCopy(old, t)
		case KindStruct, KindUnion:
			if t.NameOff() != 0 {
				idMap[id] = base.MustAppend(base.AddString(name), Info(k, false, 0), t.Size())
			}
		case KindEnum, KindEnum64:
			if t.NameOff() != 0 {
				idMap[id] = base.MustAppend(base.AddString(name), Info(KindEnum, false, 0), t.Size())
			}
		}
	}

	// The new split: the original split types, then the needed base types
	// that did not go into the distilled base.
	split = NewSpec(base)
	split.order, split.hdrLen = s.order, s.hdrLen
	split.Reserve(len(s.offs), len(s.words))
	for i := range s.offs {
		split.appendCopy(s, s.typeAt(i))
	}
	for id := TypeID(1); id <= nBase; id++ {
		if idMap[id] != needed {
			continue // not needed, or in the distilled base
		}
		idMap[id] = split.appendCopy(old, old.Type(id))
	}

	// References: base IDs through idMap, split IDs moved down.
	shift := nBase - base.TypeCount()
	for i := range split.offs {
		t := split.typeAt(i)
		t.ForEachTypeRef(func(w *uint32) {
			switch id := *w; {
			case id == 0:
			case id >= firstSplit:
				*w = id - shift
			default:
				*w = idMap[id]
			}
		})
	}
	return base, split, nil
}

// appendCopy appends t, a type of src, to s with its string references
// re-interned into s's string table (type references are left as they are)
// and returns its new ID.
func (s *Spec) appendCopy(src *Spec, t Type) TypeID {
	id := s.appendUnchecked(t)
	s.typeAt(len(s.offs) - 1).ForEachStrRef(func(w *uint32) {
		if *w != 0 {
			*w = s.strs.Add(src.strs.String(*w))
		}
	})
	return id
}
