package dedup

import (
	"math/bits"

	"github.com/gobtf/gobtf/internal/btf"
)

// The deferred string pass.
//
// The passes from the primitives to the references compare names only for
// equality (they hash them, compare them, and test them against 0 for
// anonymous types); they never read a name's characters. The string pass
// establishes that equal strings have equal offsets; where the input's
// offsets already had that property, the passes may run on them as they are,
// and the string pass, whose result is then needed only by the compaction,
// can run on another CPU beside them instead of before them. On a kernel
// this is the common case: conversion names types by their .debug_str
// offsets, and the linker has merged that section so that it holds each
// string once.
//
// The outcome is the same when the old offsets compared by the passes are a
// one-to-one image of the strings: same offset iff same string, and no
// offset but 0 naming the empty string. Then every comparison of two
// old offsets answers as the comparison of their new offsets would, hashes
// of old offsets group types as hashes of new ones do (two shallowly equal
// types have equal hashes either way, and the candidate table's order of
// candidates with one hash depends only on the number of insertions, see
// candTable), and so every pass decides as it would after the string pass.
// Names of VAR and DATASEC types need not take part: neither kind is ever
// merged, and no pass compares their names.
//
// The string pass (mapStrings without writing) checks the property as it
// goes: a string it finds already entered when it first meets an offset is a
// second offset of that string (or a non-zero offset of the empty string).
// stringsDistinct then looks at those strings only. When the property fails,
// Dedup starts again with the string pass first, before any pass has
// written to the type words. The string pass rewrites nothing in this mode;
// the compaction translates the names of the types it keeps.

// stringsDistinct reports whether no two distinct old offsets used by
// compared names translate to one new offset, and no compared name other
// than offset 0 translates to the empty string.
func (m *strMap) stringsDistinct() bool {
	if len(m.dups) == 0 {
		return true
	}
	isCompared := func(local uint32) bool { return m.compared[local>>6]&(1<<(local&63)) != 0 }
	// shared counts, per new offset that some offset was a duplicate of,
	// the compared old offsets translated to it.
	shared := make(map[uint32]int, len(m.dups))
	for _, local := range m.dups {
		n, _ := m.lookup(m.start + local)
		if n == 0 && isCompared(local) {
			return false
		}
		shared[n] = 0
	}
	count := func(local, n uint32) bool {
		c, ok := shared[n]
		if !ok || !isCompared(local) {
			return true
		}
		shared[n] = c + 1
		return c+1 < 2
	}
	// Every translated old offset: the string starts with a translation
	// (in ascending order, so numbered by rank), then the mid-string ones.
	idx := 0
	for w, word := range m.sx.starts {
		for word != 0 {
			b := uint32(bits.TrailingZeros64(word))
			word &= word - 1
			if n := m.newOff[idx]; n != unprocessed && !count(uint32(w)<<6|b, n) {
				return false
			}
			idx++
		}
	}
	for i, k := range m.odd.keys {
		if k != 0 && !count(k-1, m.odd.vals[i]) {
			return false
		}
	}
	return true
}

// translateNames replaces the old string offsets of type words t, a copy of
// a type the string pass has seen, by their new offsets.
func (m *strMap) translateNames(t []uint32) bool {
	ok := true
	btf.Type(t).ForEachStrRef(func(p *uint32) {
		n, found := m.lookup(*p)
		ok = ok && found
		*p = n
	})
	return ok
}
