package die

import (
	"encoding/binary"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/testutil/dwarfgen"
)

// This file builds small DWARF sections by hand, for the forms and header
// variants compilers rarely emit, through dwarfgen; hAttr, hDIE and hUnit
// are its types in this package's terms (Form, tree values), so that the
// tests' tables stay short.

// hAttr is one attribute of a hand-built DIE: its abbreviation entry and its
// encoded value bytes in .debug_info.
type hAttr struct {
	at       dwarf.Attr
	form     dwarf.Form
	implicit int64
	enc      []byte
}

// hDIE is a hand-built DIE. Each gets its own abbreviation code.
type hDIE struct {
	tag   dwarf.Tag
	attrs []hAttr
	kids  []hDIE
}

// hUnit is a hand-built unit header plus its DIE tree.
type hUnit struct {
	version  int
	off64    bool
	addrSize int
	unitType dwarf.UnitType // DWARF 5 only; 0 means dwarf.UTCompile
	sig      uint64
	typeOff  uint64 // type units: offset of the type DIE from the header start
	order    binary.ByteOrder
	root     hDIE
}

var (
	uleb128 = dwarfgen.ULEB
	sleb128 = dwarfgen.SLEB
	nbytes  = dwarfgen.NBytes // nbytes(o, n, v) encodes v in n bytes of order o
)

// gen returns d as a dwarfgen tree.
func (d *hDIE) gen() *dwarfgen.DIE {
	g := &dwarfgen.DIE{Tag: d.tag}
	for _, a := range d.attrs {
		g.Attrs = append(g.Attrs, dwarfgen.Attr{At: a.at, Form: a.form, Implicit: a.implicit, Val: a.enc})
	}
	for i := range d.kids {
		g.Kids = append(g.Kids, d.kids[i].gen())
	}
	return g
}

// gen returns h as a dwarfgen unit.
func (h *hUnit) gen() *dwarfgen.Unit {
	return &dwarfgen.Unit{Version: h.version, Off64: h.off64, AddrSize: h.addrSize, UnitType: h.unitType,
		Sig: h.sig, TypeOff: h.typeOff, Order: h.order, Root: h.root.gen()}
}

// encode returns the unit's .debug_info bytes and appends its abbreviation
// table to abbrev, which the unit's header points at. An addrSize of 0
// becomes 8, in h too, so that tests can compare with it.
func (h *hUnit) encode(abbrev []byte) (info, abbrevOut []byte) {
	if h.addrSize == 0 {
		h.addrSize = 8
	}
	return h.gen().Encode(abbrev)
}

// headerSize is the size of the unit's header, i.e. the offset of its unit
// DIE from the unit start.
func (h *hUnit) headerSize() int { return h.gen().HeaderSize() }
