package classlayout

// -w (--word_size) is pahole's cu_fixup_word_size_iterator: before the
// types are printed (without -C only), the unit's address size becomes
// the given word size, "long int" and "long unsigned int" (by those
// names: clang's "long" keeps its size) take that size, and each struct
// and union is resized as if its pointers and longs had it, in type ID
// order. Structs move the members after a changed one, have their holes
// found on the new offsets, then pahole's class__fixup_alignment nudges
// each member to its size's alignment and pads the end to the biggest
// base type's. The holes and padding it leaves are printed as they are,
// never measured again; the member sizes printed stay as the source
// recorded them. Integer widths are pahole's, wrapping where it wraps.

// wordSizer resizes a model's structs and unions once each.
type wordSizer struct {
	p        *Printer
	from, to uint32 // the unit's address size, the new word size
	resized  []bool
	sizeDiff []int32 // how much each struct or union grew or shrank
}

// fixupWordSize applies -w's word size to the printer's model.
func (p *Printer) fixupWordSize(word uint32) {
	w := &wordSizer{p: p, from: p.m.AddrSize, to: word,
		resized: make([]bool, len(p.m.Types)), sizeDiff: make([]int32, len(p.m.Types))}
	p.m.AddrSize = word
	for id := uint32(1); id < uint32(len(p.m.Types)); id++ {
		w.fixup(id, 0)
	}
}

// fixup is tag__fixup_word_size: types defined inside a struct or union
// first, then the type itself.
func (w *wordSizer) fixup(id uint32, depth int) {
	m := w.p.m
	t := &m.Types[id]
	if depth > maxDepth {
		return
	}
	if t.Kind == KindStruct || t.Kind == KindUnion {
		for _, n := range m.Nested[t.NestedFirst : t.NestedFirst+t.NestedN] {
			w.fixup(n.Type, depth+1)
		}
	}
	switch t.Kind {
	case KindBase:
		if isLong(t) {
			t.Size = w.to
		}
	case KindStruct:
		w.resizeStruct(id, depth)
	case KindUnion:
		w.resizeUnion(id, depth)
	}
}

func isLong(t *Type) bool { return t.Name == "long int" || t.Name == "long unsigned int" }

// followTypedefs is tag__follow_typedef: typedefs only, not qualifiers.
func (m *Model) followTypedefs(t *Type) *Type {
	for d := 0; t != nil && t.Kind == KindTypedef; d++ {
		if d > maxDepth {
			return nil
		}
		t = m.Type(t.Ref)
	}
	return t
}

// resizeStruct is class__resize_LP: each member whose type is a long, a
// pointer, an array of them, or a struct or union that changed size,
// shifts the members after it by the change.
func (w *wordSizer) resizeStruct(id uint32, depth int) {
	p, m := w.p, w.p.m
	if w.resized[id] || depth > maxDepth {
		return
	}
	w.resized[id] = true
	t := &m.Types[id]
	diffW := uint64(w.to - w.from)
	if w.from > w.to {
		diffW = uint64(w.from - w.to)
	}
	origSize := t.Size
	for i := 0; i < int(t.N); i++ {
		mb := &m.Members[t.First+uint32(i)]
		mt := m.Type(mb.Type)
		mult := uint64(1)
		if mt != nil && mt.Kind == KindArray {
			for _, d := range m.Dims[mt.First : mt.First+mt.N] {
				mult *= uint64(d)
			}
			mt = m.Type(mt.Ref)
		}
		if mt != nil && mt.Kind == KindTypedef {
			mt = m.followTypedefs(mt)
		}
		if mt == nil {
			continue
		}
		var diff uint64
		switch mt.Kind {
		case KindBase:
			if isLong(mt) {
				diff = diffW
			}
		case KindPointer:
			diff = diffW
		case KindStruct, KindUnion:
			mid := m.idOf(mt)
			if mt.Kind == KindUnion {
				w.resizeUnion(mid, depth+1)
			} else {
				w.resizeStruct(mid, depth+1)
			}
			diff = uint64(int64(w.sizeDiff[mid]))
		}
		diff *= mult
		if diff == 0 {
			continue
		}
		if w.from > w.to {
			t.Size -= uint32(diff)
			p.subtractOffsetsFrom(t, i, uint16(diff))
		} else {
			t.Size += uint32(diff)
			p.addOffsetsFrom(t, i, uint16(diff))
		}
	}
	if w.from > w.to {
		w.sizeDiff[id] = int32(origSize - t.Size)
	} else {
		w.sizeDiff[id] = int32(t.Size - origSize)
	}
	p.findHoles(t)
	p.fixupAlignment(t)
}

// resizeUnion is union__find_new_size: a union is as big as its biggest
// member's type now is.
func (w *wordSizer) resizeUnion(id uint32, depth int) {
	m := w.p.m
	if w.resized[id] || depth > maxDepth {
		return
	}
	w.resized[id] = true
	t := &m.Types[id]
	var maxSize uint64
	for _, mb := range m.MembersOf(t) {
		mt := m.Type(mb.Type)
		if mt != nil && mt.Kind == KindTypedef {
			mt = m.followTypedefs(mt)
		}
		if mt == nil {
			continue
		}
		switch mt.Kind {
		case KindUnion:
			w.resizeUnion(m.idOf(mt), depth+1)
		case KindStruct:
			w.resizeStruct(m.idOf(mt), depth+1)
		}
		maxSize = max(maxSize, uint64(m.tagSize(mt, 0)))
	}
	if maxSize > uint64(t.Size) {
		w.sizeDiff[id] = int32(maxSize - uint64(t.Size))
	} else {
		w.sizeDiff[id] = int32(uint64(t.Size) - maxSize)
	}
	t.Size = uint32(maxSize)
}

