package dwarf2btf

import (
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/elfio"
)

// ErrNoDWARF is wrapped by Encode's error when the file has no DWARF.
var ErrNoDWARF = errors.New("no DWARF debug information (.debug_info)")

// Encode converts the DWARF of the ELF file at path into one standalone,
// not yet deduplicated Spec: every unit's types in unit order, then the
// DATASECs of the selected variables, and the functions. Linked files
// (executables, shared objects, vmlinux) are read from a read-only mapping;
// the debug sections of relocatable files (kernel modules) are relocated
// copies. It is Open followed by Input.Encode, with nothing beside the
// conversion.
func Encode(path string, opts *Options, st *Stats) (*btf.Spec, error) {
	in, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return in.Encode(opts, nil, nil, st)
}

// sectionsRead are the debug sections the encoder reads: all of
// elfio.DebugSectionNames but .debug_line, which nothing here uses and whose
// copy and relocation a module would otherwise pay for.
var sectionsRead = slices.DeleteFunc(slices.Clone(elfio.DebugSectionNames[:]),
	func(name string) bool { return name == ".debug_line" })

// Input is an ELF file opened for encoding.
type Input struct {
	path     string
	f        *elfio.File
	opened   time.Time
	infoSize uint64
}

// Open opens the ELF file at path, once for the whole run: it is mapped
// read-only and its headers parsed (openELF), the conversion reads it
// through that mapping, and the sections written into it go through the
// same open file (File). Open checks that the file has DWARF (the error
// wraps ErrNoDWARF when not). It allocates little: a caller can size the
// conversion's memory (InfoSize, FileSize) before the conversion uses any.
func Open(path string) (*Input, error) {
	t0 := time.Now()
	f, err := openELF(path)
	if err != nil {
		return nil, err
	}
	info := f.Section(".debug_info")
	if info == nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNoDWARF)
	}
	return &Input{path: path, f: f, opened: t0, infoSize: f.UncompressedSize(info)}, nil
}

// InfoSize returns the size of the file's .debug_info section (uncompressed,
// as its header gives it, and so only bounded by FileSize when it is
// compressed), a measure of the work and memory ahead.
func (in *Input) InfoSize() uint64 { return in.infoSize }

// FileSize returns the size of the file.
func (in *Input) FileSize() int { return len(in.f.Bytes()) }

// File returns the open ELF file, for writing sections into it
// (elfio.File.WriteSections) once it is converted; after Unmap, only that.
func (in *Input) File() *elfio.File { return in.f }

// Unmap gives back the file's memory but keeps it open (File). No Spec or
// slice Encode returned depends on the memory.
func (in *Input) Unmap() error { return in.f.Unmap() }

// Close unmaps and closes the file.
func (in *Input) Close() error { return in.f.Close() }

// Encode converts the file, as the package-level Encode describes, into
// out (an empty Spec whose storage the caller reserved, see OutputSize; nil
// for one of the conversion's own), reporting to pipe (nil for none). It
// may be called once.
func (in *Input) Encode(opts *Options, out *btf.Spec, pipe *Pipeline, st *Stats) (*btf.Spec, error) {
	if st == nil {
		st = &Stats{}
	}
	path, f := in.path, in.f
	if opts.Log != nil {
		opts.Log.File(path, percpuSection, f.Section(percpuSection) != nil)
	}
	t0 := in.opened
	var secs *die.Sections
	var addrs []uint64
	var err error
	if f.Type == elf.ET_REL {
		// Relocatable objects (kernel modules) need their debug sections
		// relocated: gobtf's ELF reader does that on copies, with the
		// sections placed where pahole's libdwfl places them, so that
		// DWARF addresses and variable placement come out as pahole's.
		if secs, addrs, err = relocatedSections(f); err != nil {
			return nil, err
		}
	} else if secs, err = linkedSections(f); err != nil {
		return nil, err
	}
	if len(secs.Info) == 0 {
		return nil, fmt.Errorf("%s: section .debug_info: empty: %w", path, ErrNoDWARF)
	}
	st.Load = time.Since(t0)
	var release func([]byte)
	if addrs == nil {
		// secs.Info is a slice of the mapping: give back the pages of
		// units already converted, which would otherwise count in the
		// resident memory until the end.
		release = f.Release
	}
	s, err := convertTypes(f, f.Symbols, secs, addrs, release, out, pipe, opts)
	if err != nil {
		var fe *elfio.FormatError
		if errors.As(err, &fe) && fe.File == path {
			return nil, err // it names the file already
		}
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

// relocatedSections returns the debug sections of ef, a relocatable file,
// relocated on copies with its sections placed as libdwfl places them
// (elfio.File.OfflineLayout), and those places.
func relocatedSections(ef *elfio.File) (*die.Sections, []uint64, error) {
	addrs := ef.OfflineLayout()
	ds, err := ef.DWARFSectionsAt(addrs, sectionsRead...)
	if err != nil {
		return nil, nil, err
	}
	return dieSections(ds), addrs, nil
}

// linkedSections returns the debug sections of ef, a linked file: slices of
// its mapping where they are stored as they are, decompressed copies
// otherwise, and no relocation.
func linkedSections(ef *elfio.File) (*die.Sections, error) {
	ds, err := ef.DWARFSectionsAt(nil, sectionsRead...)
	if err != nil {
		return nil, err
	}
	if ds.Info == nil {
		return nil, fmt.Errorf("%s: %w", ef.Name(), ErrNoDWARF)
	}
	return dieSections(ds), nil
}

// dieSections returns the sections of ds as the decoder takes them.
func dieSections(ds *elfio.DebugSections) *die.Sections {
	return &die.Sections{Order: ds.Order, Info: ds.Info, Abbrev: ds.Abbrev, Str: ds.Str, LineStr: ds.LineStr,
		StrOffsets: ds.StrOffsets, Addr: ds.Addr, RngLists: ds.RngLists, LocLists: ds.LocLists, Loc: ds.Loc,
		Ranges: ds.Ranges, Types: ds.Types}
}
