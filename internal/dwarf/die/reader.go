package die

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// Reader walks the DIE tree of one unit at a time and decodes DIEs at given
// offsets. It holds per-walk state only, so each goroutine needs its own;
// many Readers may share one Data.
//
// Walk invariant: pos is the offset of the next DIE to read in u.data and
// depth its nesting level. A null entry closes one level; the walk of a unit
// ends when the unit DIE's children are closed, when a unit DIE without
// children has been read, or at the end of the unit's bytes (a missing
// closing null entry is tolerated, as debug/dwarf does).
type Reader struct {
	d          *Data
	u          *Unit
	pos        int
	depth      int
	done       bool
	raw        bool                                        // leave index forms unresolved (used while reading unit DIEs)
	lazy       bool                                        // see SetLazyStrings
	deferFixed bool                                        // see SetDeferFixed
	common     bool                                        // u.isCommonShape(), kept for Next
	keep       func(tag, parent dwarf.Tag, depth int) bool // see SetFilter
	fixed      func(tag dwarf.Tag) bool                    // see SetFilter
	dropLeaves bool                                        // see SetDropLeaves

	// verdicts caches keep's answers for the DIEs below the unit DIE, by
	// abbreviation code of the unit being read (see cachedVerdict, ask).
	verdicts []verdict

	// parents holds, at index k, the tag of the open DIE at depth k
	// (valid below depth and below its length), for the filter.
	parents [16]dwarf.Tag

	// The DIE last returned by Next, for SkipChildren.
	lastValid    bool
	lastChildren bool
	lastDepth    int
	lastSibling  uint64
}

// NewReader returns a Reader of d, positioned nowhere: call Seek first.
func (d *Data) NewReader() *Reader { return &Reader{d: d, done: true} }

// SetLazyStrings makes r leave the end of strp and line_strp strings for
// Field.Str to find, when the string section ends with a NUL (so the string
// is known to be terminated): a walk that reads the strings of few of the
// DIEs it decodes then does not scan the others. Field.Data of such a string
// runs on past it; callers must read it with Field.Str.
func (r *Reader) SetLazyStrings(on bool) { r.lazy = on }

// SetFilter makes Next decode the attributes only of the DIEs for which keep
// (given the DIE's tag, its parent's tag and its depth) returns true; the
// others are returned with their tag, depth and children flag but no
// Fields, their attribute values stepped over unread (so errors in them go
// unreported). The parent's tag is 0 for the unit DIE and for DIEs nested
// deeper than the reader keeps track of (16 levels): a filter must then
// decide without it. nil, the default, decodes every DIE.
//
// fixed, when not nil, reports the tags for which keep's answer is the same
// for every parent and at every depth but 0: the reader then asks keep
// once per abbreviation of a unit for DIEs with those tags, not for each
// DIE. (Otherwise a kernel's type walk asks for each of its millions of
// DIEs.)
func (r *Reader) SetFilter(keep func(tag, parent dwarf.Tag, depth int) bool, fixed func(tag dwarf.Tag) bool) {
	r.keep, r.fixed = keep, fixed
	clear(r.verdicts)
}

// verdict is a cached answer of the filter for one abbreviation.
type verdict uint8

const (
	verdictUnknown verdict = iota // not asked yet
	verdictKeep
	verdictSkip
	verdictAsk // the answer depends on the parent or the depth
)

// maxVerdictCode bounds the abbreviation codes whose verdicts are cached
// (they are numbered from 1; a kernel unit uses a few hundred).
const maxVerdictCode = 1 << 12

// cachedVerdict returns the verdict cached for a DIE of abbreviation code
// at r.depth (verdictUnknown for the unit DIE). It is small enough to be
// inlined into Next, which settles the keep and skip verdicts itself and
// calls ask for the others.
func (r *Reader) cachedVerdict(code uint64) verdict {
	if code < uint64(len(r.verdicts)) && r.depth > 0 {
		return r.verdicts[code]
	}
	return verdictUnknown
}

