package dwarf2btf

import (
	"debug/elf"
	"encoding/binary"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Merged units. Normally every compilation unit stands on its own: its
// types refer only to DIEs of the same unit, so units convert in parallel.
// Link-time optimization breaks that: clang's LTO and gcc's LTRANS units
// refer to types, abstract subprograms and parameters of other units with
// DW_FORM_ref_addr. pahole handles such files by loading all their units as
// one big unit (dwarf_loader.c, cus__merge_and_process_cu), and gobtf does
// the same, since references across units would otherwise resolve to void
// and concrete function instances would lose their names.
//
// pahole decides it once per file: a Linux ELF note of type
// LINUX_ELFNOTE_LTO_INFO (what kernels since 5.13 carry) settles it by its
// value, whatever the DWARF says; without that note, the file is merged when
// the abbreviation table of any unit of .debug_info uses DW_FORM_ref_addr.
//
// A merged unit takes its language and producer from the first unit.
// Units excluded by the language filter contribute no DIEs, and partial and
// skeleton units are read like any other, as pahole reads every unit's
// children in merged mode.

// ltoInfoNote is LINUX_ELFNOTE_LTO_INFO, the note type of the kernel's
// "Linux" note whose 32-bit value says whether LTO was enabled.
const ltoInfoNote = 0x101

// mergeUnits reports whether the units of f (decoded as d) are converted as
// one unit.
func mergeUnits(f *elfio.File, d *die.Data) bool {
	if lto, ok := ltoNote(f); ok {
		return lto
	}
	units := d.Units()
	for i := range units {
		if units[i].UsesForm(dwarf.FormRefAddr) {
			return true
		}
	}
	return false
}

// ltoNote returns the value of the first Linux LTO note of any SHT_NOTE
// section of f, and whether there is one.
func ltoNote(f *elfio.File) (lto, ok bool) {
	secs := f.Sections()
	for i := range secs {
		s := &secs[i]
		if s.Type != elf.SHT_NOTE {
			continue
		}
		b, err := f.SectionData(s)
		if err != nil {
			continue
		}
		if v, found := findNote(b, f.ByteOrder, "Linux", ltoInfoNote); found {
			return len(v) >= 4 && binary.LittleEndian.Uint32(v[:4]) != 0, true
		}
	}
	return false, false
}

// findNote returns the descriptor of the first note named name with type
// typ in b, the contents of a note section. Malformed notes end the search.
func findNote(b []byte, order binary.ByteOrder, name string, typ uint32) ([]byte, bool) {
	align4 := func(n uint64) uint64 { return (n + 3) &^ 3 }
	for p := uint64(0); uint64(len(b))-p >= 12; {
		nsz, dsz, t := uint64(order.Uint32(b[p:])), uint64(order.Uint32(b[p+4:])), order.Uint32(b[p+8:])
		p += 12
		if nsz > uint64(len(b))-p {
			return nil, false
		}
		n := b[p : p+nsz]
		p += align4(nsz)
		if p > uint64(len(b)) || dsz > uint64(len(b))-p {
			return nil, false
		}
		desc := b[p : p+dsz]
		p += align4(dsz)
		if t == typ && len(n) > 0 && string(n[:len(n)-1]) == name && n[len(n)-1] == 0 {
			return desc, true
		}
	}
	return nil, false
}

// mergedStream reads several units as one stream: each unit's DIEs in
// order, its unit DIE at depth 0.
type mergedStream struct {
	d     *die.Data
	units []die.Unit
	pos   int
	cur   *decoderStream
}

func (m *mergedStream) next(d *digest) (int, bool, error) {
	for {
		if m.cur == nil {
			if m.pos >= len(m.units) {
				return 0, false, nil
			}
			m.cur = newDecoderStream(m.d, &m.units[m.pos])
			m.pos++
		}
		depth, ok, err := m.cur.next(d)
		if err != nil || ok {
			return depth, ok, err
		}
		m.cur = nil
	}
}

// mergedUnitList returns the units a merged conversion reads: all of d's
// units but those the language filter excludes.
func mergedUnitList(units []die.Unit, opts *Options) []die.Unit {
	var out []die.Unit
	for i := range units {
		if !opts.Languages.Skips(dwarf.Lang(units[i].Language)) {
			out = append(out, units[i])
		}
	}
	return out
}
