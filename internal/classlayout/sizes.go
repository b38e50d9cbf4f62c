package classlayout

import "unsafe"

// maxDepth bounds the chains of references followed, so that corrupt input
// with reference cycles cannot hang or overflow the stack.
const maxDepth = 64

// stripTypedefsAndModifiers follows typedefs and const/volatile/restrict/
// _Atomic from the type id names; nil for void.
func (m *Model) stripTypedefsAndModifiers(id uint32) *Type {
	t := m.Type(id)
	for d := 0; t != nil && (t.Kind == KindTypedef || t.isModifier()); d++ {
		if d > maxDepth {
			return nil
		}
		t = m.Type(t.Ref)
	}
	return t
}

// tagSize is pahole's tag__size: the size in bytes of a value of type t.
func (m *Model) tagSize(t *Type, depth int) uint32 {
	if t == nil || depth > maxDepth {
		return 0
	}
	switch t.Kind {
	case KindPointer:
		return m.AddrSize
	case KindBase, KindEnum:
		return t.Size
	case KindFuncProto:
		return m.AddrSize
	case KindStruct, KindUnion:
		if t.Size == 1 && t.N == 0 {
			return 0
		}
		return t.Size
	case KindVoid, KindFunc:
		return 0
	}
	size := m.tagSize(m.Type(t.Ref), depth+1)
	if t.Kind == KindArray {
		for _, d := range m.Dims[t.First : t.First+t.N] {
			size *= d
		}
	}
	return size
}

// naturalAlignment is pahole's tag__natural_alignment: the alignment a type
// has without attributes, at least 1.
func (m *Model) naturalAlignment(t *Type, depth int) uint32 {
	var a uint32 = 1
	if t == nil || depth > maxDepth {
		return 1
	}
	switch t.Kind {
	case KindPointer:
		a = m.AddrSize
	case KindBase, KindEnum:
		a = t.Size
	case KindStruct, KindUnion:
		id := m.idOf(t)
		if m.natAlign == nil {
			m.natAlign = make([]uint32, len(m.Types))
		}
		if c := m.natAlign[id]; c != 0 {
			return c
		}
		a = 0
		defer func() {
			if a != 0 {
				m.natAlign[id] = a
			}
		}()
		for _, mb := range m.MembersOf(t) {
			mt := m.stripTypedefsAndModifiers(mb.Type)
			if mt == nil {
				continue
			}
			a = max(a, m.naturalAlignment(mt, depth+1))
		}
	case KindArray:
		if e := m.stripTypedefsAndModifiers(t.Ref); e != nil {
			a = m.naturalAlignment(e, depth+1)
		}
	}
	if a == 0 {
		return 1
	}
	return a
}

// idOf returns the ID of a type of the model.
func (m *Model) idOf(t *Type) uint32 {
	return uint32((uintptr(unsafe.Pointer(t)) - uintptr(unsafe.Pointer(&m.Types[0]))) / unsafe.Sizeof(Type{}))
}
