package classlayout

// classStats prints a struct's summary comments: size and cachelines, sums
// of members and holes, padding, member types' holes, forced alignments,
// flexible arrays, the last cacheline, and the "BRAIN FART ALERT" when the
// parts do not add up to the size.
func (p *Printer) classStats(t *Type, cc *conf, s *structSums) {
	st := p.state(t)
	ind := cc.indent
	cl := uint64(p.opt.CachelineSize)
	p.byte1('\n')
	p.tabs(ind)
	p.str("/* size: ")
	p.int(int64(int32(t.Size)))
	p.str(", cachelines: ")
	p.uint((uint64(p.m.tagSize(t, 0)) + cl - 1) / cl)
	p.str(", members: ")
	p.uint(uint64(t.N))
	p.str(" */\n")
	if s.sumHoles > 0 || s.sumBitHoles > 0 {
		if s.sumBytes > 0 {
			p.tabs(ind)
			p.str("/* sum members: ")
			p.uint(uint64(s.sumBytes))
			if s.sumHoles > 0 {
				p.str(", holes: ")
				p.int(int64(st.nrHoles))
				p.str(", sum holes: ")
				p.uint(uint64(s.sumHoles))
			}
			p.str(" */\n")
		}
		if s.sumBits > 0 {
			p.tabs(ind)
			p.str("/* sum bitfield members: ")
			p.uint(uint64(s.sumBits))
			p.str(" bits")
			if s.sumBitHoles > 0 {
				p.str(", bit holes: ")
				p.int(int64(st.nrBitHoles))
				p.str(", sum bit holes: ")
				p.uint(uint64(s.sumBitHoles))
				p.str(" bits")
			} else {
				p.str(" (")
				p.uint(uint64(s.sumBits / 8))
				p.str(" bytes)")
			}
			p.str(" */\n")
		}
	}
	if st.padding > 0 {
		p.tabs(ind)
		p.str("/* padding: ")
		p.uint(uint64(st.padding))
		p.str(" */\n")
	}
	p.memberTypesSummary(ind, &s.types)
	if st.bitPadding > 0 {
		p.tabs(ind)
		p.str("/* bit_padding: ")
		p.uint(uint64(st.bitPadding))
		p.str(" bits */\n")
	}
	if !p.opt.SuppressAlignedAttribute && s.nrForced != 0 {
		p.tabs(ind)
		p.str("/* forced alignments: ")
		p.uint(uint64(s.nrForced))
		if s.nrForcedHoles != 0 {
			p.str(", forced holes: ")
			p.uint(uint64(s.nrForcedHoles))
			p.str(", sum forced holes: ")
			p.uint(uint64(s.sumForcedHoles))
		}
		p.str(" */\n")
	}
	if h := &s.types; h.nrFlexible > 0 || h.nrEmbeddedFlexible > 0 {
		p.tabs(ind)
		p.str("/* flexible array members: ")
		if h.nrFlexible > 0 {
			p.str("end: ")
			p.uint(uint64(h.nrFlexible))
		}
		if h.nrEmbeddedFlexible > 0 {
			if h.nrFlexible > 0 {
				p.str(", ")
			}
			p.str("middle: ")
			p.uint(uint64(h.nrEmbeddedFlexible))
		}
		p.str(" */\n")
	}
	if last := (cc.baseOffset + t.Size) % p.opt.CachelineSize; last != 0 {
		p.tabs(ind)
		p.str("/* last cacheline: ")
		p.uint(uint64(last))
		p.str(" bytes */\n")
	}
	if p.opt.ShowFirstBiggest && t.N != 0 {
		p.firstBiggestLine(t, ind)
	}
	diff := int32(t.Size*8 - (s.sumBytes*8 + s.sumBits + s.sumHoles*8 + s.sumBitHoles +
		uint32(st.padding)*8 + uint32(st.bitPadding)))
	if diff != 0 && t.N != 0 {
		p.byte1('\n')
		p.tabs(ind)
		p.str("/* BRAIN FART ALERT! ")
		p.int(int64(int32(t.Size)))
		p.str(" bytes != ")
		p.uint(uint64(s.sumBytes))
		p.str(" (member bytes) + ")
		p.uint(uint64(s.sumBits))
		p.str(" (member bits) + ")
		p.uint(uint64(s.sumHoles))
		p.str(" (byte holes) + ")
		p.uint(uint64(s.sumBitHoles))
		p.str(" (bit holes), diff = ")
		p.int(int64(diff))
		p.str(" bits */\n")
	}
}

func (p *Printer) memberTypesSummary(ind int, h *memberTypesHoles) {
	if h.nrWithHoles > 0 || h.nrWithBitHoles > 0 || h.nrWithBitPaddings > 0 {
		p.tabs(ind)
		p.str("/* member types with ")
		sep := ""
		if h.nrWithHoles > 0 {
			p.str("holes: ")
			p.uint(uint64(h.nrWithHoles))
			p.str(", total: ")
			p.uint(uint64(h.totalNrHoles))
			sep = ", "
		}
		if h.nrWithBitHoles > 0 {
			p.str(sep + "bit holes: ")
			p.uint(uint64(h.nrWithBitHoles))
			p.str(", total: ")
			p.uint(uint64(h.totalNrBitHoles))
			sep = ", "
		}
		if h.nrWithBitPaddings > 0 {
			p.str(sep + "bit paddings: ")
			p.uint(uint64(h.nrWithBitPaddings))
			p.str(", total: ")
			p.uint(uint64(h.sumBitPaddings))
			p.str(" bit")
			if h.sumBitPaddings > 1 {
				p.byte1('s')
			}
		}
		p.str(" */\n")
	}
	if h.nrPaddings > 0 {
		p.tabs(ind)
		p.str("/* paddings: ")
		p.uint(uint64(h.nrPaddings))
		p.str(", sum paddings: ")
		p.uint(uint64(h.sumPaddings))
		p.str(" */\n")
	}
}
