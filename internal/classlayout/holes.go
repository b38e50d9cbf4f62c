package classlayout

// classState holds what pahole works out about a struct or union while
// printing, the first time it needs it: holes and padding (class__find_holes),
// the inferred __packed__ attribute (class__infer_packed_attributes, which
// may also mark the types of its members packed), flexible arrays. The
// integer widths are pahole's: its counters wrap as they do there.
type classState struct {
	holesSearched, packedInferred, packed bool
	flexVerified, hasFlex                 bool
	embSearched, hasEmb                   bool
	nrHoles, nrBitHoles                   uint8
	preHole, padding                      uint16
	preBitHole, bitPadding                uint8
}

func (p *Printer) state(t *Type) *classState { return &p.cls[p.m.idOf(t)] }

// findHoles is class__find_holes: for each member of a struct, the bytes
// and bits left unused after it before the next member, and the padding
// after the last one.
func (p *Printer) findHoles(t *Type) {
	if t.Kind != KindStruct {
		return
	}
	st := p.state(t)
	if st.holesSearched {
		return
	}
	st.nrHoles, st.nrBitHoles = 0, 0
	curBitfieldEnd, curBitfieldSize := t.Size*8, uint32(0)
	var lastSeenBit uint32
	inBitfield := false
	last := -1
	for i := t.First; i < t.First+t.N; i++ {
		pos := &p.m.Members[i]
		p.hole[i], p.bitHole[i] = 0, 0
		bitStart := pos.BitOffset
		bitEnd := bitStart + pos.ByteSize*8
		if pos.BitfieldSize != 0 {
			bitEnd = bitStart + pos.BitfieldSize
		}
		bitHoles, byteHoles := int32(0), int32(0)
		if inBitfield {
			end := min(bitStart, curBitfieldEnd)
			bitHoles = int32(end - lastSeenBit)
			lastSeenBit = end
		}
		if pos.BitfieldSize != 0 {
			aligned := pos.ByteOffset * 8
			if lastSeenBit < aligned && aligned <= bitStart {
				byteHoles = int32(pos.ByteOffset - lastSeenBit/8)
				lastSeenBit = aligned
			}
			bitHoles += int32(bitStart - lastSeenBit)
		} else {
			byteHoles = int32(bitStart/8 - lastSeenBit/8)
		}
		lastSeenBit = bitEnd
		if pos.BitfieldSize != 0 {
			inBitfield = true
			if bitEnd > curBitfieldEnd || pos.BitSize > curBitfieldSize {
				curBitfieldSize = pos.BitSize
				curBitfieldEnd = pos.ByteOffset*8 + curBitfieldSize
				if bitEnd > curBitfieldEnd {
					curBitfieldEnd += curBitfieldSize
				}
			}
		} else {
			inBitfield = false
			curBitfieldSize = 0
			curBitfieldEnd = bitEnd
		}
		if last >= 0 {
			p.hole[last], p.bitHole[last] = byteHoles, uint8(bitHoles)
		} else {
			st.preHole, st.preBitHole = uint16(byteHoles), uint8(bitHoles)
		}
		if bitHoles != 0 {
			st.nrBitHoles++
		}
		if byteHoles > 0 {
			st.nrHoles++
		}
		last = int(i)
	}
	if inBitfield {
		end := min(t.Size*8, curBitfieldEnd)
		st.bitPadding = uint8(end - lastSeenBit)
		lastSeenBit = end
	} else {
		st.bitPadding = 0
	}
	st.padding = uint16(t.Size - lastSeenBit/8)
	st.holesSearched = true
}

// hasFlexibleArray says whether a struct's last member is an array of no
// elements (the member's type as written: a typedef of one is not).
func (p *Printer) hasFlexibleArray(t *Type) bool {
	st := p.state(t)
	if !st.flexVerified {
		st.flexVerified = true
		if t.N > 0 {
			mt := p.m.Type(p.m.Members[t.First+t.N-1].Type)
			st.hasFlex = mt != nil && mt.Kind == KindArray && mt.N == 1 && p.m.Dims[mt.First] == 0
		}
	}
	return st.hasFlex
}

// hasEmbeddedFlexibleArray says whether a member of a struct is (or holds)
// a struct ending in a flexible array.
func (p *Printer) hasEmbeddedFlexibleArray(t *Type, depth int) bool {
	if t.Kind != KindStruct || depth > maxDepth {
		return false
	}
	st := p.state(t)
	if st.embSearched {
		return st.hasEmb
	}
	for _, mb := range p.m.MembersOf(t) {
		mt := p.m.stripTypedefsAndModifiers(mb.Type)
		if mt == nil || mt.Kind != KindStruct {
			continue
		}
		st.hasEmb = p.hasFlexibleArray(mt)
		if st.hasEmb {
			break
		}
		if mt == t {
			continue
		}
		st.hasEmb = p.hasEmbeddedFlexibleArray(mt, depth+1)
		if st.hasEmb {
			break
		}
	}
	st.embSearched = true
	return st.hasEmb
}

// markStructsAtUnnaturalOffsets is type__check_structs_at_unnatural_alignments:
// a struct member at an offset its natural alignment forbids must be packed.
func (p *Printer) markStructsAtUnnaturalOffsets(t *Type) {
	for _, mb := range p.m.MembersOf(t) {
		mt := p.m.stripTypedefsAndModifiers(mb.Type)
		if mt == nil || mt.Kind != KindStruct {
			continue
		}
		if mb.ByteOffset%p.m.naturalAlignment(mt, 0) != 0 {
			st := p.state(mt)
			st.packed, st.packedInferred = true, true
		}
	}
}

// inferPacked is class__infer_packed_attributes: whether a struct must have
// been declared __packed__ for its members to be where they are.
func (p *Printer) inferPacked(t *Type) bool {
	if t.Kind != KindStruct {
		return false
	}
	st := p.state(t)
	if st.packedInferred {
		return st.packed
	}
	p.findHoles(t)
	if st.padding != 0 || st.nrHoles != 0 {
		p.markStructsAtUnnaturalOffsets(t)
		st.packed = false
		st.packedInferred = true
		return false
	}
	maxAlign := uint32(1)
	for _, mb := range p.m.MembersOf(t) {
		a := p.m.naturalAlignment(p.m.stripTypedefsAndModifiers(mb.Type), 0)
		if a == 1 {
			continue
		}
		maxAlign = max(maxAlign, a)
		if mb.ByteOffset%a != 0 {
			st.packed, st.packedInferred = true, true
			return true
		}
	}
	if (maxAlign != 1 && t.Align == 1) || t.Size%maxAlign != 0 {
		st.packed = true
	}
	st.packedInferred = true
	return st.packed
}

// inferUnionPacked is union__infer_packed_attributes: a struct in a union
// whose size its natural alignment does not divide must be packed.
func (p *Printer) inferUnionPacked(t *Type) {
	st := p.state(t)
	if st.packedInferred {
		return
	}
	for _, mb := range p.m.MembersOf(t) {
		mt := p.m.stripTypedefsAndModifiers(mb.Type)
		if mt == nil || mt.Kind != KindStruct {
			continue
		}
		if t.Size%p.m.naturalAlignment(mt, 0) != 0 {
			ms := p.state(mt)
			ms.packed, ms.packedInferred = true, true
		}
	}
	st.packedInferred = true
}
