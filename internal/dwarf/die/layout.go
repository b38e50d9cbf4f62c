package die

import (
	"bytes"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// Fixed layouts.
//
// Most DIEs of a compiler's output have only attributes whose values have a
// fixed size once the unit's offset and address sizes are known: a struct
// member is typically a string offset, a type reference and a one-byte
// location. For such an abbreviation every value sits at the same offset
// from the start of each DIE's values, so a caller that reads a few known
// attributes can compile, per abbreviation, where to find them, and read
// them in place instead of having every value decoded into Fields and then
// looked through. Reader.SetDeferFixed and Unit.FixedLayout give it what it
// needs; the Reader still does the walk, the bounds and the depth.

// commonSize returns the total size of an abbreviation's values in a unit
// of the common shape (4-byte offsets, 8-byte addresses, DWARF 3 or later,
// as on every 64-bit Linux target), or -1 when some value's size depends
// on the value itself (LEB128 numbers, inline strings, blocks, indirect
// forms).
func commonSize(specs []attrSpec) int32 {
	var n int32
	for _, s := range specs {
		sz := commonFormSize(s)
		if sz < 0 || n > 1<<24 {
			return -1
		}
		n += int32(sz)
	}
	return n
}

// commonFormSize is the size of spec s's value in a unit of the common
// shape, or -1 when not fixed.
func commonFormSize(s attrSpec) int {
	switch s.form {
	case formSkip:
		return int(s.implicit)
	case dwarf.FormStrp, dwarf.FormLineStrp, dwarf.FormSecOffset, dwarf.FormRefAddr, dwarf.FormStrpSup, dwarf.FormGNURefAlt, dwarf.FormGNUStrpAlt:
		return 4
	case dwarf.FormAddr:
		return 8
	}
	return fixedSize(s.form)
}

// isCommonShape reports whether u has the common shape commonSize assumes.
func (u *Unit) isCommonShape() bool {
	return u.OffsetSize == 4 && u.AddrSize == 8 && u.Version >= 3
}

// fixedLen returns the size of the values of every DIE of abbreviation a in
// u, or -1 when it varies from DIE to DIE.
func (u *Unit) fixedLen(a *abbrev) int32 { return a.fixedIn(u.isCommonShape()) }

// fixedIn is fixedLen for a unit of the common shape or not.
func (a *abbrev) fixedIn(common bool) int32 {
	if common {
		return a.fixSize
	}
	return a.skipSize
}

// LayoutField is one attribute of an abbreviation with a fixed layout: its
// value is Size bytes at offset Off from the start of each DIE's values
// (Entry.AttrPos), little-endian. Const is the value of an implicit_const
// form, whose Size is 0.
type LayoutField struct {
	Attr  dwarf.Attr
	Form  dwarf.Form
	Off   int
	Size  int
	Const int64
}

// FixedLayout appends to buf the attributes of abbreviation code of u,
// with their places, and reports whether its DIEs have a fixed layout in u
// that a caller can read in place: every value of a fixed size, and the
// section little-endian. Attributes a lean Data steps over are left out;
// their bytes are still counted in the offsets.
func (u *Unit) FixedLayout(code uint64, buf []LayoutField) ([]LayoutField, bool) {
	a := u.abbrevs.lookup(code)
	if a == nil || !u.d.le || u.fixedLen(a) < 0 {
		return buf, false
	}
	common := u.isCommonShape()
	off := 0
	for _, s := range u.abbrevs.specs[a.first : a.first+a.n] {
		sz := fixedSize(s.form)
		if common || s.form == formSkip {
			sz = commonFormSize(s)
		}
		if s.form != formSkip {
			f := LayoutField{Attr: s.attr, Form: s.form, Off: off, Size: sz}
			if s.form == dwarf.FormImplicitConst {
				f.Const = u.abbrevs.implicit[s.implicit]
			}
			buf = append(buf, f)
		}
		off += sz
	}
	return buf, true
}

// Bytes returns u's section, which Entry.AttrPos and the offsets of
// references count in. It must not be modified.
func (u *Unit) Bytes() []byte { return u.data }

// DecodeDeferred decodes the Fields of e, the DIE the last Next returned,
// when Next left them undecoded (SetDeferFixed), as Next would have. It does
// nothing for an entry whose Fields are decoded.
func (r *Reader) DecodeDeferred(e *Entry) error {
	if e.AttrPos < 0 {
		return nil
	}
	u := e.Unit
	a := u.abbrevs.lookup(e.Code)
	if a == nil {
		r.done = true
		return decodeErrf(u.Section.String(), e.AttrPos, "%w %d", errBadAbbrev, e.Code)
	}
	if _, err := r.decodeAttrs(u, a, e.AttrPos, e); err != nil {
		r.done = true
		return err
	}
	e.AttrPos = -1
	if r.lastValid {
		r.lastSibling = e.Sibling
	}
	return nil
}

// StrxOffset returns the .debug_str offset of u's string index idx (the
// value of a strx1-4 form), as Next resolves it; ok is false where Next
// would fail: an index outside .debug_str_offsets, or an offset that
// starts no terminated string in .debug_str.
func (u *Unit) StrxOffset(idx uint64) (off uint64, ok bool) {
	d := u.d
	if off, ok = entryAt(d.sec.StrOffsets, u.StrOffsetsBase, idx, int(u.OffsetSize), d.le); !ok {
		return 0, false
	}
	if d.strEnds {
		return off, off < uint64(len(d.sec.Str))
	}
	return off, cstr(d.sec.Str, off) != nil
}

// StrSection returns .debug_str and whether it ends with a NUL, so that
// StrAt may read any offset inside it.
func (d *Data) StrSection() (sec []byte, terminated bool) { return d.sec.Str, d.strEnds }

// StrAt returns the string at offset off of sec, up to its NUL, without
// copying. sec must end with a NUL and off must lie inside it.
func StrAt(sec []byte, off uint64) string {
	b := sec[off:]
	return str(b[:bytes.IndexByte(b, 0)])
}
