package core

import (
	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
)

// The matching rules below are libbpf's (relo_core.c), decision for
// decision: a candidate matches when they say so, and a failure (an
// invalid type, nesting too deep) fails the relocation as it fails there.
// Each returns (true, nil) for a match, (false, nil) for none, or an error.

// compatLevels is the recursion budget of libbpf's type comparisons.
const compatLevels = 32

// typesAreCompat is libbpf's bpf_core_types_are_compat, the test of
// TYPE_EXISTS, TYPE_SIZE and TYPE_ID_TARGET candidates: same kinds after
// modifiers and typedefs; structs, unions, enums and FWDs by kind alone;
// INTs unless bitfield-like; pointers and arrays by their targets; function
// prototypes by their parameters and return type.
func typesAreCompat(lt *Types, lid btf.TypeID, tt *Types, tid btf.TypeID, level int) (bool, error) {
	l, ok1 := lt.typ(lid)
	t, ok2 := tt.typ(tid)
	if !ok1 || !ok2 {
		return false, errInvalid
	}
	if !kindsCompatible(l.Kind(), t.Kind()) {
		return false, nil
	}
	for depth := 32; ; {
		depth--
		if depth < 0 {
			return false, errInvalid
		}
		var ok bool
		if l, lid, ok = lt.skipModsAndTypedefs(lid); !ok {
			return false, errInvalid
		}
		if t, tid, ok = tt.skipModsAndTypedefs(tid); !ok {
			return false, errInvalid
		}
		if !kindsCompatible(l.Kind(), t.Kind()) {
			return false, nil
		}
		switch l.Kind() {
		case btf.KindUnknown, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindFwd, btf.KindEnum64:
			return true, nil
		case btf.KindInt:
			return intOffset(l) == 0 && intOffset(t) == 0, nil
		case btf.KindPtr:
			lid, tid = l.Ref(), t.Ref()
		case btf.KindArray:
			lid, _, _ = l.Array()
			tid, _, _ = t.Array()
		case btf.KindFuncProto:
			if l.Vlen() != t.Vlen() {
				return false, nil
			}
			for i := range l.Vlen() {
				if level <= 0 {
					return false, errInvalid
				}
				_, lp := l.Param(i)
				_, tp := t.Param(i)
				_, lp, _ = lt.skipModsAndTypedefs(lp)
				_, tp, _ = tt.skipModsAndTypedefs(tp)
				if ok, err := typesAreCompat(lt, lp, tt, tp, level-1); !ok || err != nil {
					return ok, err
				}
			}
			_, lid, _ = lt.skipModsAndTypedefs(l.Ref())
			_, tid, _ = tt.skipModsAndTypedefs(t.Ref())
		default:
			return false, nil // libbpf: "unexpected kind relocated"
		}
	}
}

// fieldsAreCompat is libbpf's bpf_core_fields_are_compat, the test of the
// type of a member found by name: any two structs or unions; same kinds
// otherwise, with pointers and floats always compatible, FWDs and enums by
// essential name unless one is anonymous, INTs unless bitfield-like, arrays
// by their element types; nothing else.
func fieldsAreCompat(lt *Types, lid btf.TypeID, tt *Types, tid btf.TypeID) (bool, error) {
	for {
		l, _, ok1 := lt.skipModsAndTypedefs(lid)
		t, _, ok2 := tt.skipModsAndTypedefs(tid)
		if !ok1 || !ok2 {
			return false, errInvalid
		}
		if isComposite(l.Kind()) && isComposite(t.Kind()) {
			return true, nil
		}
		if !kindsCompatible(l.Kind(), t.Kind()) {
			return false, nil
		}
		switch l.Kind() {
		case btf.KindPtr, btf.KindFloat:
			return true, nil
		case btf.KindFwd, btf.KindEnum, btf.KindEnum64:
			ln, tn := lt.nameOf(l), tt.nameOf(t)
			a, b := EssentialNameLen(ln), EssentialNameLen(tn)
			return a == 0 || b == 0 || a == b && ln[:a] == tn[:b], nil
		case btf.KindInt:
			return intOffset(l) == 0 && intOffset(t) == 0, nil
		case btf.KindArray:
			lid, _, _ = l.Array()
			tid, _, _ = t.Array()
		default:
			return false, nil
		}
	}
}

