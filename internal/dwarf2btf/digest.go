package dwarf2btf

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// digest is the digest of one DIE: its position in the tree and the attributes
// the converter reads, decoded into fixed fields. One digest is reused for every
// DIE of a walk, so decoding allocates nothing; strings alias the decoder's
// section data. A field's has* flag tells an absent attribute from a zero one.
//
// The fields without pointers sit in the embedded digestScalars, which reset
// clears whole; the few that hold pointers follow it.
type digest struct {
	digestScalars

	name string // DW_AT_name, or "" while nameField holds it unread (see nm)
	// nameField is DW_AT_name as decoded with lazy strings (valid when
	// hasNameField is set): most DIEs' names are never read, so their ends
	// are not looked for.
	nameField die.Field

	// strSec is .debug_str, where nameOff points when strpName is set.
	strSec []byte

	constString string // DW_AT_const_value, string forms (annotations)
	location    []byte // DW_AT_location as an expression (exprloc/block forms)
	producer    string // DW_AT_producer (unit DIEs)
}

// digestScalars are the fields of a digest that hold no pointers. The
// values come first and the flags after them, packed, so that reset, which
// clears them for every DIE, has 160 bytes to clear rather than 208.
type digestScalars struct {
	off           uint64 // offset of the DIE in .debug_info
	nameOff       uint64 // see strpName
	typ           uint64 // DW_AT_type: offset of the referenced DIE in .debug_info
	byteSize      uint64 // DW_AT_byte_size
	bitSize       uint64 // DW_AT_bit_size
	encoding      uint64 // DW_AT_encoding
	dataBitOffset uint64 // DW_AT_data_bit_offset
	memberLoc     uint64 // DW_AT_data_member_location (constant or DW_OP_plus_uconst)
	bitOffset     uint64 // DW_AT_bit_offset (DWARF 2-4 bitfields, counted from the MSB)
	upperBound    uint64 // DW_AT_upper_bound (constant forms only)
	count         uint64 // DW_AT_count (constant forms only)
	constValue    uint64 // DW_AT_const_value, integer forms (sdata sign-extended)
	specification uint64 // DW_AT_specification
	signature     uint64 // DW_AT_signature of a type unit's stub: its type's DIE
	gnuAnnot      uint64 // DW_AT_GNU_annotation: the first of gcc's annotation DIEs for this one
	addrBase      uint64 // DW_AT_addr_base (unit DIEs)
	language      uint64 // DW_AT_language (unit DIEs)
	sink          uint64 // where a compiled plan puts values nothing reads (plans.go)
	tag           dwarf.Tag
	children      bool

	lazyName     bool // nameField or nameOff holds the name, not yet read into name
	hasNameField bool // nameField holds this DIE's DW_AT_name
	// strpName: DW_AT_name is the string at nameOff in strSec, as a
	// compiled plan reads it (plans.go) instead of nameField.
	strpName bool

	hasTyp             bool
	hasByteSize        bool
	hasDataBitOffset   bool
	hasMemberLoc       bool
	hasUpperBound      bool
	upperBoundNotConst bool // DW_AT_upper_bound present in a non-constant form
	hasCount           bool
	hasConstValue      bool // DW_AT_const_value, in constValue or constString
	declaration        bool // DW_AT_declaration
	external           bool // DW_AT_external
	artificial         bool // DW_AT_artificial
	hasAddrBase        bool
	sinkFlag           bool // sink's flag
}

// reset clears d for the next DIE. It runs for every DIE of a walk, and
// clearing a pointer costs a write barrier while the collector runs (which,
// with the frequent collections of a kernel's conversion, is much of the
// time; package tuning sets them): so the pointer
// fields are cleared only when set, which few DIEs do but for nameField,
// which hasNameField guards instead.
func (d *digest) reset() {
	d.digestScalars = digestScalars{}
	if d.name != "" {
		d.name = ""
	}
	if d.constString != "" {
		d.constString = ""
	}
	if d.location != nil {
		d.location = nil
	}
	if d.producer != "" {
		d.producer = ""
	}
}

// nm returns DW_AT_name.
func (d *digest) nm() string {
	if d.lazyName {
		if d.strpName {
			d.name = die.StrAt(d.strSec, d.nameOff)
		} else {
			d.name = d.nameField.Str()
		}
		d.lazyName = false
	}
	return d.name
}
