package core

import (
	"fmt"
	"math/bits"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
)

// Marks is a set of types of one target, and of members of its structs
// and unions, that relocations need: what Build copies. Marking follows
// bpftool's gen min_core_btf (btfgen_record_reloc and the functions it
// calls), kind for kind, so that Build's output is bpftool's byte for
// byte; where bpftool gives up ("unsupported kind") the rules are extended
// (type tags are followed as modifiers, FWDs kept as they are, any other
// kind kept with what it refers to).
//
// Invariants: a marked struct or union is copied with only its marked
// members; a member is marked only in a marked type. done[mode] records the
// types whose marking in that mode has been carried out, so marking the
// same type again does nothing and cycles end.
type Marks struct {
	Target  *Target
	types   []uint64                // bit id: type id is marked (IDs 0..TypeCount of the spec)
	members map[btf.TypeID][]uint64 // bit i: member i is marked
	done    [4]map[btf.TypeID]bool  // by markMode
	changes int                     // marks set so far
}

// markMode is one way of following a type's references.
type markMode uint8

const (
	markNoPtrs     markMode = iota // bpftool's btfgen_mark_type(.., false)
	markPtrs                       // btfgen_mark_type(.., true): through pointers too
	matchFull                      // btfgen_mark_type_match(.., false): members too
	matchBehindPtr                 // btfgen_mark_type_match(.., true): composites alone
)

// NewMarks returns an empty set of marks on target's types.
func NewMarks(target *Target) *Marks {
	n := int(target.Types.Spec.TypeCount()) + 1
	m := &Marks{Target: target, types: make([]uint64, (n+63)/64), members: map[btf.TypeID][]uint64{}}
	for i := range m.done {
		m.done[i] = map[btf.TypeID]bool{}
	}
	return m
}

// Has reports whether type id is marked.
func (m *Marks) Has(id btf.TypeID) bool {
	return int(id/64) < len(m.types) && m.types[id/64]&(1<<(id%64)) != 0
}

// HasMember reports whether member i of struct or union id is marked.
func (m *Marks) HasMember(id btf.TypeID, i int) bool {
	b := m.members[id]
	return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0
}

// Len returns the number of marked types.
func (m *Marks) Len() int {
	n := 0
	for _, w := range m.types {
		n += bits.OnesCount64(w)
	}
	return n
}

// Types calls fn for each marked type in ID order.
func (m *Marks) Types(fn func(id btf.TypeID)) {
	for i, w := range m.types {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			fn(btf.TypeID(i*64 + b))
			w &^= 1 << b
		}
	}
}

// Merge adds the marks of o (on the same target) to m.
func (m *Marks) Merge(o *Marks) { m.mergeBelow(o, btf.TypeID(64*len(o.types))) }

// mergeBelow adds to m the marks of o on the types below limit. o may be on
// a module split on m's target: its marks on base types are m's types.
func (m *Marks) mergeBelow(o *Marks, limit btf.TypeID) {
	limit = min(limit, btf.TypeID(64*len(m.types)))
	for i, w := range o.types {
		if btf.TypeID(64*i) >= limit {
			break
		}
		if rest := limit - btf.TypeID(64*i); rest < 64 {
			w &= 1<<rest - 1
		}
		m.changes += bits.OnesCount64(w &^ m.types[i])
		m.types[i] |= w
	}
	for id, b := range o.members {
		if id >= limit {
			continue
		}
		mb := m.members[id]
		if len(mb) < len(b) {
			mb = append(mb, make([]uint64, len(b)-len(mb))...)
		}
		for i, w := range b {
			m.changes += bits.OnesCount64(w &^ mb[i])
			mb[i] |= w
		}
		m.members[id] = mb
	}
	for i := range m.done {
		for id := range o.done[i] {
			if id < limit {
				m.done[i][id] = true
			}
		}
	}
}

func (m *Marks) set(id btf.TypeID) {
	if !m.Has(id) {
		m.types[id/64] |= 1 << (id % 64)
		m.changes++
	}
}

func (m *Marks) setMember(id btf.TypeID, i int) {
	if m.HasMember(id, i) {
		return
	}
	b := m.members[id]
	for len(b) <= i/64 {
		b = append(b, 0)
	}
	b[i/64] |= 1 << (i % 64)
	m.members[id] = b
	m.changes++
}

// Changes returns how many marks (types and members) have been set: a
// count that grows whenever the set does.
func (m *Marks) Changes() int { return m.changes }

