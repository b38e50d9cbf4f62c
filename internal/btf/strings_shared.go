package btf

import (
	"bytes"
	"math"
	"slices"
)

// Shared strings: the string section of a DWARF file (.debug_str) holds
// nearly every name a conversion needs, already merged by the linker. A
// conversion can therefore start every table from one copy of it: names read
// from .debug_str then need no interning at all (their BTF offset is their
// .debug_str offset plus one), and only names from elsewhere (inline
// DW_FORM_string, synthesized names) are interned. NewSharedStrings builds
// that starting table once; per-unit tables are split tables on it
// (NewStringTable(shared)), and the table the units are joined into starts as
// a copy of it (CopyShared), so that a unit's offsets below shared.Len() mean
// the same in the joined table and AppendSpec keeps them as they are.
//
// What this gives up: the section may repeat a string (a linker that does
// not merge) or point into the middle of one (tail merging), so equal
// strings are no longer guaranteed one offset before deduplication, whose
// string pass interns by content; and the joined table holds the section's
// strings that no type names. Neither changes deduplicated output.

// NewSharedStrings returns a base table holding the empty string followed by
// the strings of sec, a string section ending with a NUL byte: the string at
// offset k of sec is at offset k+1 of the table. Its lookup index is built,
// so that split tables on it can be used from several goroutines at once
// (lookups in a fully indexed table only read). It returns nil when sec is
// empty or does not end with a NUL.
func NewSharedStrings(sec []byte) *StringTable {
	if len(sec) == 0 || sec[len(sec)-1] != 0 {
		return nil
	}
	data := make([]byte, 1+len(sec))
	copy(data[1:], sec)
	long := &longStrings{blocks: make([]uint64, len(data)>>longBlockBits/64+1)}
	st := &StringTable{data: data, long: long}
	st.index()
	for pos := 0; pos < len(data); {
		n := bytes.IndexByte(data[pos:], 0)
		if n == 0 && pos > 0 {
			long.empty = append(long.empty, uint32(pos))
		}
		if n > KernelMaxNameLen {
			long.spans = append(long.spans, longString{uint32(pos), uint32(pos + n)})
			for b := pos >> longBlockBits; b <= (pos+n)>>longBlockBits; b++ {
				long.blocks[b>>6] |= 1 << (b & 63)
			}
		}
		pos += n + 1
	}
	for _, e := range long.empty {
		b := e >> longBlockBits
		long.blocks[b>>6] |= 1 << (b & 63)
	}
	// plain: the blocks wholly inside the table that no long string
	// touches and no empty string starts in (the last, partial block is
	// never plain, so that PlainAt needs no range check of off). One bool
	// per block rather than a bit keeps PlainAt small enough to inline.
	st.plain = make([]bool, len(data)>>longBlockBits)
	for b := range st.plain {
		st.plain[b] = long.blocks[b>>6]&(1<<(b&63)) == 0
	}
	return st
}

// NewSectionStrings is NewSharedStrings for a string section that the
// linker did not merge, a kernel module's: the same string sits at one
// offset per compile unit, so a content index would be as big as the
// section and save nothing. The table has none: split tables on it look up
// nothing in it (their Add interns every string locally, as a standalone
// table does), and a Spec joining parts made on it interns the strings
// they name by offset (AppendSpec), so the joined table holds each
// distinct string once, as it would without a shared table. What it saves
// is the interning, per unit, of every name the units read from the
// section: each is only an offset until the join.
//
// It neither copies nor scans sec, which must stay unchanged while the
// table is in use: the offsets are still those of sec plus one, as the
// table's bytes start at offset 1 (offset 0, the empty string, is never
// looked up in it), and LongAt and EmptyAt read the string they are asked
// about.
func NewSectionStrings(sec []byte) *StringTable {
	if len(sec) == 0 || sec[len(sec)-1] != 0 {
		return nil
	}
	return &StringTable{start: 1, data: sec, byOffset: true}
}

