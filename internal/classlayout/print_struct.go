package classlayout

// memberTypesHoles sums what the struct members' own types waste, for the
// "member types with holes" and "paddings" summary lines.
type memberTypesHoles struct {
	nrPaddings, nrWithBitPaddings, nrWithHoles, nrWithBitHoles uint16
	totalNrHoles, totalNrBitHoles                              uint16
	nrFlexible, nrEmbeddedFlexible                             uint16
	sumPaddings, sumBitPaddings                                uint32
}

// memberTypeHoles is class__fprintf_member_type_holes: the "XXX last struct
// has ..." comment after a member whose struct type has holes or padding.
func (p *Printer) memberTypeHoles(t *Type, h *memberTypesHoles, newline *uint8, c *conf) {
	p.findHoles(t)
	p.inferPacked(t)
	st := p.state(t)
	padding, bitPadding := st.padding, st.bitPadding
	nrHoles, nrBitHoles := st.nrHoles, st.nrBitHoles
	flex := p.hasFlexibleArray(t)
	emb := p.hasEmbeddedFlexibleArray(t, 0)
	if padding == 0 && bitPadding == 0 && nrHoles == 0 && nrBitHoles == 0 && !flex && !emb {
		return
	}
	if *newline == 0 {
		p.byte1('\n')
	}
	*newline++
	p.byte1('\n')
	p.tabs(c.indent)
	p.str("/* XXX last struct has")
	sep := ""
	if flex {
		p.str(" a flexible array")
		h.nrFlexible++
		sep = ","
	}
	if emb {
		p.str(sep + " embedded flexible array(s)")
		h.nrEmbeddedFlexible++
		sep = ","
	}
	if padding != 0 {
		h.nrPaddings++
		h.sumPaddings += uint32(padding)
		p.count(sep, int64(padding), "byte", " of padding")
		sep = ","
	}
	if bitPadding != 0 {
		h.nrWithBitPaddings++
		h.sumBitPaddings += uint32(bitPadding)
		p.count(sep, int64(bitPadding), "bit", " of padding")
		sep = ","
	}
	if nrHoles != 0 {
		h.nrWithHoles++
		h.totalNrHoles += uint16(nrHoles)
		p.count(sep, int64(nrHoles), "hole", "")
		sep = ","
	}
	if nrBitHoles != 0 {
		h.nrWithBitHoles++
		h.totalNrBitHoles += uint16(nrBitHoles)
		p.count(sep, int64(nrBitHoles), "bit hole", "")
	}
	p.str(" */")
}

// count writes one phrase of the "last struct has" comment: sep, then
// "N unit" (plural when N is not 1), then rest.
func (p *Printer) count(sep string, n int64, unit, rest string) {
	p.str(sep + " ")
	p.int(n)
	p.str(" " + unit + plural(n, "s") + rest)
}

// structSums accumulates what classFprintf's summary reports.
type structSums struct {
	sumBytes, sumBits, sumHoles, sumBitHoles uint32
	nrForced, nrForcedHoles                  uint16
	sumForcedHoles                           uint32
	types                                    memberTypesHoles
}

