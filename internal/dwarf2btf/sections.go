package dwarf2btf

import (
	"debug/elf"
	"fmt"
	"os"

	"github.com/gobtf/gobtf/internal/elfio"
)

// openELF opens the ELF file at path for a conversion (elfio.Open): mapped
// read-only where it is large enough, so that sections stored uncompressed
// are slices of the mapping (reading a kernel's 160 MB of DWARF this way
// costs page-table work on already cached pages instead of copying every
// byte into fresh memory, which on virtual machines is the dominant cost of
// a naive read), and its headers parsed once. Its errors name path. The
// file must be a regular, non-empty file, checked before opening, so that
// a FIFO cannot block the open; every section's contents must lie within
// the file, so that a truncated or corrupt file is reported with the
// section and offset concerned, whichever section is read first later on.
func openELF(path string) (*elfio.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regularInput(path, fi); err != nil {
		return nil, err
	}
	f, err := elfio.Open(path)
	if err != nil {
		return nil, err
	}
	if err := checkSections(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkSections checks that every section's contents lie within the file.
func checkSections(path string, f *elfio.File) error {
	n := uint64(len(f.Bytes()))
	for _, s := range f.Sections() {
		if s.Type == elf.SHT_NULL || s.Type == elf.SHT_NOBITS {
			continue
		}
		if s.Offset > n || s.Size > n-s.Offset {
			name := s.Name
			if name == "" {
				name = fmt.Sprintf("#%d", s.Index)
			}
			return fmt.Errorf("%s: section %s: contents at file offset %#x, size %#x, beyond the file's %#x bytes", path, name, s.Offset, s.Size, n)
		}
	}
	return nil
}

// regularInput rejects what cannot be an ELF input: directories, devices,
// FIFOs, sockets, empty files and files too large to map.
func regularInput(path string, fi os.FileInfo) error {
	if err := elfio.RegularFile(path, fi); err != nil {
		return err
	}
	switch {
	case fi.Size() == 0:
		return fmt.Errorf("%s: empty file", path)
	case fi.Size() != int64(int(fi.Size())):
		return fmt.Errorf("%s: too large to map (%d bytes)", path, fi.Size())
	}
	return nil
}