// Add marks what the target spec of a relocation needs, as bpftool's
// btfgen_record_reloc does: for field kinds the root and each member on
// the access path with its type; for TYPE_EXISTS, TYPE_SIZE and
// TYPE_ID_TARGET the root through pointers, structs and unions without
// members; for TYPE_MATCHES the root with all members, recursively, except
// behind pointers; for enumerator kinds the enum whole.
func (m *Marks) Add(spec *Spec) error {
	switch k := spec.Kind; {
	case k.IsField():
		_, err := m.addField(spec)
		return err
	case k == btfext.TypeIDLocal:
		return nil
	case k == btfext.TypeMatches:
		m.markMatch(spec.Root, false)
	case k.IsType():
		m.markType(spec.Root, true)
	case k.IsEnumval():
		m.markType(spec.Root, false)
	default:
		return fmt.Errorf("unknown relocation kind %d", uint32(k))
	}
	return nil
}

// markType is bpftool's btfgen_mark_type: it marks id and, through
// typedefs, modifiers, arrays and function prototypes (and pointers when
// ptrs is set), what it refers to; structs and unions are marked without
// members.
func (m *Marks) markType(id btf.TypeID, ptrs bool) {
	mode := markNoPtrs
	if ptrs {
		mode = markPtrs
	}
	t, ok := m.Target.Types.typ(id)
	if id == 0 || !ok || m.done[mode][id] {
		return
	}
	m.done[mode][id] = true
	m.set(id)
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat, btf.KindEnum, btf.KindEnum64, btf.KindStruct, btf.KindUnion, btf.KindFwd:
	case btf.KindPtr:
		if ptrs {
			m.markType(t.Ref(), ptrs)
		}
	default: // typedefs, modifiers, type tags, arrays, prototypes, and the kinds nothing refers to
		t.ForEachTypeRef(func(ref *uint32) { m.markType(*ref, ptrs) })
	}
}

// markMatch is bpftool's btfgen_mark_type_match: it marks id and what a
// TYPE_MATCHES comparison reads of it: every member of a struct or union
// (and their types) unless reached through a pointer, the targets of
// typedefs, modifiers, type tags, pointers and arrays, and the parameter
// and return types of prototypes.
func (m *Marks) markMatch(id btf.TypeID, behindPtr bool) {
	mode := matchFull
	if behindPtr {
		mode = matchBehindPtr
	}
	t, ok := m.Target.Types.typ(id)
	if id == 0 || !ok || m.done[mode][id] {
		return
	}
	m.done[mode][id] = true
	m.set(id)
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat, btf.KindEnum, btf.KindEnum64, btf.KindFwd:
	case btf.KindStruct, btf.KindUnion:
		if behindPtr {
			return
		}
		for i := range t.Vlen() {
			m.setMember(id, i)
			m.markMatch(t.Member(i).Type, false)
		}
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef, btf.KindTypeTag:
		m.markMatch(t.Ref(), behindPtr)
	case btf.KindPtr:
		m.markMatch(t.Ref(), true)
	default: // arrays, prototypes, and the kinds nothing refers to
		t.ForEachTypeRef(func(ref *uint32) { m.markMatch(*ref, false) })
	}
}

// addField is bpftool's btfgen_record_field_relo: the root, then along the
// raw spec each member with its type (structs and unions reached so are
// marked with that member only) and each array's element type. It returns
// the type the path ends at.
func (m *Marks) addField(spec *Spec) (btf.TypeID, error) {
	ts := &m.Target.Types
	id := spec.Root
	m.markType(id, false)
	t, ok := ts.typ(id)
	for i := 1; i < len(spec.Raw); i++ {
		for n := 0; ok && len(t) != 0 && (isMod(t.Kind()) || t.Kind() == btf.KindTypedef); n++ {
			if n == maxModChain {
				ok = false
				break
			}
			id = t.Ref()
			t, ok = ts.typ(id)
		}
		if !ok {
			return id, fmt.Errorf("access %s: type [%d] is not in %s", spec.RawString(), id, m.Target.Name)
		}
		switch t.Kind() {
		case btf.KindStruct, btf.KindUnion:
			idx := int(spec.Raw[i])
			if idx >= t.Vlen() {
				return id, fmt.Errorf("access %s: [%d] has no member %d", spec.RawString(), id, idx)
			}
			m.setMember(id, idx)
			id = t.Member(idx).Type
			t, ok = ts.typ(id)
			m.markType(id, false)
		case btf.KindArray:
			id, _, _ = t.Array()
			t, ok = ts.typ(id)
		default:
			return id, fmt.Errorf("access %s: step %d reaches [%d] of kind %s", spec.RawString(), i, id, t.Kind())
		}
	}
	return id, nil
}

// addPartial marks the path of a candidate's spec on which matching
// failed: the path as far as it got, and, where it ends in a struct or
// union, its first member, the one whose step overflowed libbpf's spec
// when the nesting was too deep. Paths that cannot be followed are marked
// as far as they can.
func (m *Marks) addPartial(spec *Spec) {
	id, err := m.addField(spec)
	if err != nil {
		return
	}
	t, id, ok := m.Target.Types.skipModsAndTypedefs(id)
	if ok && isComposite(t.Kind()) && t.Vlen() > 0 {
		m.setMember(id, 0)
		m.markType(t.Member(0).Type, false)
	}
}
