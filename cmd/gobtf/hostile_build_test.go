package main

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/testutil/dwarfgen"
)

// This file builds hostile inputs without a compiler: a DWARF 4 unit from a
// tree of DIEs, and a minimal x86-64 relocatable ELF file that carries it.

// dwarfVersion is the version of the units the hostile inputs are made of.
const dwarfVersion = 4

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

func str(s string) hAttr {
	return hAttr{At: dwarf.AttrName, Form: dwarf.FormString, Val: append([]byte(s), 0)}
}
func data1(at dwarf.Attr, v byte) hAttr   { return hAttr{At: at, Form: dwarf.FormData1, Val: []byte{v}} }
func udata(at dwarf.Attr, v uint64) hAttr { return hAttr{At: at, Form: dwarf.FormUdata, Val: uleb(v)} }
func typeRef(d *hDIE) hAttr               { return hAttr{At: dwarf.AttrType, Form: dwarf.FormRef4, Ref: d} }

// dwarfUnit encodes root as one DWARF 4 compile unit with 8-byte addresses:
// it returns .debug_info and .debug_abbrev. DIEs with the same tag, child
// flag and attribute forms share an abbreviation.
func dwarfUnit(root *hDIE) (info, abbrev []byte) {
	return (&dwarfgen.Unit{Version: dwarfVersion, Root: root, ShareAbbrevs: true}).Encode(nil)
}

// cu wraps DIEs into a C99 compile unit.
func cu(kids ...*hDIE) *hDIE {
	return &hDIE{Tag: dwarf.TagCompileUnit, Attrs: []hAttr{str("hostile.c"), data1(dwarf.AttrLanguage, byte(dwarf.LangC99))}, Kids: kids}
}

// intType is a 4-byte signed base type named int.
func intType() *hDIE {
	return &hDIE{Tag: dwarf.TagBaseType, Attrs: []hAttr{str("int"), data1(dwarf.AttrByteSize, 4), data1(dwarf.AttrEncoding, byte(dwarf.EncSigned))}}
}

// dwarfELF is a relocatable ELF file carrying the unit built from root.
func dwarfELF(root *hDIE) []byte {
	info, abbrev := dwarfUnit(root)
	return relocatableELF(elfSection{Name: ".debug_info", Data: info}, elfSection{Name: ".debug_abbrev", Data: abbrev})
}
