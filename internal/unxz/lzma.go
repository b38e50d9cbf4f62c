package unxz

import "errors"

// errCorrupt is the error of LZMA data that does not decode.
var errCorrupt = errors.New("corrupt LZMA2 data")

// Probabilities are 11-bit: a bit is 0 with probability p/2048.
const (
	probBits  = 11
	probInit  = 1 << (probBits - 1)
	moveBits  = 5
	topValue  = 1 << 24
	numStates = 12
)

// bufSize is the size of the range decoder's input buffer: a power of 2
// above the largest LZMA2 chunk (64 KiB) and its header.
const bufSize = 1 << 17

// rangeDec is LZMA's range decoder over one chunk's compressed bytes,
// copied into buf, zeros after them. Reads go through pos&(bufSize-1), so
// that they need no bounds check and a corrupt chunk that reads on past
// its end reads zeros (or, past bufSize, wraps) without fault; pos then
// passes n, which the chunk's end check turns into an error.
type rangeDec struct {
	buf  *[bufSize]byte
	n    int // the chunk's bytes in buf
	pos  int
	rng  uint32
	code uint32
}

// init starts the decoder on in (at most bufSize bytes): a zero byte,
// then the code's 4 bytes.
func (rc *rangeDec) init(in []byte) error {
	if len(in) < 5 || in[0] != 0 || len(in) > bufSize {
		return errCorrupt
	}
	if rc.buf == nil {
		rc.buf = new([bufSize]byte)
	}
	copy(rc.buf[:], in)
	clear(rc.buf[len(in):])
	rc.n, rc.pos = len(in), 5
	rc.rng = 0xFFFFFFFF
	rc.code = uint32(in[1])<<24 | uint32(in[2])<<16 | uint32(in[3])<<8 | uint32(in[4])
	return nil
}

// bit decodes one bit with the probability *p and adapts it, after
// shifting in the next input byte when the range has fallen below
// topValue. It calls nothing, so that it is inlined into the loops.
func (rc *rangeDec) bit(p *uint16) uint32 {
	if rc.rng < topValue {
		rc.rng <<= 8
		rc.code = rc.code<<8 | uint32(rc.buf[rc.pos&(bufSize-1)])
		rc.pos++
	}
	v := uint32(*p)
	bound := (rc.rng >> probBits) * v
	if rc.code < bound {
		rc.rng = bound
		*p = uint16(v + (1<<probBits-v)>>moveBits)
		return 0
	}
	rc.rng -= bound
	rc.code -= bound
	*p = uint16(v - v>>moveBits)
	return 1
}

// normalize shifts in the next input byte when the range has fallen below
// topValue.
func (rc *rangeDec) normalize() {
	if rc.rng < topValue {
		rc.rng <<= 8
		rc.code = rc.code<<8 | uint32(rc.buf[rc.pos&(bufSize-1)])
		rc.pos++
	}
}

// The loops below decode bit after bit with bit's steps written out, on
// local copies of the decoder's state: bit is too large for the compiler
// to inline, and these loops decode most of the bits.

// tree decodes n bits, most significant first, with the bit tree probs
// (1<<n entries, index 1 the root).
func (rc *rangeDec) tree(probs []uint16, n uint) uint32 {
	rng, code, pos, buf := rc.rng, rc.code, rc.pos, rc.buf
	m := uint32(1)
	for range n {
		if rng < topValue {
			rng <<= 8
			code = code<<8 | uint32(buf[pos&(bufSize-1)])
			pos++
		}
		p := &probs[m]
		v := uint32(*p)
		bound := (rng >> probBits) * v
		if code < bound {
			rng = bound
			*p = uint16(v + (1<<probBits-v)>>moveBits)
			m <<= 1
		} else {
			rng -= bound
			code -= bound
			*p = uint16(v - v>>moveBits)
			m = m<<1 | 1
		}
	}
	rc.rng, rc.code, rc.pos = rng, code, pos
	return m - 1<<n
}

// literal decodes a literal's 8 bits with probs (0x300 entries); after a
// match (matched), the bits of matchByte, the byte at the last distance,
// choose the probabilities until a bit differs from its bit.
func (rc *rangeDec) literal(probs []uint16, matched bool, matchByte uint32) byte {
	rng, code, pos, buf := rc.rng, rc.code, rc.pos, rc.buf
	probs = probs[:0x300]
	sym := uint32(1)
	if matched {
		for sym < 0x100 {
			mb := matchByte >> 7 & 1
			matchByte <<= 1
			if rng < topValue {
				rng <<= 8
				code = code<<8 | uint32(buf[pos&(bufSize-1)])
				pos++
			}
			p := &probs[(1+mb)<<8+sym]
			v := uint32(*p)
			bound := (rng >> probBits) * v
			var b uint32
			if code < bound {
				rng = bound
				*p = uint16(v + (1<<probBits-v)>>moveBits)
			} else {
				rng -= bound
				code -= bound
				*p = uint16(v - v>>moveBits)
				b = 1
			}
			sym = sym<<1 | b
			if mb != b {
				break
			}
		}
	}
	for sym < 0x100 {
		if rng < topValue {
			rng <<= 8
			code = code<<8 | uint32(buf[pos&(bufSize-1)])
			pos++
		}
		p := &probs[sym]
		v := uint32(*p)
		bound := (rng >> probBits) * v
		if code < bound {
			rng = bound
			*p = uint16(v + (1<<probBits-v)>>moveBits)
			sym <<= 1
		} else {
			rng -= bound
			code -= bound
			*p = uint16(v - v>>moveBits)
			sym = sym<<1 | 1
		}
	}
	rc.rng, rc.code, rc.pos = rng, code, pos
	return byte(sym)
}

