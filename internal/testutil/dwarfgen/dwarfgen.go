// Package dwarfgen builds DWARF units and minimal ELF files by hand, for
// tests that need inputs no compiler emits (rare forms and header variants,
// hostile trees). It only emits bytes: it imports no gobtf package but the
// DWARF vocabulary and LEB128 (which import nothing of gobtf), so that any
// package's in-package tests can use it.
package dwarfgen

import (
	"bytes"
	"encoding/binary"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// Attr is one attribute of a DIE: its name and form as the abbreviation
// entry gives them, and its value bytes in .debug_info. With Ref set, the
// value is instead the 4-byte unit-relative offset of that DIE (for
// DW_FORM_ref4), filled in once every offset is known. Implicit is the
// value of a DW_FORM_implicit_const, stored in the abbreviation entry.
type Attr struct {
	At       dwarf.Attr
	Form     dwarf.Form
	Implicit int64
	Val      []byte
	Ref      *DIE
}

// DIE is one DIE of a tree to encode.
type DIE struct {
	Tag   dwarf.Tag
	Attrs []Attr
	Kids  []*DIE

	off int // unit-relative offset, set by Unit.Encode
}

// Unit is a unit header and its DIE tree. The zero value of the other
// fields is the common case: 32-bit offsets, 8-byte addresses, little
// endian, a compile unit.
type Unit struct {
	Version  int            // the DWARF version, written as it is
	Off64    bool           // the 64-bit DWARF format
	AddrSize int            // 0 means 8
	UnitType dwarf.UnitType // DWARF 5 only; 0 means dwarf.UTCompile
	// Sig and TypeOff are the type signature and the type DIE's offset from
	// the header's start: written for DWARF 5 type and split units (Sig
	// only for skeleton and split compile units) and, before DWARF 5, when
	// Sig is not 0 (a .debug_types unit).
	Sig, TypeOff uint64
	Order        binary.ByteOrder // nil means little endian
	Root         *DIE
	// ShareAbbrevs gives DIEs with the same tag, child flag and attribute
	// forms one abbreviation; otherwise each DIE has its own code, in
	// tree order from 1.
	ShareAbbrevs bool
}

// ULEB encodes v as unsigned LEB128.
func ULEB(v uint64) []byte { return leb128.AppendUint(nil, v) }

// SLEB encodes v as signed LEB128.
func SLEB(v int64) []byte { return leb128.AppendInt(nil, v) }

// NBytes encodes v in n bytes (1, 2, 3, 4 or 8) of order o.
func NBytes(o binary.ByteOrder, n int, v uint64) []byte {
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

func (u *Unit) order() binary.ByteOrder {
	if u.Order == nil {
		return binary.LittleEndian
	}
	return u.Order
}

// header returns the unit header after the unit_length field, for an
// abbreviation table at abbrevOff.
func (u *Unit) header(abbrevOff uint64) []byte {
	o, version, addrSize := u.order(), u.Version, u.AddrSize
	if addrSize == 0 {
		addrSize = 8
	}
	os := 4
	if u.Off64 {
		os = 8
	}
	hdr := NBytes(o, 2, uint64(version))
	if version < 5 {
		hdr = append(hdr, NBytes(o, os, abbrevOff)...)
		hdr = append(hdr, byte(addrSize))
		if u.Sig != 0 { // .debug_types
			hdr = append(hdr, NBytes(o, 8, u.Sig)...)
			hdr = append(hdr, NBytes(o, os, u.TypeOff)...)
		}
		return hdr
	}
	ut := u.UnitType
	if ut == 0 {
		ut = dwarf.UTCompile
	}
	hdr = append(hdr, byte(ut), byte(addrSize))
	hdr = append(hdr, NBytes(o, os, abbrevOff)...)
	switch ut {
	case dwarf.UTSkeleton, dwarf.UTSplitCompile:
		hdr = append(hdr, NBytes(o, 8, u.Sig)...)
	case dwarf.UTType, dwarf.UTSplitType:
		hdr = append(hdr, NBytes(o, 8, u.Sig)...)
		hdr = append(hdr, NBytes(o, os, u.TypeOff)...)
	}
	return hdr
}

// lengthSize is the size of the unit_length field.
func (u *Unit) lengthSize() int {
	if u.Off64 {
		return 12
	}
	return 4
}

// HeaderSize is the size of the unit's header, unit_length included: the
// offset of its unit DIE from the unit's start.
func (u *Unit) HeaderSize() int { return u.lengthSize() + len(u.header(0)) }

// Encode returns the unit's .debug_info bytes, and abbrev with the unit's
// abbreviation table appended (the header points at it).
func (u *Unit) Encode(abbrev []byte) (info, abbrevOut []byte) {
	o := u.order()
	abbrevOff := uint64(len(abbrev))
	hdr := u.header(abbrevOff)
	start := u.lengthSize() + len(hdr)
	codes := map[string]uint64{}
	next := uint64(0)
	var body bytes.Buffer
	type fix struct {
		pos int
		d   *DIE
	}
	var fixes []fix
	var walk func(d *DIE)
	walk = func(d *DIE) {
		var key bytes.Buffer
		key.Write(ULEB(uint64(d.Tag)))
		key.WriteByte(map[bool]byte{false: 0, true: 1}[len(d.Kids) > 0])
		for _, a := range d.Attrs {
			key.Write(ULEB(uint64(a.At)))
			key.Write(ULEB(uint64(a.Form)))
			if a.Form == dwarf.FormImplicitConst {
				key.Write(SLEB(a.Implicit))
			}
		}
		code, ok := codes[key.String()]
		if !ok || !u.ShareAbbrevs {
			next++
			code = next
			codes[key.String()] = code
			abbrev = append(abbrev, ULEB(code)...)
			abbrev = append(abbrev, key.Bytes()...)
			abbrev = append(abbrev, 0, 0)
		}
		d.off = start + body.Len()
		body.Write(ULEB(code))
		for _, a := range d.Attrs {
			if a.Ref != nil {
				fixes = append(fixes, fix{body.Len(), a.Ref})
				body.Write(make([]byte, 4))
				continue
			}
			body.Write(a.Val)
		}
		for _, k := range d.Kids {
			walk(k)
		}
		if len(d.Kids) > 0 {
			body.WriteByte(0)
		}
	}
	walk(u.Root)
	abbrev = append(abbrev, 0)
	b := body.Bytes()
	for _, f := range fixes {
		o.PutUint32(b[f.pos:], uint32(f.d.off))
	}
	length := uint64(len(hdr) + len(b))
	if u.Off64 {
		info = append(NBytes(o, 4, 0xffffffff), NBytes(o, 8, length)...)
	} else {
		info = NBytes(o, 4, length)
	}
	info = append(info, hdr...)
	return append(info, b...), abbrev
}
