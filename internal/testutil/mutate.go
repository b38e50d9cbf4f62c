package testutil

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/gobtf/gobtf/internal/btf"
)

// Mutator makes random mutations of a real BTF blob for differential
// tests against the kernel: bit flips and changed words in its header (a
// standalone blob's only: the kernel never sees a split blob's header),
// type headers, struct and union members, DATASEC entries and other
// trailing words, and changed bytes in its strings.
type Mutator struct {
	orig []byte
	// Base is the blob's base (nil for a standalone blob).
	Base *btf.Spec
	spec *btf.Spec
	hdr  btf.Header
	// word offsets (in bytes from the blob's start) by region
	typeHdr, members, datasec, other []int
}

// NewMutator prepares mutations of data, split on base if base is not nil.
func NewMutator(data []byte, base *btf.Spec) (*Mutator, error) {
	s, err := btf.Parse(data, base)
	if err != nil {
		return nil, err
	}
	h, _, err := btf.ParseHeader(data)
	if err != nil {
		return nil, err
	}
	m := &Mutator{orig: data, Base: base, spec: s, hdr: h}
	off := int(h.HdrLen + h.TypeOff)
	for i := range s.NumTypes() {
		ty := s.Own(i)
		for w := range len(ty) {
			at := off + 4*w
			switch k := ty.Kind(); {
			case w < 3:
				m.typeHdr = append(m.typeHdr, at)
			case k == btf.KindStruct || k == btf.KindUnion:
				m.members = append(m.members, at)
			case k == btf.KindDatasec:
				m.datasec = append(m.datasec, at)
			default:
				m.other = append(m.other, at)
			}
		}
		off += 4 * len(ty)
	}
	return m, nil
}

// Mutate returns a mutated copy of the blob and what was changed, the
// region first ("header", "type-header", "member", "datasec", "trailing",
// "string").
func (m *Mutator) Mutate(rng *rand.Rand) ([]byte, string) {
	b := append([]byte(nil), m.orig...)
	le := binary.LittleEndian
	total := m.spec.TypeCount()
	nstr := m.spec.Strings().Len()
	word := func(at int) (uint32, uint32) {
		old := le.Uint32(b[at:])
		var v uint32
		switch rng.IntN(9) {
		case 0, 1:
			v = old ^ 1<<rng.IntN(32)
		case 2:
			v = rng.Uint32N(total + 3)
		case 3:
			v = m.spec.FirstID() + rng.Uint32N(uint32(m.spec.NumTypes()))
		case 4:
			v = rng.Uint32N(nstr + 3)
		case 5:
			v = old + rng.Uint32N(9) - 4
		case 6:
			v = rng.Uint32N(300)
		case 7:
			v = old ^ 1<<(24+rng.IntN(8))
		default:
			v = rng.Uint32()
		}
		le.PutUint32(b[at:], v)
		return old, v
	}
	pick := func(offs []int) int { return offs[rng.IntN(len(offs))] }
	region := rng.IntN(10)
	if m.Base != nil && region == 0 {
		region = 1 // the split header is not the kernel's
	}
	switch {
	case region == 0:
		at := 4 * rng.IntN(6)
		if rng.IntN(3) == 0 {
			at = rng.IntN(24)
			b[at] ^= 1 << rng.IntN(8)
			return b, fmt.Sprintf("header byte %d bit flip", at)
		}
		old, v := word(at)
		return b, fmt.Sprintf("header word %d %#x -> %#x", at/4, old, v)
	case region <= 3:
		at := pick(m.typeHdr)
		old, v := word(at)
		return b, fmt.Sprintf("type-header word at %#x %#x -> %#x", at, old, v)
	case region <= 5 && len(m.members) > 0:
		at := pick(m.members)
		old, v := word(at)
		return b, fmt.Sprintf("member word at %#x %#x -> %#x", at, old, v)
	case region == 6 && len(m.datasec) > 0:
		at := pick(m.datasec)
		old, v := word(at)
		return b, fmt.Sprintf("datasec word at %#x %#x -> %#x", at, old, v)
	case region == 7 && len(m.other) > 0:
		at := pick(m.other)
		old, v := word(at)
		return b, fmt.Sprintf("trailing word at %#x %#x -> %#x", at, old, v)
	}
	// A string byte: a flipped bit, a NUL, or a byte of another class.
	start := int(m.hdr.HdrLen + m.hdr.StrOff)
	at := start + rng.IntN(int(m.hdr.StrLen))
	old := b[at]
	switch rng.IntN(4) {
	case 0:
		b[at] ^= 1 << rng.IntN(8)
	case 1:
		b[at] = 0
	case 2:
		b[at] = " -9\x01\xe9\x7f"[rng.IntN(6)]
	default:
		b[at] = byte(rng.UintN(256))
	}
	return b, fmt.Sprintf("string byte %#x %#x -> %#x", at-start, old, b[at])
}