// reverse decodes n bits, least significant first, with the bit tree probs.
func (rc *rangeDec) reverse(probs []uint16, n uint) uint32 {
	rng, code, pos, buf := rc.rng, rc.code, rc.pos, rc.buf
	m, sym := uint32(1), uint32(0)
	for i := range n {
		if rng < topValue {
			rng <<= 8
			code = code<<8 | uint32(buf[pos&(bufSize-1)])
			pos++
		}
		p := &probs[m]
		v := uint32(*p)
		bound := (rng >> probBits) * v
		if code < bound {
			rng = bound
			*p = uint16(v + (1<<probBits-v)>>moveBits)
			m <<= 1
		} else {
			rng -= bound
			code -= bound
			*p = uint16(v - v>>moveBits)
			m = m<<1 | 1
			sym |= 1 << i
		}
	}
	rc.rng, rc.code, rc.pos = rng, code, pos
	return sym
}

// direct decodes n bits of probability one half.
func (rc *rangeDec) direct(n uint) uint32 {
	var v uint32
	for range n {
		rc.normalize()
		rc.rng >>= 1
		var b uint32
		if rc.code >= rc.rng {
			rc.code -= rc.rng
			b = 1
		}
		v = v<<1 | b
	}
	return v
}

// finished reports whether the chunk's bytes are all read and the range
// coder ended where the encoder flushed it (the code is 0), once the last
// normalization is done.
func (rc *rangeDec) finished() bool {
	rc.normalize()
	return rc.pos == rc.n && rc.code == 0
}

// lenDec decodes match lengths (less the minimum, 2).
type lenDec struct {
	choice, choice2 uint16
	low, mid        [16][8]uint16
	high            [256]uint16
}

func (l *lenDec) reset() {
	l.choice, l.choice2 = probInit, probInit
	for i := range l.low {
		for j := range l.low[i] {
			l.low[i][j], l.mid[i][j] = probInit, probInit
		}
	}
	for i := range l.high {
		l.high[i] = probInit
	}
}

func (l *lenDec) decode(rc *rangeDec, posState uint32) uint32 {
	if rc.bit(&l.choice) == 0 {
		return rc.tree(l.low[posState][:], 3)
	}
	if rc.bit(&l.choice2) == 0 {
		return 8 + rc.tree(l.mid[posState][:], 3)
	}
	return 16 + rc.tree(l.high[:], 8)
}

// lzma is the LZMA decoder's state, kept from chunk to chunk of an LZMA2
// stream until a state reset.
type lzma struct {
	lc, lp, pb uint
	state      uint32
	rep        [4]uint32
	pending    int // bytes of a match left to copy when a chunk ended inside it

	isMatch    [numStates << 4]uint16
	isRep      [numStates]uint16
	isRepG0    [numStates]uint16
	isRepG1    [numStates]uint16
	isRepG2    [numStates]uint16
	isRep0Long [numStates << 4]uint16
	posSlot    [4][64]uint16
	posSpecial [115]uint16
	align      [16]uint16
	match      lenDec
	repLen     lenDec
	literal    []uint16

	rc rangeDec // kept for its buffer
}

// setProps takes the lc, lp, pb byte of an LZMA2 chunk.
func (z *lzma) setProps(b byte) error {
	if b >= 9*5*5 {
		return errCorrupt
	}
	lc, lp, pb := uint(b%9), uint(b/9%5), uint(b/45)
	if lc+lp > 4 {
		return errCorrupt
	}
	z.lc, z.lp, z.pb = lc, lp, pb
	return nil
}

// reset puts every probability at one half and the state at its start.
func (z *lzma) reset() {
	z.state, z.rep, z.pending = 0, [4]uint32{}, 0
	for _, a := range [][]uint16{z.isMatch[:], z.isRep[:], z.isRepG0[:], z.isRepG1[:], z.isRepG2[:], z.isRep0Long[:], z.posSpecial[:], z.align[:]} {
		for i := range a {
			a[i] = probInit
		}
	}
	for i := range z.posSlot {
		for j := range z.posSlot[i] {
			z.posSlot[i][j] = probInit
		}
	}
	z.match.reset()
	z.repLen.reset()
	n := 0x300 << (z.lc + z.lp)
	if cap(z.literal) < n {
		z.literal = make([]uint16, n)
	}
	z.literal = z.literal[:n]
	for i := range z.literal {
		z.literal[i] = probInit
	}
}

