package dwarf2btf

import (
	"debug/elf"
	"errors"
	"fmt"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf2btf/die"
)

// ErrNoDWARF is wrapped by Encode's error when the file has no DWARF.
var ErrNoDWARF = errors.New("no DWARF debug information (.debug_info)")

// Encode converts the DWARF of the ELF file at path into one standalone,
// not yet deduplicated Spec: every unit's types in unit order, then the
// DATASECs of the selected variables. Linked files (executables, shared
// objects, vmlinux) are read with gobtf's own decoder; relocatable files
// (kernel modules) go through debug/dwarf, which applies their relocations,
// until gobtf's ELF reader does.
func Encode(path string, opts *Options, st *Stats) (*btf.Spec, error) {
	if st == nil {
		st = &Stats{}
	}
	t0 := time.Now()
	m, err := openMapped(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer m.close()
	f := m.elf
	if f.Section(".debug_info") == nil {
		return nil, fmt.Errorf("%s: %w", path, ErrNoDWARF)
	}
	var s *btf.Spec
	if f.Type == elf.ET_REL {
		st.Load = time.Since(t0)
		s, err = ConvertTypesStd(f, opts)
	} else {
		var secs *die.Sections
		secs, err = m.dwarfSections()
		st.Load = time.Since(t0)
		if err == nil {
			s, err = ConvertTypes(f, secs, opts)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st.Convert = time.Since(t0) - st.Load
	st.Types = s.NumTypes()
	st.StringBytes = len(s.Strings().Bytes())
	s.SetByteOrder(f.ByteOrder)
	return s, nil
}

// Stats reports the work of one Encode.
type Stats struct {
	Load        time.Duration // opening the ELF file and reading its DWARF sections
	Convert     time.Duration // decoding DIEs, building and joining per-unit BTF
	Types       int           // types produced (before deduplication)
	StringBytes int           // string-section bytes produced
}
