package cdump

import "strconv"

// roundUp rounds x up to a multiple of y (x itself for y 0).
func roundUp(x, y int64) int64 {
	if y <= 0 {
		return x
	}
	return (x + y - 1) / y * y
}

// emitPadding fills the gap between bit offsets cur and next with anonymous
// bitfield members, as libbpf does, so that the compiler lays the next member
// (or the end of the struct) where BTF has it.
//
// First it picks the widest of long, int, short and char whose boundary
// after cur is not past next, and if that boundary lies inside the gap it may
// declare a zero-width (or, inside a run of bitfields, a closing) member of
// that type to jump to it: it does so only when natural alignment would not
// already land there (next's alignment differs) or when the rest of the gap
// is no longer than the jump. Then it fills what remains with whole units of
// that type and, for the last partial unit, the narrowest type that holds it.
func (p *printer) emitPadding(cur, next int64, nextAlign int, inBitfield bool, lvl int) {
	if cur >= next {
		return
	}
	pads := [...]struct {
		name string
		bits int64
	}{{"long", int64(p.ptrSz) * 8}, {"int", 32}, {"short", 16}, {"char", 8}}
	var newOff, padBits int64
	var padType string
	for _, pd := range pads {
		padBits, padType = pd.bits, pd.name
		newOff = roundUp(cur, padBits)
		if newOff <= next {
			break
		}
	}
	if newOff > cur && newOff <= next {
		if inBitfield ||
			newOff == next && roundUp(cur, int64(nextAlign)*8) != newOff ||
			newOff != next && next-newOff <= newOff-cur {
			w := int64(0)
			if inBitfield {
				w = newOff - cur
			}
			p.padMember(padType, w, lvl)
		}
		cur = newOff
	}
	for cur != next {
		if !p.step() {
			return
		}
		bits := min(next-cur, padBits)
		if bits == padBits {
			p.padMember(padType, padBits, lvl)
			cur += bits
			continue
		}
		for i := len(pads) - 1; i >= 0; i-- {
			padType, padBits = pads[i].name, pads[i].bits
			if padBits < bits {
				continue
			}
			p.padMember(padType, bits, lvl)
			cur += bits
			break
		}
	}
}

// padMember writes one anonymous bitfield member "TYPE: BITS;".
func (p *printer) padMember(typ string, bits int64, lvl int) {
	p.buf = append(p.buf, '\n')
	p.buf = append(p.buf, indent(lvl)...)
	p.buf = append(p.buf, typ...)
	p.buf = append(p.buf, ": "...)
	p.buf = strconv.AppendInt(p.buf, bits, 10)
	p.buf = append(p.buf, ';')
}
