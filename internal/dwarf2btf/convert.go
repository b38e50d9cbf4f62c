package dwarf2btf

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/gobtf/gobtf/internal/btf"
)

// unitResult is what converting one compilation unit yields.
type unitResult struct {
	types   *btf.Spec
	vars    []secEntry // IDs local to types
	skipped bool       // filtered out by language
}

// ConvertTypesStd converts the type DIEs of every compilation unit of f,
// read with the standard library's debug/dwarf, into one standalone Spec,
// the units' types concatenated in unit order (not deduplicated).
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
	le := f.ByteOrder == binary.LittleEndian
	addrSize := uint32(8)
	if f.Class == elf.ELFCLASS32 {
		addrSize = 4
	}
	einfo := newElfInfo(f, &opts.Features)
	var debugAddr []byte
	if sec := f.Section(".debug_addr"); sec != nil {
		// Without relocations: fine for linked files, which is where
		// variable addresses mean something.
		debugAddr, _ = sec.Data()
	}
	results := make([]unitResult, len(units))
	var g errgroup.Group
	g.SetLimit(max(opts.Jobs, 1))
	for i, off := range units {
		g.Go(func() error {
			c := newCUTypes(opts, le, addrSize)
			c.debugAddr = debugAddr
			lang, _, err := c.walk(newStdStream(d, off))
			if err != nil {
				return fmt.Errorf("unit at .debug_info offset %#x: %w", off, err)
			}
			if opts.Languages.Skips(uint16(lang)) {
				results[i] = unitResult{skipped: true}
				return nil
			}
			c.enumSignedness()
			c.emit()
			vars, err := c.emitVars(einfo)
			if err != nil {
				return fmt.Errorf("unit at .debug_info offset %#x: %w", off, err)
			}
			results[i] = unitResult{types: c.spec, vars: vars}
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
	appendDatasecs(out, einfo, entries)
	return out, nil
}
