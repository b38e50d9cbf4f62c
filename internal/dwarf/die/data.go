// Package die is the pipeline's DWARF reader: it decodes debugging
// information entries straight from section bytes, without allocating per
// DIE, filtering in the reader what the conversion does not use. Malformed
// input yields a *DecodeError naming section and offset, never a panic.
// docs/design.md says why gobtf has its own decoder.
package die

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// Sections holds the raw contents of the DWARF sections of one object file,
// relocations already applied (or not needed, as in linked executables). Only
// Info and Abbrev are required; a missing section is nil, and a form that
// needs it fails with a DecodeError when met. Loc and Ranges (DWARF 2-4 list
// sections) are kept for callers; DIE decoding does not read them.
type Sections struct {
	Info, Abbrev, Str, LineStr, StrOffsets, Addr []byte
	RngLists, LocLists, Loc, Ranges, Types       []byte

	// Order is the byte order of the file; nil means little endian.
	Order binary.ByteOrder

	// Sup is the decoded supplementary file (the dwz "alt" file named by
	// .gnu_debugaltlink, or a DWARF 5 .debug_sup file), needed to resolve
	// DW_FORM_GNU_strp_alt and DW_FORM_strp_sup strings and to accept
	// DW_FORM_GNU_ref_alt and DW_FORM_ref_sup4/8 references. May be nil.
	Sup *Data

	// Skeleton is the decoded executable or object whose skeleton units
	// describe the split units of this file (a .dwo). Split units take
	// their addr_base, and the file its .debug_addr when Addr is nil, from
	// the skeleton unit with the same DWO id. May be nil.
	Skeleton *Data
}

// SectionNames lists the ELF sections whose contents a Sections holds, in
// the order of Fields.
var SectionNames = [...]string{
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
	".debug_str_offsets", ".debug_addr", ".debug_rnglists", ".debug_loclists",
	".debug_loc", ".debug_ranges", ".debug_types",
}

// Fields returns pointers to the section fields of s, in SectionNames'
// order, for filling s from a file by name.
func (s *Sections) Fields() [len(SectionNames)]*[]byte {
	return [...]*[]byte{&s.Info, &s.Abbrev, &s.Str, &s.LineStr, &s.StrOffsets, &s.Addr,
		&s.RngLists, &s.LocLists, &s.Loc, &s.Ranges, &s.Types}
}

// Unit is one unit header of .debug_info or .debug_types plus the attributes
// of its unit DIE that decoding and callers need. Offsets are absolute in the
// unit's Section.
type Unit struct {
	Section      Section
	Offset       uint64         // offset of the unit header
	DIEOffset    uint64         // offset of the unit DIE, just after the header
	End          uint64         // offset just after the unit
	Version      uint16         // 2 to 5
	UnitType     dwarf.UnitType // DW_UT_*; dwarf.UTCompile or dwarf.UTType before DWARF 5
	AddrSize     uint8          // size of target addresses
	OffsetSize   uint8          // 4, or 8 for 64-bit DWARF
	AbbrevOffset uint64         // offset of the unit's table in .debug_abbrev
	Signature    uint64         // type units: the type signature; skeleton and split units: the DWO id (DW_AT_GNU_dwo_id before DWARF 5)
	TypeOffset   uint64         // type units: absolute offset of the type's DIE

	// From the unit DIE.
	Tag            dwarf.Tag // DW_TAG_compile_unit, partial_unit, type_unit, skeleton_unit; 0 if empty
	StrOffsetsBase uint64    // DW_AT_str_offsets_base
	AddrBase       uint64    // DW_AT_addr_base (or DW_AT_GNU_addr_base)
	RngListsBase   uint64    // DW_AT_rnglists_base (or DW_AT_GNU_ranges_base)
	LocListsBase   uint64    // DW_AT_loclists_base
	Language       uint64    // DW_AT_language
	Name           string    // DW_AT_name, aliasing section data
	Producer       string    // DW_AT_producer, aliasing section data

	data    []byte // the unit's section, cut at End
	abbrevs *abbrevTable
	d       *Data
}

