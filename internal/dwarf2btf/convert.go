package dwarf2btf

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf2btf/die"
)

// unitResult is what converting one compilation unit yields.
type unitResult struct {
	types   *btf.Spec
	vars    []secEntry // IDs local to types
	skipped bool       // filtered out by language
}

// target describes the file being converted, as the conversion of every unit
// needs it.
type target struct {
	littleEndian bool
	addrSize     uint32
	debugAddr    []byte
	elf          *elfInfo
}

func newTarget(f *elf.File, opts *Options, debugAddr []byte) *target {
	t := &target{littleEndian: f.ByteOrder == binary.LittleEndian, addrSize: 8, debugAddr: debugAddr,
		elf: newElfInfo(f, &opts.Features)}
	if f.Class == elf.ELFCLASS32 {
		t.addrSize = 4
	}
	return t
}

// convertUnits converts n units, opening unit i's DIE stream with open, on
// opts.Jobs goroutines, and joins the results in unit order. Each unit is
// converted on its own, so the result does not depend on the job count.
func convertUnits(n int, open func(i int) (dieStream, string), tgt *target, opts *Options) (*btf.Spec, error) {
	results := make([]unitResult, n)
	jobs := max(opts.Jobs, 1)
	idle := make(chan *cuTypes, jobs)
	for range jobs {
		c := newCUTypes(opts, tgt.littleEndian, tgt.addrSize)
		c.debugAddr = tgt.debugAddr
		idle <- c
	}
	var g errgroup.Group
	g.SetLimit(jobs)
	for i := 0; i < n; i++ {
		g.Go(func() error {
			src, where := open(i)
			c := <-idle
			defer func() { idle <- c }()
			c.reset()
			lang, _, err := c.walk(src)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			if opts.Languages.Skips(uint16(lang)) {
				results[i] = unitResult{skipped: true}
				return nil
			}
			c.enumSignedness()
			c.emit()
			vars, err := c.emitVars(tgt.elf)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			results[i] = unitResult{types: c.spec.Clone(), vars: vars}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	parts := make([]*btf.Spec, 0, len(results))
	var entries []secEntry
	shift := btf.TypeID(0)
	for _, res := range results {
		if res.skipped {
			continue
		}
		parts = append(parts, res.types)
		for _, e := range res.vars {
			e.typ += shift
			entries = append(entries, e)
		}
		shift += btf.TypeID(res.types.NumTypes())
	}
	out := btf.Concat(parts)
	appendDatasecs(out, tgt.elf, entries)
	return out, nil
}

// ConvertTypesStd converts the types and variables of every compilation unit
// of f, read with the standard library's debug/dwarf (which also applies the
// relocations of relocatable files), into one standalone Spec, not
// deduplicated.
func ConvertTypesStd(f *elf.File, opts *Options) (*btf.Spec, error) {
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("reading DWARF: %w", err)
	}
	var units []dwarf.Offset
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("listing units: %w", err)
		}
		if e == nil {
			break
		}
		units = append(units, e.Offset)
		r.SkipChildren()
	}
	var debugAddr []byte
	if sec := f.Section(".debug_addr"); sec != nil {
		// Without relocations: fine for linked files, which is where
		// variable addresses mean something.
		debugAddr, _ = sec.Data()
	}
	open := func(i int) (dieStream, string) {
		return newStdStream(d, units[i]), fmt.Sprintf("unit at .debug_info offset %#x", units[i])
	}
	return convertUnits(len(units), open, newTarget(f, opts, debugAddr), opts)
}

// ConvertTypes converts like ConvertTypesStd with gobtf's own DIE decoder
// over the given sections (decompressed and, for relocatable files,
// relocated).
func ConvertTypes(f *elf.File, secs *die.Sections, opts *Options) (*btf.Spec, error) {
	d, err := die.New(secs)
	if err != nil {
		return nil, err
	}
	units := d.Units()
	open := func(i int) (dieStream, string) {
		return newFastStream(d, &units[i]), fmt.Sprintf("unit at .debug_info offset %#x", units[i].Offset)
	}
	return convertUnits(len(units), open, newTarget(f, opts, secs.Addr), opts)
}

// SectionsStd reads the DWARF sections of f with debug/elf (decompressing
// them, but applying no relocations).
func SectionsStd(f *elf.File) (*die.Sections, error) {
	s := &die.Sections{Order: f.ByteOrder}
	for _, x := range []struct {
		name string
		dst  *[]byte
	}{
		{".debug_info", &s.Info}, {".debug_abbrev", &s.Abbrev}, {".debug_str", &s.Str},
		{".debug_line_str", &s.LineStr}, {".debug_str_offsets", &s.StrOffsets}, {".debug_addr", &s.Addr},
		{".debug_rnglists", &s.RngLists}, {".debug_loclists", &s.LocLists}, {".debug_loc", &s.Loc},
		{".debug_ranges", &s.Ranges}, {".debug_types", &s.Types},
	} {
		sec := f.Section(x.name)
		if sec == nil {
			continue
		}
		b, err := sec.Data()
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", x.name, err)
		}
		*x.dst = b
	}
	if s.Info == nil {
		return nil, fmt.Errorf("no .debug_info section")
	}
	return s, nil
}
