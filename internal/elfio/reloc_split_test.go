package elfio

import (
	"bytes"
	"debug/elf"
	"os"
	"testing"
)

// TestRelocCopySplit checks that relocating in pieces (relocCopy) gives the
// bytes of relocating in order, on every relocatable input with pieces
// forced small, and with an entry stored out of order (so that a piece
// finds it outside its range and the work falls back to one piece).
func TestRelocCopySplit(t *testing.T) {
	defer func(n int) { minRelocPiece = n }(minRelocPiece)
	tested := 0
	for _, in := range testInputs(t, false) {
		data, err := os.ReadFile(in.path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewFile(in.path, data)
		if err != nil {
			t.Fatal(err)
		}
		if f.Type != elf.ET_REL {
			continue
		}
		t.Run(in.name, func(t *testing.T) {
			tested++
			minRelocPiece = 1 << 62 // never split: the reference
			want, err := f.DWARFSections()
			if err != nil {
				t.Fatal(err)
			}
			minRelocPiece = 4
			compare := func(what string, f *File) {
				t.Helper()
				got, err := f.DWARFSections()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				for _, name := range DebugSectionNames {
					if g, w := got.ByName(name), want.ByName(name); !bytes.Equal(g, w) {
						t.Errorf("%s: %s differs at offset %#x", what, name, firstDiff(g, w))
					}
				}
			}
			info := f.Section(".debug_info")
			var rs *Section
			for _, s := range f.Sections() {
				if (s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL) && info != nil && int(s.Info) == info.Index {
					rs = &s
				}
			}
			if rs == nil {
				t.Skip("no relocations against .debug_info")
			}
			rt, err := f.relocTableOf(rs)
			if err != nil {
				t.Fatal(err)
			}
			// Compressed sections are decompressed into a private copy,
			// relocated in place, in one piece.
			if cuts := f.relocCuts(rt, int(info.Size), 4); info.Flags&elf.SHF_COMPRESSED == 0 && rt.len() >= 4*minRelocPiece && len(cuts) < 3 {
				t.Errorf(".debug_info's %d entries not cut: %v", rt.len(), cuts)
			}
			compare("in pieces", f)
			g, err := NewFile(in.path, rotateRelocs(t, data))
			if err != nil {
				t.Fatal(err)
			}
			compare("last entry first", g)
			// The first piece must see the moved entry outside its range
			// (or there is only one piece).
			grt, err := g.relocTableOf(g.SectionByIndex(rs.Index))
			if err != nil {
				t.Fatal(err)
			}
			if cuts := g.relocCuts(grt, int(info.Size), 4); len(cuts) > 2 && info.Flags&elf.SHF_COMPRESSED == 0 {
				out := make([]byte, info.Size)
				window := [2]uint64{0, uint64(cuts[1].off)}
				if err := g.applyRelocs(out, info, grt, 0, cuts[1].entry, make([]uint64, len(g.Sections())), &window); err != errOutsideWindow {
					t.Errorf("first piece of %v: %v, want errOutsideWindow", cuts, err)
				}
			}
		})
	}
	if tested == 0 {
		t.Skip("no relocatable input built")
	}
}

// rotateRelocs returns a copy of the ELF file data with the last entry of
// each SHT_REL and SHT_RELA section against a debug section moved to the front, where
// the first piece finds it outside its range. The debug sections'
// relocations patch disjoint fields, so the order changes nothing relocated.
func rotateRelocs(t *testing.T, data []byte) []byte {
	t.Helper()
	out := bytes.Clone(data)
	f, err := NewFile("reversed", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Sections() {
		if (s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL) || s.Entsize == 0 {
			continue
		}
		tgt := f.SectionByIndex(int(s.Info))
		if tgt == nil || len(tgt.Name) < 7 || tgt.Name[:7] != ".debug_" {
			continue
		}
		es := int(s.Entsize)
		b := out[s.Offset : s.Offset+s.Size]
		n := len(b) / es
		if n < 2 {
			continue
		}
		last := bytes.Clone(b[(n-1)*es : n*es])
		copy(b[es:n*es], b[:(n-1)*es])
		copy(b, last)
	}
	return out
}