// matchMember is libbpf's bpf_core_match_member: it looks for the member
// named by local accessor acc in the struct or union tid of the target,
// depth first through anonymous members, extending spec (raw steps, bit
// offset, and on success the named accessor) along the way. On success it
// returns the member's type.
//
// As in libbpf, a member found by name whose type is not compatible ends
// the search of its struct without undoing its raw step and bit offset;
// when that struct is an anonymous member, the search goes on in the
// enclosing one with them left in place. Candidates matched past such a
// member carry the extra step and offset in libbpf, and so here.
func matchMember(lt *Types, acc Accessor, tt *Types, tid btf.TypeID, spec *Spec) (btf.TypeID, bool, error) {
	t, tid, ok := tt.skipModsAndTypedefs(tid)
	if !ok {
		return 0, false, errInvalid
	}
	if !isComposite(t.Kind()) {
		return 0, false, nil
	}
	lt0, _ := lt.typ(acc.TypeID)
	lm := lt0.Member(int(acc.Idx))
	lname := lt.Spec.Strings().String(lm.NameOff)
	for i := range t.Vlen() {
		if len(spec.Raw) == maxSpecLen {
			return 0, false, errTooDeep
		}
		bitOff := memberBitOffset(t, i)
		spec.BitOffset += bitOff
		spec.Raw = append(spec.Raw, uint32(i))
		m := t.Member(i)
		tname, _ := tt.name(m.NameOff)
		if tname == "" {
			next, found, err := matchMember(lt, acc, tt, m.Type, spec)
			if found || err != nil {
				return next, found, err
			}
		} else if tname == lname {
			spec.Access = append(spec.Access, Accessor{TypeID: tid, Idx: uint32(i), Name: tname, Named: true})
			found, err := fieldsAreCompat(lt, lm.Type, tt, m.Type)
			if !found {
				spec.Access = spec.Access[:len(spec.Access)-1]
			}
			return m.Type, found, err
		}
		spec.BitOffset -= bitOff
		spec.Raw = spec.Raw[:len(spec.Raw)-1]
	}
	return 0, false, nil
}

// matchSpec is libbpf's bpf_core_spec_match: it tries local spec ls on
// candidate tid of tt and returns the candidate's spec on a match.
// Type-based kinds compare the types (TYPE_MATCHES by typesMatch, the
// others by typesAreCompat); enumerator kinds look for the enumerator by
// essential name; field kinds follow the local accessors through the
// candidate, members by name and array elements by index within bounds.
// The spec is returned, complete as far as it got, also on failure.
func matchSpec(ls *Spec, tt *Types, tid btf.TypeID) (*Spec, bool, error) {
	ts := &Spec{Types: tt, Root: tid, Kind: ls.Kind}
	lt := ls.Types
	if ls.Kind.IsType() {
		var ok bool
		var err error
		if ls.Kind == btfext.TypeMatches {
			ok, err = typesMatch(lt, ls.Root, tt, tid, false, compatLevels)
		} else {
			ok, err = typesAreCompat(lt, ls.Root, tt, tid, compatLevels)
		}
		return ts, ok, err
	}
	if ls.Kind.IsEnumval() {
		t, tid, ok := tt.skipModsAndTypedefs(tid)
		if !ok || !isAnyEnum(t.Kind()) {
			return ts, false, nil // libbpf: not an enum (an invalid type included)
		}
		local := ls.Access[0].Name
		want := local[:EssentialNameLen(local)]
		for i := range t.Vlen() {
			name, _ := tt.name(enumNameOff(t, i))
			if essentialName(name) == want {
				ts.Access = []Accessor{{TypeID: tid, Idx: uint32(i), Name: name, Named: true}}
				ts.Raw = []uint32{uint32(i)}
				return ts, true, nil
			}
		}
		return ts, false, nil
	}
	if !ls.Kind.IsField() {
		return ts, false, errInvalid
	}
	ts.Access = make([]Accessor, 0, len(ls.Access))
	ts.Raw = make([]uint32, 0, len(ls.Raw)+4)
	for i, la := range ls.Access {
		t, id, ok := tt.skipModsAndTypedefs(tid)
		if !ok {
			return ts, false, errInvalid
		}
		tid = id
		if la.Named {
			next, found, err := matchMember(lt, la, tt, tid, ts)
			if !found || err != nil {
				return ts, false, err
			}
			tid = next
			continue
		}
		// An array element: on the root the root is the element type, as
		// the access "n" indexes the pointer; deeper, it must be an array.
		if i > 0 {
			if t.Kind() != btf.KindArray {
				return ts, false, nil
			}
			elem, _, nelems := t.Array()
			if !isFlexArray(tt, ts.Access[len(ts.Access)-1], nelems) && la.Idx >= nelems {
				return ts, false, nil
			}
			if _, tid, ok = tt.skipModsAndTypedefs(elem); !ok {
				return ts, false, errInvalid
			}
		}
		if len(ts.Raw) == maxSpecLen {
			return ts, false, errTooDeep
		}
		ts.Access = append(ts.Access, Accessor{TypeID: tid, Idx: la.Idx})
		ts.Raw = append(ts.Raw, la.Idx)
		sz, err := tt.resolveSize(tid)
		if err != nil {
			return ts, false, err
		}
		ts.BitOffset += uint32(uint64(la.Idx) * uint64(sz) * 8)
	}
	return ts, true, nil
}
