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
	skipped bool // filtered out by language
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
	results := make([]unitResult, len(units))
	var g errgroup.Group
	g.SetLimit(max(opts.Jobs, 1))
	for i, off := range units {
		g.Go(func() error {
			c := newCUTypes(opts, le, addrSize)
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
			results[i] = unitResult{types: c.spec}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	parts := make([]*btf.Spec, 0, len(results))
	for _, res := range results {
		if !res.skipped {
			parts = append(parts, res.types)
		}
	}
	return btf.Concat(parts), nil
}