// ask asks the filter about a DIE of abbreviation a (code) whose verdict,
// v, is not cached as keep or skip: it caches the verdict of an
// abbreviation met for the first time below the unit DIE.
func (r *Reader) ask(code uint64, a *abbrev, v verdict) bool {
	keep := r.keep(a.tag, r.parentTag(), r.depth)
	if v == verdictAsk || r.depth == 0 || code >= maxVerdictCode {
		return keep
	}
	if code >= uint64(len(r.verdicts)) {
		r.verdicts = append(r.verdicts, make([]verdict, code+1-uint64(len(r.verdicts)))...)
	}
	v = verdictAsk
	if r.fixed != nil && r.fixed(a.tag) {
		v = verdictSkip
		if keep {
			v = verdictKeep
		}
	}
	r.verdicts[code] = v
	return keep
}

// SetDropLeaves makes Next, with a filter set, step over the DIEs the
// filter rejects that have no children, instead of returning them: a walk
// that only needs such a DIE to close the subtrees before it sees the same
// closings at the next DIE it is given, since that DIE sits no deeper. The
// rejected DIEs with children are still returned, as their subtrees may
// hold DIEs the filter keeps. A kernel has about a million such leaves
// (local variables, labels, call sites), which a walk otherwise takes one
// by one only to pass over them.
func (r *Reader) SetDropLeaves(on bool) { r.dropLeaves = on }

// SetDeferFixed makes Next leave undecoded the attributes of each kept DIE
// whose values have a fixed layout in its unit (Unit.FixedLayout): it
// returns such a DIE with no Fields and with AttrPos and Code set, for the
// caller to read the values in place or to have them decoded after all
// (DecodeDeferred). Values left undecoded are not checked either; the
// caller that reads them in place checks what it reads.
func (r *Reader) SetDeferFixed(on bool) { r.deferFixed = on }

// Seek positions r at the unit DIE of u, which must be one of d's units.
func (r *Reader) Seek(u *Unit) {
	if r.u != u {
		clear(r.verdicts) // the codes of another table
	}
	r.u = u
	r.common = u.isCommonShape()
	r.pos = int(u.DIEOffset)
	r.depth = 0
	r.done = u.DIEOffset >= u.End
	r.lastValid = false
}

// Unit returns the unit given to the last Seek.
func (r *Reader) Unit() *Unit { return r.u }

// Next decodes the next DIE of the unit, in depth-first order, into e and
// reports whether there was one. Null entries are consumed, not returned;
// e.Depth tells where the DIE sits in the tree. After an error the walk of
// the unit is over.
func (r *Reader) Next(e *Entry) (bool, error) {
	r.lastValid = false
	u := r.u
	for !r.done {
		b := u.data
		p := r.pos
		if p >= len(b) {
			r.done = true
			break
		}
		// leb128.Uint's one-byte case by hand: Next is too big for the
		// compiler to inline it, and almost every code is one byte.
		var code uint64
		np, ok := p+1, true
		if c := b[p]; c < 0x80 {
			code = uint64(c)
		} else if code, np, ok = leb128.UintLong(b, p); !ok {
			r.done = true
			return false, u.trunc(p)
		}
		if code == 0 {
			r.pos = np
			r.depth--
			if r.depth <= 0 {
				r.done = true
			}
			continue
		}
		a := u.abbrevs.lookup(code)
		if a == nil {
			r.done = true
			return false, decodeErrf(u.Section.String(), p, "%w %d", errBadAbbrev, code)
		}
		e.Offset, e.Tag, e.Children, e.Depth = uint64(p), a.tag, a.children, r.depth
		if e.Unit != u { // a pointer store, with a write barrier while the GC runs
			e.Unit = u
		}
		var err error
		e.AttrPos = -1
		keep := r.keep == nil
		if !keep {
			switch v := r.cachedVerdict(code); v {
			case verdictKeep:
				keep = true
			case verdictSkip:
			default:
				keep = r.ask(code, a, v)
			}
		}
		if keep {
			if sz := a.fixedIn(r.common); r.deferFixed && sz >= 0 && int(sz) <= len(b)-np {
				e.Fields, e.Sibling, e.AttrPos, e.Code = e.Fields[:0], 0, np, code
				np += int(sz)
			} else {
				np, err = r.decodeAttrs(u, a, np, e)
			}
		} else {
			e.Fields, e.Sibling = e.Fields[:0], 0
			np, err = skipAttrsSized(u, a, np, a.fixedIn(r.common))
			if err == nil && r.dropLeaves && !a.children && r.depth > 0 {
				r.pos = np
				continue
			}
		}
		if err != nil {
			r.done = true
			return false, err
		}
		r.pos = np
		r.lastValid, r.lastChildren, r.lastDepth, r.lastSibling = true, a.children, r.depth, e.Sibling
		if a.children {
			if d := r.depth; d < len(r.parents) {
				r.parents[d] = a.tag
			}
			r.depth++
		} else if r.depth == 0 {
			r.done = true
		}
		return true, nil
	}
	return false, nil
}

