package elfio

import (
	"bytes"
	"debug/elf"
	"testing"
)

// TestRelaFastMatchesAny applies every 64-bit little-endian RELA table of
// the test inputs twice, with applyRelocsWith's fixed-width reads and
// in-place patches and without them (the generic decoding the 32-bit,
// big-endian and REL fixtures check against readelf), and expects the same
// bytes and the same error. The kernel modules' tables also have more than
// symCacheSize symbols, so the symbol cache's slots are shared.
func TestRelaFastMatchesAny(t *testing.T) {
	tables := 0
	eachRelocatable(t, func(t *testing.T, _ inputFile, f *File) {
		secs := f.Sections()
		for i := range secs {
			rs := &secs[i]
			if rs.Type != elf.SHT_RELA {
				continue
			}
			tgt := f.SectionByIndex(int(rs.Info))
			rt, err := f.relocTableOf(rs)
			if tgt == nil || err != nil || !rt.relaFast() || tgt.Type == elf.SHT_NOBITS {
				continue
			}
			raw, err := f.SectionData(tgt)
			if err != nil {
				continue
			}
			tables++
			fast, anyLayout := bytes.Clone(raw), bytes.Clone(raw)
			errFast := f.applyRelocsWith(fast, tgt, rt, 0, rt.len(), nil, nil, true)
			errAny := f.applyRelocsWith(anyLayout, tgt, rt, 0, rt.len(), nil, nil, false)
			if (errFast == nil) != (errAny == nil) || errFast != nil && errFast.Error() != errAny.Error() {
				t.Errorf("%s: errors differ: fast %v, generic %v", rs.Name, errFast, errAny)
			}
			if !bytes.Equal(fast, anyLayout) {
				t.Errorf("%s: bytes differ at offset %#x", rs.Name, firstDiff(fast, anyLayout))
			}
		}
	})
	if tables == 0 {
		t.Skip("no 64-bit little-endian RELA table among the test inputs")
	}
}