// classFprintf is __class__fprintf: a struct's body, its members with
// holes and cacheline boundaries, and its summary comments.
func (p *Printer) classFprintf(t *Type, c *conf, depth int) {
	cc := *c
	if cc.prefix != null {
		p.str(cc.prefix)
		p.byte1(' ')
	}
	p.str("struct")
	if t.Name != "" {
		p.byte1(' ')
		p.str(t.Name)
	}
	indent := min(cc.indent, len(tabs)-1)
	var cacheline uint32
	if cc.cachelinep == nil {
		cc.cachelinep = &cacheline
	}
	cc.indent = indent + 1
	cc.noSemicolon = false
	p.inferPacked(t)
	p.str(" {\n")
	st := p.state(t)
	var sums structSums
	var newline uint8
	if st.preBitHole > 0 && !p.opt.SuppressComments {
		if newline == 0 {
			p.byte1('\n')
		}
		newline++
		p.tabs(cc.indent)
		p.str("/* XXX ")
		p.int(int64(st.preBitHole))
		p.str(" bit" + plural(int64(st.preBitHole), "s") + " hole, try to pack */\n")
		sums.sumBitHoles += uint32(st.preBitHole)
	}
	if st.preHole > 0 && !p.opt.SuppressComments {
		if newline == 0 {
			p.byte1('\n')
		}
		newline++
		p.tabs(cc.indent)
		p.str("/* XXX ")
		p.int(int64(st.preHole))
		p.str(" byte" + plural(int64(st.preHole), "s") + " hole, try to pack */\n")
		sums.sumHoles += uint32(st.preHole)
	}
	id := p.m.idOf(t)
	// (-p expands a struct once inside itself, through a pointer; its own
	// counter bounds that.)
	if p.expanding[id] && (!p.opt.ExpandPointers || p.recursion[id] > 1) {
		p.str("<ERROR: type loop>}")
		return
	}
	wasExpanding := p.expanding[id]
	p.expanding[id] = true
	last := p.classMembers(t, &cc, &sums, &newline, depth)
	p.forcePadding(t, last, &cc, depth)
	p.expanding[id] = wasExpanding
	if cc.emitStats {
		p.classStats(t, &cc, &sums)
	}
	p.tabs(indent)
	p.byte1('}')
	if st.packed && !p.opt.SuppressPacked {
		p.str(" __attribute__((__packed__))")
	}
	if cc.suffix != null {
		p.byte1(' ')
		p.str(cc.suffix)
	}
	if !p.opt.SuppressAlignedAttribute && t.Align != 0 && !st.packed {
		p.str(" __attribute__((__aligned__(")
		p.uint(uint64(t.Align))
		p.str(")))")
	}
}

// classMembers prints a struct's members; it returns the index of the last
// member, or -1.
func (p *Printer) classMembers(t *Type, cc *conf, sums *structSums, newline *uint8, depth int) int {
	st := p.state(t)
	last := -1
	var lastSize uint64
	nested := p.m.Nested[t.NestedFirst : t.NestedFirst+t.NestedN]
	for i := t.First; i < t.First+t.N && !p.overflow; i++ {
		for len(nested) > 0 && nested[0].Before <= i-t.First {
			if !p.opt.ShowOnlyDataMembers {
				p.nestedType(nested[0].Type, cc)
			}
			nested = nested[1:]
		}
		pos := &p.m.Members[i]
		if !p.opt.SuppressAlignedAttribute && pos.Align != 0 {
			var forcedHole int32
			if last >= 0 {
				forcedHole = p.hole[last]
			} else {
				forcedHole = int32(st.preHole)
			}
			if forcedHole != 0 {
				sums.nrForcedHoles++
				sums.sumForcedHoles += uint32(forcedHole)
			}
			sums.nrForced++
		}
		if last >= 0 && lastSize != 0 {
			lm := &p.m.Members[last]
			if p.bitHole[last] != 0 && pos.BitfieldSize != 0 {
				bitfieldSize := uint32(p.bitHole[last])
				pt := p.m.Type(pos.Type)
				if pt == nil {
					p.tabs(cc.indent)
					p.str(notFoundID(pos.Type))
					last = int(i)
					continue
				}
				if lm.ByteOffset != pos.ByteOffset {
					p.byte1('\n')
					p.tabs(cc.indent)
					p.str("/* Force alignment to the next boundary: */\n")
					bitfieldSize = 0
				}
				p.tabs(cc.indent)
				p.typeFprintf(pt, "", cc, depth)
				p.byte1(':')
				p.uint(uint64(bitfieldSize))
				p.str(";\n")
			}
			if pos.ByteOffset < lm.ByteOffset ||
				(pos.ByteOffset == lm.ByteOffset && lm.BitfieldSize == 0 && pos.BitfieldSize != 0) {
				if !p.opt.SuppressComments {
					if *newline == 0 {
						p.byte1('\n')
					}
					*newline++
					p.tabs(cc.indent)
					p.str("/* Bitfield combined with previous fields */\n")
				}
			} else {
				ccLast := int64(pos.ByteOffset) - int64(lm.ByteOffset)
				if ccLast > 0 && uint64(ccLast) < lastSize && !p.opt.SuppressComments {
					if *newline == 0 {
						p.byte1('\n')
					}
					*newline++
					p.tabs(cc.indent)
					p.str("/* Bitfield combined with next fields */\n")
				}
			}
		}
		if *newline != 0 {
			p.byte1('\n')
			*newline = 0
		}
		pt := p.m.Type(pos.Type)
		if pt == nil {
			p.tabs(cc.indent)
			p.str(notFoundID(pos.Type))
			last = int(i)
			continue
		}
		cc.lastMember = i == t.First+t.N-1
		cc.firstMember = last < 0
		size := uint64(pos.ByteSize)
		p.tabs(cc.indent)
		p.member(i, false, pt, cc, depth)
		if pt.Kind == KindStruct && !p.opt.SuppressComments {
			p.memberTypeHoles(pt, &sums.types, newline, cc)
		}
		if bh := p.bitHole[i]; bh != 0 && !p.opt.SuppressComments {
			if *newline == 0 {
				p.byte1('\n')
			}
			*newline++
			p.byte1('\n')
			p.tabs(cc.indent)
			p.str("/* XXX ")
			p.int(int64(bh))
			p.str(" bit" + plural(int64(bh), "s") + " hole, try to pack */")
			sums.sumBitHoles += uint32(bh)
		}
		if h := p.hole[i]; h > 0 && !p.opt.SuppressComments {
			if *newline == 0 {
				p.byte1('\n')
			}
			*newline++
			p.byte1('\n')
			p.tabs(cc.indent)
			p.str("/* XXX ")
			p.int(int64(h))
			p.str(" byte" + plural(int64(h), "s") + " hole, try to pack */")
			sums.sumHoles += uint32(h)
		}
		p.byte1('\n')
		if pos.BitfieldSize != 0 {
			sums.sumBits += pos.BitfieldSize
		} else {
			sums.sumBytes += uint32(size)
		}
		if last < 0 || lastSize == 0 || p.m.Members[last].ByteOffset != pos.ByteOffset {
			lastSize = size
		} else if p.m.Members[last].BitfieldSize == 0 && pos.BitfieldSize != 0 {
			lastSize = size
		}
		last = int(i)
	}
	for _, n := range nested {
		if !p.opt.ShowOnlyDataMembers {
			p.nestedType(n.Type, cc)
		}
	}
	return last
}

