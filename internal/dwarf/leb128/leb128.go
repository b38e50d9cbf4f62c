// Package leb128 reads and writes the variable-length numbers of DWARF
// (LEB128, DWARF 5 section 7.6): seven bits a byte, least significant
// first, the high bit set on every byte but the last. Readers take a
// position in a byte slice and never read past its end.
package leb128

// Uint reads the unsigned number at b[p:]. It returns the value, the
// position after the number, and false when b ends inside it (the position
// is then len(b) and the value that of the bytes read). Bits beyond the
// 64th are dropped; the number's length is bounded only by b. The
// one-byte case, most numbers, is small enough to be inlined anywhere.
func Uint(b []byte, p int) (uint64, int, bool) {
	if uint(p) < uint(len(b)) && b[p] < 0x80 {
		return uint64(b[p]), p + 1, true
	}
	return UintLong(b, p)
}

// UintLong is Uint without the one-byte shortcut, for callers that take
// one-byte numbers themselves.
func UintLong(b []byte, p int) (uint64, int, bool) {
	var v uint64
	var shift uint
	for ; uint(p) < uint(len(b)); p++ {
		c := b[p]
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c < 0x80 {
			return v, p + 1, true
		}
	}
	return v, p, false
}

// Int reads the signed number at b[p:], like Uint.
func Int(b []byte, p int) (int64, int, bool) {
	var v int64
	var shift uint
	for ; uint(p) < uint(len(b)); p++ {
		c := b[p]
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, p + 1, true
		}
	}
	return v, p, false
}

// Skip steps over n numbers from b[p:] and returns the position after
// them, or false when b ends first.
func Skip(b []byte, p, n int) (int, bool) {
	for ; n > 0; n-- {
		var ok bool
		if _, p, ok = Uint(b, p); !ok {
			return p, false
		}
	}
	return p, true
}

// AppendUint appends v, in the fewest bytes, to b.
func AppendUint(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendInt appends v, in the fewest bytes, to b.
func AppendInt(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// PutUint writes the low 7*len(b) bits of v into all of b, as an unsigned
// number padded to that length with continuation bits (as assemblers pad a
// field whose final value a relocation fills in).
func PutUint(b []byte, v uint64) {
	for i := range b {
		c := byte(v & 0x7f)
		v >>= 7
		if i < len(b)-1 {
			c |= 0x80
		}
		b[i] = c
	}
}