// Data is the shared, read-only index of one file's DWARF: its units, their
// abbreviation tables and the type signature index. After New returns it is
// never written (but see Forget), so any number of goroutines may use it,
// each through its own Reader.
type Data struct {
	sec Sections
	le  bool
	// strEnds, lineStrEnds: .debug_str, .debug_line_str end with a NUL,
	// so every offset inside them starts a terminated string.
	strEnds, lineStrEnds bool
	units                []Unit
	tunits               []Unit
	sigs                 map[uint64]sigRef
	lean                 bool // see Options.Lean
}

// Options adjust what New indexes.
type Options struct {
	// Lean makes every DIE read through the Data leave out the attributes
	// gobtf never reads, the source coordinates of declarations and inlined
	// calls (DW_AT_decl_file, decl_line, decl_column, call_file,
	// call_line, call_column), GCC's location views (DW_AT_GNU_locviews,
	// GNU_entry_view) and a few attributes BTF has no place for
	// (DW_AT_high_pc, prototyped, accessibility, noreturn, alignment and
	// the call-site summary flags), where their forms have a fixed size:
	// their values are stepped over unread and get no Field.
	// They are about two fifths of a kernel's attribute values, so a walk
	// that decodes every DIE does about a fifth less work.
	Lean bool
}

type sigRef struct {
	sec Section
	off uint64
}

// New indexes the units of s.Info and s.Types, parses each abbreviation
// table once (units naming the same offset share it) and decodes every unit
// DIE for its bases, language, name and producer. The byte slices are used
// in place and must not change while the Data is in use.
func New(s *Sections) (*Data, error) { return NewWith(s, Options{}) }

// NewWith is New with options.
func NewWith(s *Sections, o Options) (*Data, error) {
	d := &Data{sec: *s, le: s.Order == nil || s.Order == binary.LittleEndian,
		strEnds: endsWithNUL(s.Str), lineStrEnds: endsWithNUL(s.LineStr), lean: o.Lean}
	if d.sec.Addr == nil && s.Skeleton != nil {
		d.sec.Addr = s.Skeleton.sec.Addr
	}
	tables := make(map[uint64]*abbrevTable)
	var err error
	if d.units, err = d.parseUnits(SecInfo, s.Info, tables); err != nil {
		return nil, err
	}
	if d.tunits, err = d.parseUnits(SecTypes, s.Types, tables); err != nil {
		return nil, err
	}
	for _, list := range [][]Unit{d.units, d.tunits} {
		for i := range list {
			u := &list[i]
			if u.UnitType != dwarf.UTType && u.UnitType != dwarf.UTSplitType {
				continue
			}
			if d.sigs == nil {
				d.sigs = make(map[uint64]sigRef)
			}
			if _, dup := d.sigs[u.Signature]; !dup {
				d.sigs[u.Signature] = sigRef{u.Section, u.TypeOffset}
			}
		}
	}
	return d, nil
}

// Units returns the units of .debug_info in section order (compile, partial,
// type, skeleton and split units alike). The caller must not modify them.
func (d *Data) Units() []Unit { return d.units }

// Forget drops the abbreviation table of unit i of .debug_info when it is a
// compile unit, for a caller that has read all it needs of that unit, so
// that a table no other unit shares becomes garbage; reading the unit
// afterwards fails with an error. Type and partial units, which other units
// refer to, keep theirs. It is the one change to a Data after New: it writes
// only unit i's entry, so goroutines reading other units are not
// disturbed.
func (d *Data) Forget(i int) {
	if u := &d.units[i]; u.UnitType == dwarf.UTCompile {
		u.abbrevs = nil
	}
}

// TypeUnits returns the DWARF 4 type units of .debug_types.
func (d *Data) TypeUnits() []Unit { return d.tunits }