// nestedType prints a type defined inside a struct's body where it is
// defined, as pahole's tag__fprintf does, followed by a blank line.
func (p *Printer) nestedType(id uint32, cc *conf) {
	t := &p.m.Types[id]
	tc := *cc
	if p.opt.ShowDeclInfo {
		p.declInfo(t, &tc)
	}
	p.tabs(tc.indent)
	switch t.Kind {
	case KindStruct:
		p.classFprintf(t, &tc, 1)
	case KindUnion:
		p.unionFprintf(t, &tc, 1)
	case KindEnum:
		p.enumFprintf(t, &tc)
	case KindTypedef:
		p.typedefFprintf(t, &tc, 1)
	default:
		p.str(p.tagName(t, 128))
	}
	p.str(";\n\n")
}

// forcePadding prints pahole's "Force padding:" filler members, for
// sources that record alignment (DWARF) only.
func (p *Printer) forcePadding(t *Type, last int, cc *conf, depth int) {
	st := p.state(t)
	if st.padding == 0 || t.Align != 0 || !p.m.HasAlignInfo || p.opt.SuppressForcePaddings || last < 0 {
		return
	}
	lt := p.m.Type(p.m.Members[last].Type)
	size := uint64(p.m.tagSize(lt, 0))
	if size == 0 || size&(size-1) != 0 || uint64(st.padding) <= uint64(p.m.AddrSize) {
		return
	}
	p.byte1('\n')
	p.tabs(cc.indent)
	p.str("/* Force padding: */\n")
	for added := uint64(0); added < uint64(st.padding) && !p.overflow; added += size {
		if p.members++; p.members > memberBudget {
			p.overflow, p.overflowErr = true, errTooBig{t.Name}
		}
		p.tabs(cc.indent)
		p.typeFprintf(lt, "", cc, depth)
		p.byte1(':')
		p.uint(size * 8)
		p.str(";\n")
	}
}