// addOffsetsFrom is class__add_offsets_from: the members of t after its
// member number from move size bytes down.
func (p *Printer) addOffsetsFrom(t *Type, from int, size uint16) {
	ms := p.m.MembersOf(t)
	for i := from + 1; i < len(ms); i++ {
		ms[i].ByteOffset += uint32(size)
		ms[i].BitOffset += uint32(size) * 8
	}
}

// fixupAlignment is class__fixup_alignment: the first member goes to
// offset 0; a hole of a word or more before a member shrinks to less than
// a word; a member whose size is a power of two up to a word moves to a
// multiple of it, into the hole before it or, if that is too small, down;
// then the struct is padded to a multiple of its first biggest base type
// member's size. It edits the holes found, not finding them again.
func (p *Printer) fixupAlignment(t *Type) {
	ms := p.m.MembersOf(t)
	st := p.state(t)
	word := uint64(p.m.AddrSize)
	hole := p.hole[t.First : t.First+t.N]
	last := -1
	for i := range ms {
		pos := &ms[i]
		switch {
		case last < 0 && pos.ByteOffset != 0:
			p.subtractOffsetsFrom(t, i, uint16(uint64(pos.ByteOffset)-uint64(pos.ByteSize)))
			pos.ByteOffset, pos.BitOffset = 0, 0
		case last >= 0 && int64(hole[last]) >= int64(word):
			dec := hole[last] / int32(word) * int32(word)
			hole[last] -= dec
			if hole[last] == 0 {
				st.nrHoles--
			}
			pos.ByteOffset -= uint32(dec)
			pos.BitOffset -= uint32(dec) * 8
			t.Size -= uint32(dec)
			p.subtractOffsetsFrom(t, i, uint16(dec))
		default:
			for power2 := word; power2 >= 2; power2 /= 2 {
				rem := uint64(pos.ByteOffset) % power2
				if uint64(pos.ByteSize) != power2 {
					continue
				}
				if rem == 0 {
					break
				}
				if uint64(int64(hole[last])) >= rem {
					hole[last] -= int32(rem)
					if hole[last] == 0 {
						st.nrHoles--
					}
					pos.ByteOffset -= uint32(rem)
					pos.BitOffset -= uint32(rem) * 8
					p.subtractOffsetsFrom(t, i, uint16(rem))
				} else {
					inc := power2 - rem
					if hole[last] == 0 {
						st.nrHoles++
					}
					hole[last] += int32(inc)
					pos.ByteOffset += uint32(inc)
					pos.BitOffset += uint32(inc) * 8
					t.Size += uint32(inc)
					p.addOffsetsFrom(t, i, uint16(inc))
				}
			}
		}
		last = i
	}
	if last < 0 {
		return
	}
	big := p.firstBiggestBaseTypeMember(t, 0, make(map[*Type]*Member))
	if big == nil || big.ByteSize == 0 {
		return
	}
	unpadded := uint64(ms[last].ByteOffset) + uint64(ms[last].ByteSize)
	if rem := unpadded % uint64(big.ByteSize); rem != 0 {
		st.padding = uint16(uint64(big.ByteSize) - rem)
		t.Size = uint32(unpadded + uint64(st.padding))
	}
}

// firstBiggestBaseTypeMember is type__find_first_biggest_size_base_type_member:
// the first member (or, for a struct or union member, the member inside it)
// whose base type is a word or more, else the first of the biggest. done
// keeps each struct's answer for the rest of one search, so that types
// nesting one struct many times over take one look at it, and a struct
// met again inside itself (corrupt input) counts as having no members.
func (p *Printer) firstBiggestBaseTypeMember(t *Type, depth int, done map[*Type]*Member) *Member {
	if r, ok := done[t]; ok || depth > maxDepth {
		return r
	}
	done[t] = nil
	r := p.firstBiggest(t, depth, done)
	done[t] = r
	return r
}

func (p *Printer) firstBiggest(t *Type, depth int, done map[*Type]*Member) *Member {
	m := p.m
	word := uint64(m.AddrSize)
	var result *Member
	var resultSize uint64
members:
	for i := range m.MembersOf(t) {
		pos := &m.Members[t.First+uint32(i)]
		mt := m.Type(pos.Type)
		var size uint64
		var inner *Member
		for d := 0; mt != nil; d++ {
			if d > maxDepth {
				continue members
			}
			switch mt.Kind {
			case KindBase, KindEnum:
				size = uint64(mt.Size)
			case KindPointer:
				size = word
			case KindStruct, KindUnion:
				if mt.N == 0 {
					continue members
				}
				if inner = p.firstBiggestBaseTypeMember(mt, depth+1, done); inner != nil {
					size = uint64(inner.ByteSize)
				}
			case KindArray, KindConst, KindTypedef, KindVolatile, KindAtomic:
				if mt = m.Type(mt.Ref); mt == nil {
					continue members
				}
				continue
			}
			break
		}
		if mt == nil {
			continue
		}
		if size > word {
			return pos
		}
		pick := pos
		if inner != nil {
			pick = inner
		}
		for power2 := word; power2 > resultSize; power2 /= 2 {
			if size >= power2 {
				if power2 == word {
					return pick
				}
				resultSize, result = power2, pick
			}
		}
	}
	return result
}
