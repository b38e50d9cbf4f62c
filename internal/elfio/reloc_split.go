package elfio

import (
	"errors"
	"runtime"
	"slices"
	"sync"
)

// A module's .debug_info is the one big relocated section, which copying
// and relocating on one core would leave the others idle for: relocCopy
// splits the work into pieces, one per core, each of which copies a byte
// range of the section and applies the entries that patch it.
//
// Why the result is the same as applying every entry in order to one copy:
// pieces are cut between entries, at byte offsets chosen so that each
// piece's entries (as the cut points suggest; the assemblers write them in
// order of offset) patch only bytes of its own range. Each piece checks that
// as it goes, before patching (applyRelocs with a window); then no byte is
// patched by two pieces, each byte sees its patches in entry order, and
// nothing a piece reads (symbols, entries, its own bytes) is written by
// another. If any piece finds an entry outside its range (entries out of
// order, or a ULEB128 field, whose width is read from the bytes), the pieces'
// work is thrown away and the entries are applied in order to a fresh copy,
// which also reports the first error in entry order. Otherwise the first
// error is the lowest piece's: the pieces are in entry order and an entry's
// error does not depend on the others.

// errOutsideWindow is applyRelocs's signal that an entry patches bytes
// outside its piece.
var errOutsideWindow = errors.New("relocation outside its piece")

// minRelocPiece is the fewest entries worth a piece of their own (a
// variable for tests).
var minRelocPiece = 1 << 16

// maxFixedField is the widest fixed-width field a relocation patches.
const maxFixedField = 8

// relocCopy returns data, the contents of section tgt, with the relocations
// of rs applied: data itself when owned (a private copy already), else a
// new copy.
func (f *File) relocCopy(data []byte, owned bool, tgt, rs *Section, bases []uint64) ([]byte, error) {
	t, err := f.relocTableOf(rs)
	if err != nil {
		return nil, err
	}
	if !owned {
		cuts := f.relocCuts(t, len(data), runtime.GOMAXPROCS(0))
		if len(cuts) > 2 {
			out := make([]byte, len(data))
			errs := make([]error, len(cuts)-1)
			var wg sync.WaitGroup
			for j := range errs {
				wg.Go(func() {
					a, b := cuts[j], cuts[j+1]
					copy(out[a.off:b.off], data[a.off:b.off])
					window := [2]uint64{uint64(a.off), uint64(b.off)}
					errs[j] = f.applyRelocs(out, tgt, t, a.entry, b.entry, bases, &window)
				})
			}
			wg.Wait()
			if !slices.Contains(errs, errOutsideWindow) {
				for _, err := range errs {
					if err != nil {
						return nil, err
					}
				}
				return out, nil
			}
		}
		data = append([]byte(nil), data...)
	}
	if err := f.applyRelocs(data, tgt, t, 0, t.len(), bases, nil); err != nil {
		return nil, err
	}
	return data, nil
}

// relocCut is where one piece of relocCopy's work ends and the next begins:
// an entry index and a byte offset of the section.
type relocCut struct{ entry, off int }

// relocCuts cuts t's entries and the size bytes of their target into at
// most parts pieces: relocCut{0, 0}, the inner cuts, relocCut{t.len(),
// size}. An inner cut at entry k sits at entry k's offset, and only where
// entry k-1's field, of any fixed width, ends before it.
func (f *File) relocCuts(t *relocTable, size, parts int) []relocCut {
	n := t.len()
	cuts := []relocCut{{0, 0}}
	parts = min(parts, n/minRelocPiece)
	offAt := func(i int) uint64 { off, _, _, _ := t.entry(i); return off }
	for j := 1; j < parts; j++ {
		k := max(j*n/parts, cuts[len(cuts)-1].entry+1)
		for k < n && offAt(k) < offAt(k-1)+maxFixedField {
			k++
		}
		if k >= n {
			break
		}
		off := offAt(k)
		if off <= uint64(cuts[len(cuts)-1].off) || off >= uint64(size) {
			break
		}
		cuts = append(cuts, relocCut{k, int(off)})
	}
	return append(cuts, relocCut{n, size})
}