// parentTag returns the tag of the parent of the DIE at r.depth, or 0 when
// there is none or it is not tracked.
func (r *Reader) parentTag() dwarf.Tag {
	if d := uint(r.depth - 1); d < uint(len(r.parents)) {
		return r.parents[d]
	}
	return 0
}

// SkipChildren makes the next Next return the sibling of the DIE the last
// Next returned, skipping its subtree. It jumps to DW_AT_sibling when that
// points forward inside the unit, and otherwise steps over the children
// without decoding their values. It does nothing when the last DIE has no
// children or when called other than right after Next.
func (r *Reader) SkipChildren() error {
	if !r.lastValid || !r.lastChildren {
		return nil
	}
	r.lastValid = false
	target := r.lastDepth
	if target == 0 {
		r.done = true
		return nil
	}
	u := r.u
	if s := r.lastSibling; s > uint64(r.pos) && s <= u.End {
		r.pos, r.depth = int(s), target
		return nil
	}
	b := u.data
	p := r.pos
	for depth := target + 1; depth > target; {
		if p >= len(b) {
			r.done = true
			return nil
		}
		code, np, ok := leb128.Uint(b, p)
		if !ok {
			r.done = true
			return u.trunc(p)
		}
		if code == 0 {
			p = np
			depth--
			continue
		}
		a := u.abbrevs.lookup(code)
		if a == nil {
			r.done = true
			return decodeErrf(u.Section.String(), p, "%w %d", errBadAbbrev, code)
		}
		var err error
		if p, err = skipAttrs(u, a, np); err != nil {
			r.done = true
			return err
		}
		if a.children {
			depth++
		}
	}
	r.pos, r.depth = p, target
	return nil
}

// EntryAt decodes the single DIE at offset off of section sec into e, as
// needed to follow references (a ref form's Field.Val is such an offset; for
// DW_FORM_ref_sig8 use Data.TypeBySignature first). It does not move the
// walk. e.Depth is 0 for a unit DIE and -1 otherwise (unknown).
func (r *Reader) EntryAt(sec Section, off uint64, e *Entry) error {
	u := r.u
	if u == nil || u.Section != sec || off < u.Offset || off >= u.End {
		if u = r.d.UnitAt(sec, off); u == nil {
			return decodeErrf(sec.String(), int(min(off, 1<<62)), "offset %#x is in no unit", off)
		}
	}
	return r.entryIn(u, off, e)
}

// entryIn decodes the DIE at off of unit u.
func (r *Reader) entryIn(u *Unit, off uint64, e *Entry) error {
	if off < u.DIEOffset || off >= u.End {
		return decodeErrf(u.Section.String(), int(min(off, 1<<62)), "offset %#x is not in the DIEs of the unit at %#x", off, u.Offset)
	}
	p := int(off)
	code, np, ok := leb128.Uint(u.data, p)
	if !ok {
		return u.trunc(p)
	}
	if code == 0 {
		return decodeErrf(u.Section.String(), p, "offset %#x holds a null entry, not a DIE", off)
	}
	a := u.abbrevs.lookup(code)
	if a == nil {
		return decodeErrf(u.Section.String(), p, "%w %d", errBadAbbrev, code)
	}
	e.Offset, e.Tag, e.Children, e.Unit = off, a.tag, a.children, u
	e.Depth, e.AttrPos = -1, -1
	if off == u.DIEOffset {
		e.Depth = 0
	}
	_, err := r.decodeAttrs(u, a, np, e)
	return err
}