// ByOffset reports whether st was made by NewSectionStrings.
func (st *StringTable) ByOffset() bool { return st.byOffset }

// longStrings are the spans of the strings longer than KernelMaxNameLen of
// a NewSharedStrings table, with a bitmap of the blocks of
// 1<<longBlockBits bytes they touch or an empty string starts in, which
// answers most LongAt queries, and the table's empty strings (EmptyAt).
type longStrings struct {
	spans  []longString
	blocks []uint64
	empty  []uint32 // offsets of the empty strings of sec, ascending
}

// longString is the span of a string longer than KernelMaxNameLen.
type longString struct{ start, end uint32 }

// longBlockBits is the log2 of the size of longStrings' blocks.
const longBlockBits = 10

// LongAt reports whether the string read at offset off of a table made by
// NewSharedStrings is longer than KernelMaxNameLen, mid-string offsets
// included, without reading it.
func (st *StringTable) LongAt(off uint32) bool {
	if st.long == nil {
		if st.byOffset && off >= st.start && off-st.start < uint32(len(st.data)) {
			rest := st.data[off-st.start:]
			return bytes.IndexByte(rest[:min(len(rest), KernelMaxNameLen+1)], 0) < 0
		}
		return false
	}
	if b := off >> longBlockBits; int(b>>6) >= len(st.long.blocks) || st.long.blocks[b>>6]&(1<<(b&63)) == 0 {
		return false
	}
	long := st.long.spans
	// i: the first long string starting after off.
	i, _ := slices.BinarySearchFunc(long, off, func(l longString, off uint32) int {
		if l.start <= off {
			return -1
		}
		return 1
	})
	return i > 0 && off < long[i-1].end && long[i-1].end-off > KernelMaxNameLen
}

// PlainAt reports whether offset off, other than 0, of a table made by
// NewSharedStrings (or NewSectionStrings) is inside the table, is not
// LongAt and not EmptyAt: whether a split table on st may name the string
// read there by its offset, mid-string offsets included.
//
// A conversion asks this for nearly every name it reads: the answer kept
// for the offset's block (see NewSharedStrings) gives it inline, and the
// full answer (Len, LongAt, EmptyAt) is worked out only for the blocks
// without one.
func (st *StringTable) PlainAt(off uint32) bool {
	b := off >> longBlockBits
	return b < uint32(len(st.plain)) && st.plain[b] || st.plainAtSlow(off)
}

// SectionOffset returns the offset in st, a table made by NewSharedStrings
// on a string section, of the string at offset off of that section (ok
// says whether the name is read there at all): off plus one where PlainAt
// allows naming it so, else 0, as for names read elsewhere, the empty
// string and strings longer than BTF allows.
func (st *StringTable) SectionOffset(off uint64, ok bool) uint32 {
	if !ok || off >= math.MaxUint32 || !st.PlainAt(uint32(off+1)) {
		return 0
	}
	return uint32(off + 1)
}

// plainAtSlow is PlainAt for an offset whose block has no answer kept.
func (st *StringTable) plainAtSlow(off uint32) bool {
	return off < st.Len() && !st.LongAt(off) && !st.EmptyAt(off)
}

// EmptyAt reports whether offset off of a table made by NewSharedStrings,
// other than 0, starts an empty string, without reading it. A linker leaves
// at most a few empty strings in a section.
func (st *StringTable) EmptyAt(off uint32) bool {
	if st.byOffset {
		return off >= st.start && off-st.start < uint32(len(st.data)) && st.data[off-st.start] == 0
	}
	if st.long == nil || len(st.long.empty) == 0 {
		return false
	}
	_, found := slices.BinarySearch(st.long.empty, off)
	return found
}

// CopyShared returns a standalone copy of a table made by NewSharedStrings,
// with its lookup index, ready to be added to.
func (st *StringTable) CopyShared() *StringTable {
	st.index()
	return &StringTable{data: slices.Clone(st.data), slots: slices.Clone(st.slots), used: st.used,
		indexed: st.indexed}
}
