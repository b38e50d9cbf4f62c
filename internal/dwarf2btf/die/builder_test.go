package die

import "encoding/binary"

// This file builds small DWARF sections by hand, for the forms and header
// variants compilers rarely emit.

// hAttr is one attribute of a hand-built DIE: its abbreviation entry and its
// encoded value bytes in .debug_info.
type hAttr struct {
	at       uint32
	form     Form
	implicit int64
	enc      []byte
}

// hDIE is a hand-built DIE. Each gets its own abbreviation code.
type hDIE struct {
	tag   uint32
	attrs []hAttr
	kids  []hDIE
}

// hUnit is a hand-built unit header plus its DIE tree.
type hUnit struct {
	version  int
	off64    bool
	addrSize int
	unitType byte // DWARF 5 only; 0 means UnitCompile
	sig      uint64
	typeOff  uint64 // type units: offset of the type DIE from the header start
	order    binary.ByteOrder
	root     hDIE
}

func uleb128(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func sleb128(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// nbytes encodes v in n bytes of order o.
func nbytes(o binary.ByteOrder, n int, v uint64) []byte {
	b := make([]byte, 8)
	switch n {
	case 1:
		return []byte{byte(v)}
	case 2:
		o.PutUint16(b, uint16(v))
	case 3:
		if o == binary.BigEndian {
			return []byte{byte(v >> 16), byte(v >> 8), byte(v)}
		}
		return []byte{byte(v), byte(v >> 8), byte(v >> 16)}
	case 4:
		o.PutUint32(b, uint32(v))
	default:
		o.PutUint64(b, v)
	}
	return b[:n]
}

// encode returns the unit's .debug_info bytes and appends its abbreviation
// table to abbrev, which the unit's header points at.
func (h *hUnit) encode(abbrev []byte) (info, abbrevOut []byte) {
	o := h.order
	if o == nil {
		o = binary.LittleEndian
	}
	if h.addrSize == 0 {
		h.addrSize = 8
	}
	abbrevOff := uint64(len(abbrev))
	code := uint64(0)
	var dies []byte
	var walk func(d *hDIE)
	walk = func(d *hDIE) {
		code++
		abbrev = append(abbrev, uleb128(code)...)
		abbrev = append(abbrev, uleb128(uint64(d.tag))...)
		if len(d.kids) > 0 {
			abbrev = append(abbrev, 1)
		} else {
			abbrev = append(abbrev, 0)
		}
		dies = append(dies, uleb128(code)...)
		for _, a := range d.attrs {
			abbrev = append(abbrev, uleb128(uint64(a.at))...)
			abbrev = append(abbrev, uleb128(uint64(a.form))...)
			if a.form == FormImplicitConst {
				abbrev = append(abbrev, sleb128(a.implicit)...)
			}
			dies = append(dies, a.enc...)
		}
		abbrev = append(abbrev, 0, 0)
		for i := range d.kids {
			walk(&d.kids[i])
		}
		if len(d.kids) > 0 {
			dies = append(dies, 0)
		}
	}
	walk(&h.root)
	abbrev = append(abbrev, 0)

	os := 4
	if h.off64 {
		os = 8
	}
	var hdr []byte
	hdr = append(hdr, nbytes(o, 2, uint64(h.version))...)
	if h.version >= 5 {
		ut := h.unitType
		if ut == 0 {
			ut = UnitCompile
		}
		hdr = append(hdr, ut, byte(h.addrSize))
		hdr = append(hdr, nbytes(o, os, abbrevOff)...)
		switch ut {
		case UnitSkeleton, UnitSplitCompile:
			hdr = append(hdr, nbytes(o, 8, h.sig)...)
		case UnitType, UnitSplitType:
			hdr = append(hdr, nbytes(o, 8, h.sig)...)
			hdr = append(hdr, nbytes(o, os, h.typeOff)...)
		}
	} else {
		hdr = append(hdr, nbytes(o, os, abbrevOff)...)
		hdr = append(hdr, byte(h.addrSize))
		if h.sig != 0 { // .debug_types
			hdr = append(hdr, nbytes(o, 8, h.sig)...)
			hdr = append(hdr, nbytes(o, os, h.typeOff)...)
		}
	}
	length := uint64(len(hdr) + len(dies))
	if h.off64 {
		info = append(nbytes(o, 4, 0xffffffff), nbytes(o, 8, length)...)
	} else {
		info = nbytes(o, 4, length)
	}
	info = append(info, hdr...)
	return append(info, dies...), abbrev
}

// headerSize is the size of the unit's header, i.e. the offset of its unit
// DIE from the unit start.
func (h *hUnit) headerSize() int {
	info, _ := (&hUnit{version: h.version, off64: h.off64, addrSize: h.addrSize, unitType: h.unitType,
		sig: h.sig, order: h.order, root: hDIE{tag: 1}}).encode(nil)
	return len(info) - 1
}