// decode decodes one LZMA chunk of compressed bytes in, which must give
// exactly size bytes, appended to out (whose capacity holds them). The
// dictionary is out itself from dictStart on, at most dictSize bytes back.
func (z *lzma) decode(out []byte, in []byte, size, dictStart int, dictSize uint32) ([]byte, error) {
	rc := &z.rc
	if err := rc.init(in); err != nil {
		return out, err
	}
	end := len(out) + size
	pbMask := uint32(1)<<z.pb - 1
	lpMask := uint32(1)<<z.lp - 1
	state := z.state
	rep0, rep1, rep2, rep3 := z.rep[0], z.rep[1], z.rep[2], z.rep[3]
	// copyMatch appends n bytes from rep0+1 back, as far as end allows.
	copyMatch := func(n int) {
		from := len(out) - int(rep0) - 1
		k := min(n, end-len(out))
		// An overlapping match repeats its first rep0+1 bytes: each
		// append doubles what can be copied at once.
		for left := k; left > 0; {
			step := min(left, len(out)-from)
			out = append(out, out[from:from+step]...)
			left -= step
		}
		z.pending = n - k
	}
	if z.pending > 0 {
		copyMatch(z.pending)
	}
	for len(out) < end {
		pos := uint32(len(out) - dictStart)
		posState := pos & pbMask
		// isMatch, the first bit of every symbol, with bit's steps
		// written out (bit is not inlined).
		rc.normalize()
		p := &z.isMatch[state<<4|posState]
		v := uint32(*p)
		bound := (rc.rng >> probBits) * v
		isLiteral := rc.code < bound
		if isLiteral {
			rc.rng = bound
			*p = uint16(v + (1<<probBits-v)>>moveBits)
		} else {
			rc.rng -= bound
			rc.code -= bound
			*p = uint16(v - v>>moveBits)
		}
		if isLiteral {
			var prev uint32
			if len(out) > dictStart {
				prev = uint32(out[len(out)-1])
			}
			probs := z.literal[0x300*((pos&lpMask)<<z.lc+prev>>(8-z.lc)):][:0x300]
			var matchByte uint32
			if state >= 7 {
				matchByte = uint32(out[len(out)-int(rep0)-1])
			}
			out = append(out, rc.literal(probs, state >= 7, matchByte))
			switch {
			case state < 4:
				state = 0
			case state < 10:
				state -= 3
			default:
				state -= 6
			}
			continue
		}
		var n uint32
		if rc.bit(&z.isRep[state]) == 0 {
			rep3, rep2, rep1 = rep2, rep1, rep0
			n = z.match.decode(rc, posState)
			if state < 7 {
				state = 7
			} else {
				state = 10
			}
			rep0 = z.distance(rc, n)
			if rep0 == 0xFFFFFFFF {
				return out, errCorrupt // an end marker: LZMA2 has none
			}
		} else {
			if rc.bit(&z.isRepG0[state]) == 0 {
				if rc.bit(&z.isRep0Long[state<<4|posState]) == 0 {
					if state < 7 {
						state = 9
					} else {
						state = 11
					}
					if int(rep0) >= len(out)-dictStart {
						return out, errCorrupt
					}
					out = append(out, out[len(out)-int(rep0)-1])
					continue
				}
			} else {
				var d uint32
				if rc.bit(&z.isRepG1[state]) == 0 {
					d = rep1
				} else {
					if rc.bit(&z.isRepG2[state]) == 0 {
						d = rep2
					} else {
						d = rep3
						rep3 = rep2
					}
					rep2 = rep1
				}
				rep1 = rep0
				rep0 = d
			}
			n = z.repLen.decode(rc, posState)
			if state < 7 {
				state = 8
			} else {
				state = 11
			}
		}
		if int(rep0) >= len(out)-dictStart || rep0 >= dictSize {
			return out, errCorrupt
		}
		copyMatch(int(n) + 2)
	}
	z.state = state
	z.rep = [4]uint32{rep0, rep1, rep2, rep3}
	if !rc.finished() {
		return out, errCorrupt
	}
	return out, nil
}

// distance decodes a match's distance (less one) for a match of length
// n+2.
func (z *lzma) distance(rc *rangeDec, n uint32) uint32 {
	lenState := min(n, 3)
	slot := rc.tree(z.posSlot[lenState][:], 6)
	if slot < 4 {
		return slot
	}
	bits := uint(slot>>1) - 1
	d := (2 | slot&1) << bits
	if slot < 14 {
		return d + rc.reverse(z.posSpecial[d-slot:], bits)
	}
	d += rc.direct(bits-4) << 4
	return d + rc.reverse(z.align[:], 4)
}
