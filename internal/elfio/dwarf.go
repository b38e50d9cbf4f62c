package elfio

import (
	"debug/elf"
	"encoding/binary"
	"slices"
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
var DebugSectionNames = [...]string{
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
	".debug_str_offsets", ".debug_addr", ".debug_rnglists", ".debug_loclists",
	".debug_loc", ".debug_ranges", ".debug_types", ".debug_line",
}

// fields returns pointers to the fields, in DebugSectionNames' order.
func (d *DebugSections) fields() [len(DebugSectionNames)]*[]byte {
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
// ignored. A relocatable object may hold several sections of one name (type
// units in COMDAT groups, each its own .debug_types); they are
// concatenated in section order, as a linker would, and relocations against
// their symbols account for each one's place in the result. The sections
// are prepared concurrently, since decompression dominates for compressed
// files. Symbols resolve to their raw st_value, as debug/elf resolves them.
func (f *File) DWARFSections() (*DebugSections, error) {
	return f.DWARFSectionsAt(nil)
}

// DWARFSectionsAt is DWARFSections with the sections of a relocatable
// object placed at addrs (indexed by section, e.g. from OfflineLayout): a
// relocation against a symbol of section i resolves to st_value + addrs[i].
// A nil addrs places every section at 0. Given names, it reads only the
// sections of DebugSectionNames named there, and leaves the others nil.
func (f *File) DWARFSectionsAt(addrs []uint64, names ...string) (*DebugSections, error) {
	d := &DebugSections{Order: f.ByteOrder}
	var relocs map[int][]*Section
	if f.Type == elf.ET_REL {
		relocs = f.relocSections()
	}
	// Phase 1: the contents of every piece, decompressed.
	type piece struct {
		sec   *Section
		data  []byte
		owned bool
		err   error
	}
	var groups [len(DebugSectionNames)][]piece
	for i, name := range DebugSectionNames {
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		alt := ""
		if rest, ok := strings.CutPrefix(name, ".debug"); ok {
			alt = ".zdebug" + rest
		}
		for j := range f.sections {
			s := &f.sections[j]
			if (s.Name == name || s.Name == alt) && s.Type != elf.SHT_NOBITS {
				groups[i] = append(groups[i], piece{sec: s})
			}
		}
	}
	var wg sync.WaitGroup
	for i := range groups {
		for j := range groups[i] {
			p := &groups[i][j]
			wg.Go(func() { p.data, p.owned, p.err = f.sectionData(p.sec) })
		}
	}
	wg.Wait()
	// Where each piece of a multi-piece name lands in its concatenation,
	// and where the caller placed the other sections.
	var bases []uint64
	if f.Type == elf.ET_REL {
		bases = make([]uint64, len(f.sections))
		copy(bases, addrs)
		for _, g := range groups {
			if len(g) < 2 {
				continue
			}
			var off uint64
			for _, p := range g {
				bases[p.sec.Index] += off
				off += uint64(len(p.data))
			}
		}
	}
	// Phase 2: join and relocate. Every read error is reported before any
	// goroutine starts: returning while one still copies from the file's
	// mapping would let the caller unmap it under the copy (a fault).
	for _, g := range groups {
		for _, p := range g {
			if p.err != nil {
				return nil, p.err
			}
		}
	}
	dst := d.fields()
	var errs [len(dst)]error
	for i, g := range groups {
		switch {
		case len(g) == 0:
			continue
		case len(g) == 1 && len(relocs[g[0].sec.Index]) == 0:
			*dst[i] = g[0].data
			continue
		}
		if len(g) == 1 && len(relocs[g[0].sec.Index]) == 1 {
			// The usual case, and the big one (a module's .debug_info):
			// copy and relocate in parallel pieces.
			wg.Go(func() {
				*dst[i], errs[i] = f.relocCopy(g[0].data, g[0].owned, g[0].sec, relocs[g[0].sec.Index][0], bases)
			})
			continue
		}
		wg.Go(func() {
			var out []byte
			if len(g) == 1 && g[0].owned {
				out = g[0].data
			} else {
				n := 0
				for _, p := range g {
					n += len(p.data)
				}
				out = make([]byte, 0, n)
				for _, p := range g {
					out = append(out, p.data...)
				}
			}
			off := 0
			for _, p := range g {
				part := out[off : off+len(p.data)]
				off += len(p.data)
				for _, rs := range relocs[p.sec.Index] {
					if err := f.relocSection(part, p.sec, rs, bases); err != nil {
						errs[i] = err
						return
					}
				}
			}
			*dst[i] = out
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// A piece that was copied (relocated, decompressed or joined) is read
	// from its copy from now on, and its relocation tables were read once:
	// their pages of the mapping leave the resident memory. On a module
	// that is most of what was read, which would otherwise count in the
	// peak beside the copies until Close.
	for _, g := range groups {
		if len(g) == 0 || len(g) == 1 && len(relocs[g[0].sec.Index]) == 0 && !g[0].owned {
			continue // handed out as a slice of the mapping
		}
		for _, p := range g {
			f.dropPages(p.sec.Offset, p.sec.Size)
			for _, rs := range relocs[p.sec.Index] {
				f.dropPages(rs.Offset, rs.Size)
			}
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