// Sup returns the supplementary file's Data given in Sections.Sup, or nil.
func (d *Data) Sup() *Data { return d.sec.Sup }

// Sections returns the sections d decodes.
func (d *Data) Sections() *Sections { return &d.sec }

// UnitAt returns the unit of sec whose DIEs contain offset off, or nil.
func (d *Data) UnitAt(sec Section, off uint64) *Unit {
	list := d.units
	if sec == SecTypes {
		list = d.tunits
	}
	i, _ := slices.BinarySearchFunc(list, off, func(u Unit, off uint64) int {
		switch {
		case u.End <= off:
			return -1
		case u.Offset > off:
			return 1
		}
		return 0
	})
	if i < len(list) && list[i].Offset <= off && off < list[i].End {
		return &list[i]
	}
	return nil
}

// TypeBySignature returns where the type DIE of the type unit with signature
// sig (the value of a DW_FORM_ref_sig8 attribute) lives.
func (d *Data) TypeBySignature(sig uint64) (sec Section, off uint64, ok bool) {
	r, ok := d.sigs[sig]
	return r.sec, r.off, ok
}

// parseUnits reads the unit headers of one section and the unit DIEs.
func (d *Data) parseUnits(sec Section, b []byte, tables map[uint64]*abbrevTable) ([]Unit, error) {
	name := sec.String()
	var units []Unit
	var scratch abbrevScratch
	for p := 0; p < len(b); {
		u := Unit{Section: sec, Offset: uint64(p), d: d}
		if len(b)-p < 4 {
			return nil, decodeErr(name, p, errTruncated)
		}
		length := u32(b, p, d.le)
		h := p + 4
		u.OffsetSize = 4
		switch {
		case length == 0xffffffff:
			if len(b)-h < 8 {
				return nil, decodeErr(name, h, errTruncated)
			}
			length = u64(b, h, d.le)
			h += 8
			u.OffsetSize = 8
		case length >= 0xfffffff0:
			return nil, decodeErrf(name, p, "reserved unit length %#x", length)
		}
		if length > uint64(len(b)-h) {
			return nil, decodeErrf(name, p, "unit length %#x past the section end", length)
		}
		end := h + int(length)
		u.End = uint64(end)
		hdr := b[:end]
		if end-h < 2 {
			return nil, decodeErr(name, h, errTruncated)
		}
		u.Version = uint16(u16(hdr, h, d.le))
		h += 2
		if u.Version < 2 || u.Version > 5 {
			return nil, decodeErrf(name, p, "unsupported DWARF version %d", u.Version)
		}
		os := int(u.OffsetSize)
		if u.Version >= 5 {
			if end-h < 2+os {
				return nil, decodeErr(name, h, errTruncated)
			}
			u.UnitType, u.AddrSize = dwarf.UnitType(hdr[h]), hdr[h+1]
			u.AbbrevOffset = uN(hdr, h+2, os, d.le)
			h += 2 + os
		} else {
			if end-h < os+1 {
				return nil, decodeErr(name, h, errTruncated)
			}
			u.AbbrevOffset = uN(hdr, h, os, d.le)
			u.AddrSize = hdr[h+os]
			h += os + 1
			u.UnitType = dwarf.UTCompile
			if sec == SecTypes {
				u.UnitType = dwarf.UTType
			}
		}
		switch u.UnitType {
		case dwarf.UTCompile, dwarf.UTPartial:
		case dwarf.UTSkeleton, dwarf.UTSplitCompile:
			if end-h < 8 {
				return nil, decodeErr(name, h, errTruncated)
			}
			u.Signature = u64(hdr, h, d.le)
			h += 8
		case dwarf.UTType, dwarf.UTSplitType:
			if end-h < 8+os {
				return nil, decodeErr(name, h, errTruncated)
			}
			u.Signature = u64(hdr, h, d.le)
			to := uN(hdr, h+8, os, d.le)
			h += 8 + os
			if to < uint64(h-p) || to >= uint64(end-p) {
				return nil, decodeErrf(name, p, "type offset %#x outside its unit", to)
			}
			u.TypeOffset = uint64(p) + to
		default:
			return nil, decodeErrf(name, p, "unit type %#x: %w", u.UnitType, ErrUnsupported)
		}
		switch u.AddrSize {
		case 1, 2, 4, 8:
		default:
			return nil, decodeErrf(name, p, "address size %d", u.AddrSize)
		}
		u.DIEOffset = uint64(h)
		u.data = hdr
		t, ok := tables[u.AbbrevOffset]
		if !ok {
			var err error
			if t, err = parseAbbrevTable(d.sec.Abbrev, u.AbbrevOffset, &scratch, d.lean); err != nil {
				return nil, err
			}
			tables[u.AbbrevOffset] = t
		}
		u.abbrevs = t
		units = append(units, u)
		p = end
	}
	// The unit DIEs are read once all units sit at their final addresses.
	for i := range units {
		if err := d.readUnitDIE(&units[i]); err != nil {
			return nil, err
		}
	}
	return units, nil
}

