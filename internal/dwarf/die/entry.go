package die

import (
	"bytes"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// Field is one decoded attribute. How Val and Data are filled depends on the
// form (after DW_FORM_indirect has been followed; Form is the real form):
//
//   - addr, addrx*, GNU_addr_index: Val is the address (index forms are
//     looked up in .debug_addr at the unit's addr_base).
//   - data1/2/4/8, udata: Val is the zero-extended value. sdata and
//     implicit_const: Val is the value as int64 bits (see Int). data16: Data
//     holds the 16 bytes.
//   - flag: Val is the stored byte; flag_present: Val is 1.
//   - block*, exprloc: Data is the block, Val its length.
//   - string, strp, line_strp, strx*, GNU_str_index, strp_sup, GNU_strp_alt:
//     Data is the string without its NUL and Val its offset in the section
//     holding it (.debug_info, .debug_str, .debug_line_str, or the
//     supplementary file's .debug_str).
//   - ref1/2/4/8, ref_udata: Val is the absolute offset of the referenced DIE
//     in the unit's section. ref_addr: Val is the absolute .debug_info offset.
//     ref_sig8: Val is the type signature (see Data.TypeBySignature).
//     GNU_ref_alt, ref_sup4/8: Val is the .debug_info offset in the
//     supplementary file.
//   - sec_offset: Val is the offset in the section the attribute points to.
//   - rnglistx, loclistx: Val is the list's absolute offset in
//     .debug_rnglists or .debug_loclists, resolved through the unit's
//     rnglists_base or loclists_base offset table.
//
// Data aliases section bytes: it stays valid as long as the Sections do and
// must not be modified. A Reader with lazy strings (Reader.SetLazyStrings)
// leaves the end of strp and line_strp strings to be found by Str: their
// Data then runs on past the string, to the end of the section.
type Field struct {
	Attr dwarf.Attr // DW_AT_*
	Form dwarf.Form
	lazy bool // Data starts with the string and runs on to the section's end
	Val  uint64
	Data []byte
}

// Int returns Val as a signed number, as meant for sdata and implicit_const.
func (f *Field) Int() int64 { return int64(f.Val) }

// Str returns the field's string (Data for string forms) without copying
// it.
func (f *Field) Str() string {
	if f.lazy {
		// The section ends with a NUL (see Reader.SetLazyStrings).
		return str(f.Data[:bytes.IndexByte(f.Data, 0)])
	}
	return str(f.Data)
}

// StrOffset returns the offset in .debug_str of the field's string, for the
// forms that read it there (strp, and strx and GNU_str_index once
// resolved); ok is false for other forms (inline strings, line_strp,
// supplementary files).
func (f *Field) StrOffset() (off uint64, ok bool) {
	switch f.Form {
	case dwarf.FormStrp:
		return f.Val, true
	case dwarf.FormStrx, dwarf.FormStrx1, dwarf.FormStrx2, dwarf.FormStrx3, dwarf.FormStrx4, dwarf.FormGNUStrIndex:
		return f.Val, f.Data != nil
	}
	return 0, false
}

// IsRef reports whether the field references a DIE of the same section by
// offset (ref1/2/4/8, ref_udata, ref_addr); Val is then that offset.
func (f *Field) IsRef() bool {
	switch f.Form {
	case dwarf.FormRef1, dwarf.FormRef2, dwarf.FormRef4, dwarf.FormRef8, dwarf.FormRefUdata, dwarf.FormRefAddr:
		return true
	}
	return false
}

// Entry is one decoded DIE. Callers own it and pass it to every decode call;
// its Fields buffer is reused and grows only when a DIE has more attributes
// than any before, so decoding into the same Entry allocates nothing in the
// steady state. Its contents stay valid until the next decode into it.
type Entry struct {
	Offset   uint64    // offset of the DIE in its unit's section
	Tag      dwarf.Tag // DW_TAG_*
	Children bool      // whether children follow
	Depth    int       // nesting level: 0 for the unit DIE, 1 for its children, ...
	Sibling  uint64    // DW_AT_sibling's target, 0 when absent
	Unit     *Unit     // the unit holding the DIE
	Fields   []Field

	// AttrPos is the offset in the unit's section (Unit.Bytes) of the
	// DIE's attribute values when a Reader with SetDeferFixed left them
	// undecoded, and -1 otherwise; Code is then the DIE's abbreviation
	// code, for Unit.FixedLayout.
	AttrPos int
	Code    uint64
}

// Field returns the entry's attribute attr, or nil when absent.
func (e *Entry) Field(attr dwarf.Attr) *Field {
	for i := range e.Fields {
		if e.Fields[i].Attr == attr {
			return &e.Fields[i]
		}
	}
	return nil
}

// Val returns the value of attribute attr and whether it is present.
func (e *Entry) Val(attr dwarf.Attr) (uint64, bool) {
	if f := e.Field(attr); f != nil {
		return f.Val, true
	}
	return 0, false
}
