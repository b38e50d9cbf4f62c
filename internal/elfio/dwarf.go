package elfio

import (
	"debug/elf"
	"encoding/binary"
	"strings"
	"sync"
)

// DebugSections holds the DWARF sections gobtf reads, each nil when the file
// lacks it. For linked files (ET_EXEC, ET_DYN) plain sections are slices of
// the file's read-only memory; compressed ones are decompressed copies. For
// relocatable objects (ET_REL, e.g. kernel modules) sections with
// relocations against them are copies with the relocations applied.
type DebugSections struct {
	Order binary.ByteOrder

	Info       []byte // .debug_info
	Abbrev     []byte // .debug_abbrev
	Str        []byte // .debug_str
	LineStr    []byte // .debug_line_str
	StrOffsets []byte // .debug_str_offsets
	Addr       []byte // .debug_addr
	RngLists   []byte // .debug_rnglists
	LocLists   []byte // .debug_loclists
	Loc        []byte // .debug_loc
	Ranges     []byte // .debug_ranges
	Types      []byte // .debug_types
	Line       []byte // .debug_line
}

// DebugSectionNames lists, in a fixed order, the section names
// DWARFSections looks for.
var DebugSectionNames = []string{
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
	".debug_str_offsets", ".debug_addr", ".debug_rnglists", ".debug_loclists",
	".debug_loc", ".debug_ranges", ".debug_types", ".debug_line",
}

// fields returns pointers to the fields, in DebugSectionNames' order.
func (d *DebugSections) fields() [12]*[]byte {
	return [...]*[]byte{&d.Info, &d.Abbrev, &d.Str, &d.LineStr, &d.StrOffsets, &d.Addr,
		&d.RngLists, &d.LocLists, &d.Loc, &d.Ranges, &d.Types, &d.Line}
}

// ByName returns the contents of the named section (".debug_info", ...),
// or nil when it is absent or not one of DebugSectionNames.
func (d *DebugSections) ByName(name string) []byte {
	for i, n := range DebugSectionNames {
		if n == name {
			return *d.fields()[i]
		}
	}
	return nil
}

// DebugSection returns the section holding the named DWARF section
// (".debug_info"), either under that name or under its legacy compressed
// name (".zdebug_info"); nil when there is neither.
func (f *File) DebugSection(name string) *Section {
	if s := f.Section(name); s != nil {
		return s
	}
	if rest, ok := strings.CutPrefix(name, ".debug"); ok {
		return f.Section(".zdebug" + rest)
	}
	return nil
}

// DWARFSections returns the DWARF sections listed in DebugSectionNames.
// Relocations are applied for relocatable objects (ET_REL) only: the
// .rela.debug_* sections sometimes left in linked kernels are stale and are
// ignored. The sections are prepared concurrently, since decompression
// dominates for compressed files.
func (f *File) DWARFSections() (*DebugSections, error) {
	d := &DebugSections{Order: f.ByteOrder}
	var relocs map[int][]*Section
	if f.Type == elf.ET_REL {
		relocs = f.relocSections()
	}
	dst := d.fields()
	var errs [len(dst)]error
	var wg sync.WaitGroup
	for i, name := range DebugSectionNames {
		s := f.DebugSection(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			continue
		}
		wg.Go(func() { *dst[i], errs[i] = f.debugData(s, relocs[s.Index]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

// relocSections maps each section's index to the SHT_REL and SHT_RELA
// sections that apply to it, in section table order.
func (f *File) relocSections() map[int][]*Section {
	m := make(map[int][]*Section)
	for i := range f.sections {
		s := &f.sections[i]
		if s.Type == elf.SHT_REL || s.Type == elf.SHT_RELA {
			m[int(s.Info)] = append(m[int(s.Info)], s)
		}
	}
	return m
}

// debugData returns the contents of s with the relocation sections rels
// applied to a private copy.
func (f *File) debugData(s *Section, rels []*Section) ([]byte, error) {
	b, owned, err := f.sectionData(s)
	if err != nil || len(rels) == 0 {
		return b, err
	}
	if !owned {
		b = append([]byte(nil), b...)
	}
	for _, rs := range rels {
		if err := f.relocSection(b, s, rs); err != nil {
			return nil, err
		}
	}
	return b, nil
}