// readUnitDIE decodes u's unit DIE twice: first leaving index forms
// unresolved to learn the bases (which may follow the attributes that need
// them), then for real to get the name and producer strings.
func (d *Data) readUnitDIE(u *Unit) error {
	if u.DIEOffset >= u.End {
		return nil
	}
	var e Entry
	r := Reader{d: d}
	r.raw = true
	if err := r.entryIn(u, u.DIEOffset, &e); err != nil {
		return err
	}
	u.Tag = e.Tag
	if u.UnitType == dwarf.UTSplitCompile || u.UnitType == dwarf.UTSplitType {
		// Split units have no base attributes: their index tables follow
		// the DWARF 5 section headers.
		if u.Version >= 5 {
			u.StrOffsetsBase = 2 * uint64(u.OffsetSize)
			u.RngListsBase = 4 + 2*uint64(u.OffsetSize)
			u.LocListsBase = u.RngListsBase
		}
	}
	for _, f := range e.Fields {
		switch f.Attr {
		case dwarf.AttrStrOffsetsBase:
			u.StrOffsetsBase = f.Val
		case dwarf.AttrAddrBase, dwarf.AttrGNUAddrBase:
			u.AddrBase = f.Val
		case dwarf.AttrRnglistsBase, dwarf.AttrGNURangesBase:
			u.RngListsBase = f.Val
		case dwarf.AttrLoclistsBase:
			u.LocListsBase = f.Val
		case dwarf.AttrLanguage:
			u.Language = f.Val
		case dwarf.AttrGNUDWOID:
			if u.Version < 5 {
				u.Signature = f.Val
			}
		}
	}
	if sk := d.sec.Skeleton; sk != nil && (u.UnitType == dwarf.UTSplitCompile || u.Version < 5) {
		for i := range sk.units {
			if s := &sk.units[i]; s.Signature == u.Signature && s.Signature != 0 &&
				(s.UnitType == dwarf.UTSkeleton || s.Version < 5) {
				u.AddrBase = s.AddrBase
				if u.Version < 5 {
					u.RngListsBase = s.RngListsBase
				}
				break
			}
		}
	}
	r.raw = false
	if err := r.entryIn(u, u.DIEOffset, &e); err != nil {
		return err
	}
	for _, f := range e.Fields {
		switch f.Attr {
		case dwarf.AttrName:
			u.Name = f.Str()
		case dwarf.AttrProducer:
			u.Producer = f.Str()
		}
	}
	return nil
}

// endsWithNUL reports whether b's last byte is a NUL.
func endsWithNUL(b []byte) bool { return len(b) > 0 && b[len(b)-1] == 0 }

// str views b as a string without copying.
func str(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// HasTypeUnits reports whether the file has type units (DWARF 4 .debug_types
// or DWARF 5 type units), which DW_FORM_ref_sig8 references point into.
func (d *Data) HasTypeUnits() bool { return len(d.sigs) > 0 }
