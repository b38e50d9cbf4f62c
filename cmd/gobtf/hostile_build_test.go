package main

import "github.com/gobtf/gobtf/internal/testutil/dwarfgen"

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

	atName          = 0x03
	atByteSize      = 0x0b
	atLanguage      = 0x13
	atUpperBound    = 0x2f
	atCount         = 0x37
	atDataMemberLoc = 0x38
	atEncoding      = 0x3e
	atExternal      = 0x3f
	atType          = 0x49
	atDeclaration   = 0x3c
	formData1       = 0x0b
	formData4       = 0x06
	formData8       = 0x07
	formString      = 0x08
	formUdata       = 0x0f
	formRef4        = 0x13
	formFlagPresent = 0x19
	encSigned       = 0x05
	langC99         = 0x0c
	dwarfVersion    = 4
)

// hAttr and hDIE are dwarfgen's attribute and DIE: a DW_FORM_ref4 value
// is given by the DIE it points at (Ref).
type (
	hAttr = dwarfgen.Attr
	hDIE  = dwarfgen.DIE
	// elfSection is one section of a file built by relocatableELF.
	elfSection = dwarfgen.Section
)

// relocatableELF returns a little-endian x86-64 ET_REL file holding the
// given sections and a section name table.
var relocatableELF = dwarfgen.RelocatableELF

var uleb = dwarfgen.ULEB

func str(s string) hAttr            { return hAttr{At: atName, Form: formString, Val: append([]byte(s), 0)} }
func data1(at uint64, v byte) hAttr { return hAttr{At: at, Form: formData1, Val: []byte{v}} }
func udata(at, v uint64) hAttr      { return hAttr{At: at, Form: formUdata, Val: uleb(v)} }
func typeRef(d *hDIE) hAttr         { return hAttr{At: atType, Form: formRef4, Ref: d} }

// dwarfUnit encodes root as one DWARF 4 compile unit with 8-byte addresses:
// it returns .debug_info and .debug_abbrev. DIEs with the same tag, child
// flag and attribute forms share an abbreviation.
func dwarfUnit(root *hDIE) (info, abbrev []byte) {
	return (&dwarfgen.Unit{Version: dwarfVersion, Root: root, ShareAbbrevs: true}).Encode(nil)
}

// cu wraps DIEs into a C99 compile unit.
func cu(kids ...*hDIE) *hDIE {
	return &hDIE{Tag: tagCompileUnit, Attrs: []hAttr{str("hostile.c"), data1(atLanguage, langC99)}, Kids: kids}
}

// intType is a 4-byte signed base type named int.
func intType() *hDIE {
	return &hDIE{Tag: tagBaseType, Attrs: []hAttr{str("int"), data1(atByteSize, 4), data1(atEncoding, encSigned)}}
}

// dwarfELF is a relocatable ELF file carrying the unit built from root.
func dwarfELF(root *hDIE) []byte {
	info, abbrev := dwarfUnit(root)
	return relocatableELF(elfSection{Name: ".debug_info", Data: info}, elfSection{Name: ".debug_abbrev", Data: abbrev})
}
