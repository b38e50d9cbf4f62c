package dwarf2btf

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// Type units (DWARF 4's -fdebug-types-section, and DWARF 5 type units) hold
// a type apart from the units that use it: those refer to it by its 64-bit
// signature (DW_FORM_ref_sig8), or through a stub that carries the
// signature in DW_AT_signature. Conversion is one unit at a time, so a unit
// converts the type units it refers to as if they were part of it: after
// its own DIEs, the stream walks each type unit it has met a signature of,
// once, and those may add further type units. Deduplication then merges the
// copies that several units make, as it merges their own types.
//
// The converter keys DIEs by offset. A DWARF 4 type unit lives in
// .debug_types, whose offsets overlap .debug_info's, so the offsets of its
// DIEs, and the references inside it, are tagged with tuTag; DWARF 5 type
// units are in .debug_info, whose offsets need no tag.

// tuTag marks a DIE offset as one in .debug_types. Offsets are below 2^62
// (sections that big cannot be mapped).
const tuTag = 1 << 62

// tuWalk is a unit's walk of the type units it refers to.
type tuWalk struct {
	d     *die.Data
	r     *die.Reader // reads the type units, not the unit's own reader
	queue []*die.Unit // type units met and not yet walked
	seen  map[*die.Unit]bool
	cur   *die.Unit   // the type unit being walked; nil while in the unit
	sec   die.Section // the section of the unit being read
}

// newTUWalk returns the walk of d's type units for unit home, whose reader
// reads as the unit's reader does (lazy strings, the filter keep). When
// home is a type unit itself, it is not walked again.
func newTUWalk(d *die.Data, home *die.Unit, keep func(tag, parent dwarf.Tag, depth int) bool, fixed func(tag dwarf.Tag) bool) *tuWalk {
	r := d.NewReader()
	r.SetLazyStrings(true)
	r.SetFilter(keep, fixed)
	return &tuWalk{d: d, r: r, seen: map[*die.Unit]bool{home: true}, sec: home.Section}
}

// reader returns the reader of the type units.
func (t *tuWalk) reader() *die.Reader { return t.r }

// walking reports whether the stream is in a type unit it walks for its
// unit (false for a nil walk: the file has no type units).
func (t *tuWalk) walking() bool { return t != nil && t.cur != nil }

// advance moves to the next type unit met and not walked yet, and reports
// whether there was one.
func (t *tuWalk) advance() bool {
	if t == nil || len(t.queue) == 0 {
		return false
	}
	t.cur = t.queue[0]
	t.queue = t.queue[1:]
	t.sec = t.cur.Section
	t.r.Seek(t.cur)
	return true
}

// rewrite turns the signature references of e into plain references to the
// type's DIE (tagged when it is in .debug_types), queueing the type units
// they point into, and tags e's offset and references when e lies in
// .debug_types (also when the unit converted is a type unit there). A
// signature no type unit has is left as it is, unresolved, as a reference
// to a DIE that is not there would be.
func (t *tuWalk) rewrite(e *die.Entry) {
	inTypes := t.sec == die.SecTypes
	if inTypes {
		e.Offset |= tuTag
	}
	for i := range e.Fields {
		f := &e.Fields[i]
		switch {
		case f.Form == dwarf.FormRefSig8:
			sec, off, ok := t.d.TypeBySignature(f.Val)
			if !ok {
				continue
			}
			u := t.d.UnitAt(sec, off)
			if u == nil {
				continue
			}
			if !t.seen[u] {
				t.seen[u] = true
				t.queue = append(t.queue, u)
			}
			if sec == die.SecTypes {
				off |= tuTag
			}
			f.Form, f.Val = dwarf.FormRefAddr, off
		case inTypes && f.IsRef():
			f.Val |= tuTag
		}
	}
}
