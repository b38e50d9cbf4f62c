package main

import (
	"bytes"
	"encoding/binary"
)

// This file builds hostile inputs without a compiler: a DWARF 4 unit from a
// tree of DIEs, and a minimal x86-64 relocatable ELF file that carries it.

// DWARF constants used by the hostile DIE trees.
const (
	tagArrayType     = 0x01
	tagMember        = 0x0d
	tagPointerType   = 0x0f
	tagCompileUnit   = 0x11
	tagStructureType = 0x13
	tagTypedef       = 0x16
	tagSubrangeType  = 0x21
	tagBaseType      = 0x24
	tagConstType     = 0x26
	tagVariable      = 0x34
	tagVolatileType  = 0x35

	atName             = 0x03
	atByteSize         = 0x0b
	atLanguage         = 0x13
	atUpperBound       = 0x2f
	atCount            = 0x37
	atDataMemberLoc    = 0x38
	atEncoding         = 0x3e
	atExternal         = 0x3f
	atType             = 0x49
	atDeclaration      = 0x3c
	formData1          = 0x0b
	formData4          = 0x06
	formData8          = 0x07
	formString         = 0x08
	formUdata          = 0x0f
	formRef4           = 0x13
	formFlagPresent    = 0x19
	encSigned          = 0x05
	langC99            = 0x0c
	dwarfVersion       = 4
	dwarfUnitHeaderLen = 11 // unit_length, version, debug_abbrev_offset, address_size
)

// hAttr is one attribute of a hostile DIE; ref, when set, is the DIE a
// DW_FORM_ref4 value points at (resolved once every offset is known).
type hAttr struct {
	at, form uint64
	val      []byte
	ref      *hDIE
}

// hDIE is one DIE of a hostile tree.
type hDIE struct {
	tag   uint64
	attrs []hAttr
	kids  []*hDIE
	off   int // unit-relative offset, set by encode
}

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func str(s string) hAttr            { return hAttr{at: atName, form: formString, val: append([]byte(s), 0)} }
func data1(at uint64, v byte) hAttr { return hAttr{at: at, form: formData1, val: []byte{v}} }
func udata(at, v uint64) hAttr      { return hAttr{at: at, form: formUdata, val: uleb(v)} }
func typeRef(d *hDIE) hAttr         { return hAttr{at: atType, form: formRef4, ref: d} }

// dwarfUnit encodes root as one DWARF 4 compile unit with 8-byte addresses:
// it returns .debug_info and .debug_abbrev. DIEs with the same tag, child
// flag and attribute forms share an abbreviation.
func dwarfUnit(root *hDIE) (info, abbrev []byte) {
	codes := map[string]uint64{}
	var body bytes.Buffer
	type fix struct {
		pos int
		d   *hDIE
	}
	var fixes []fix
	var walk func(d *hDIE)
	walk = func(d *hDIE) {
		var key bytes.Buffer
		key.Write(uleb(d.tag))
		if len(d.kids) > 0 {
			key.WriteByte(1)
		} else {
			key.WriteByte(0)
		}
		for _, a := range d.attrs {
			key.Write(uleb(a.at))
			key.Write(uleb(a.form))
		}
		code, ok := codes[key.String()]
		if !ok {
			code = uint64(len(codes) + 1)
			codes[key.String()] = code
			abbrev = append(abbrev, uleb(code)...)
			abbrev = append(abbrev, key.Bytes()...)
			abbrev = append(abbrev, 0, 0)
		}
		d.off = dwarfUnitHeaderLen + body.Len()
		body.Write(uleb(code))
		for _, a := range d.attrs {
			if a.ref != nil {
				fixes = append(fixes, fix{body.Len(), a.ref})
				body.Write(make([]byte, 4))
				continue
			}
			body.Write(a.val)
		}
		for _, k := range d.kids {
			walk(k)
		}
		if len(d.kids) > 0 {
			body.WriteByte(0)
		}
	}
	walk(root)
	abbrev = append(abbrev, 0)
	b := body.Bytes()
	for _, f := range fixes {
		binary.LittleEndian.PutUint32(b[f.pos:], uint32(f.d.off))
	}
	le := binary.LittleEndian
	info = le.AppendUint32(nil, uint32(2+4+1+len(b)))
	info = le.AppendUint16(info, dwarfVersion)
	info = le.AppendUint32(info, 0)
	info = append(info, 8)
	return append(info, b...), abbrev
}

// cu wraps DIEs into a C99 compile unit.
func cu(kids ...*hDIE) *hDIE {
	return &hDIE{tag: tagCompileUnit, attrs: []hAttr{str("hostile.c"), data1(atLanguage, langC99)}, kids: kids}
}

// intType is a 4-byte signed base type named int.
func intType() *hDIE {
	return &hDIE{tag: tagBaseType, attrs: []hAttr{str("int"), data1(atByteSize, 4), data1(atEncoding, encSigned)}}
}

// elfSection is one section of a file built by relocatableELF.
type elfSection struct {
	name string
	data []byte
}

// relocatableELF returns a little-endian x86-64 ET_REL file holding the
// given sections (as PROGBITS) and a section name table; the section header
// table comes last, as compilers place it.
func relocatableELF(secs ...elfSection) []byte {
	le := binary.LittleEndian
	shstr := []byte{0}
	nameOff := make([]int, len(secs)+1)
	for i, s := range secs {
		nameOff[i] = len(shstr)
		shstr = append(append(shstr, s.name...), 0)
	}
	nameOff[len(secs)] = len(shstr)
	shstr = append(shstr, ".shstrtab\x00"...)
	all := append(append([]elfSection{}, secs...), elfSection{".shstrtab", shstr})

	out := make([]byte, 64)
	offs := make([]int, len(all))
	for i, s := range all {
		offs[i] = len(out)
		out = append(out, s.data...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	out = append(out, make([]byte, 64)...) // section 0
	for i, s := range all {
		typ := uint32(1) // SHT_PROGBITS
		if i == len(all)-1 {
			typ = 3 // SHT_STRTAB
		}
		h := le.AppendUint32(nil, uint32(nameOff[i]))
		h = le.AppendUint32(h, typ)
		h = le.AppendUint64(h, 0) // flags
		h = le.AppendUint64(h, 0) // addr
		h = le.AppendUint64(h, uint64(offs[i]))
		h = le.AppendUint64(h, uint64(len(s.data)))
		h = le.AppendUint32(h, 0)
		h = le.AppendUint32(h, 0)
		h = le.AppendUint64(h, 1)
		h = le.AppendUint64(h, 0)
		out = append(out, h...)
	}
	copy(out, "\x7fELF\x02\x01\x01")
	le.PutUint16(out[16:], 1)  // ET_REL
	le.PutUint16(out[18:], 62) // EM_X86_64
	le.PutUint32(out[20:], 1)  // EV_CURRENT
	le.PutUint64(out[40:], uint64(shoff))
	le.PutUint16(out[52:], 64) // e_ehsize
	le.PutUint16(out[58:], 64) // e_shentsize
	le.PutUint16(out[60:], uint16(len(all)+1))
	le.PutUint16(out[62:], uint16(len(all)))
	return out
}

// dwarfELF is a relocatable ELF file carrying the unit built from root.
func dwarfELF(root *hDIE) []byte {
	info, abbrev := dwarfUnit(root)
	return relocatableELF(elfSection{".debug_info", info}, elfSection{".debug_abbrev", abbrev})
}
