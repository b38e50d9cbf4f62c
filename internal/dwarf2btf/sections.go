package dwarf2btf

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/hugemem"
)

// mappedFile is an ELF file mapped read-only into memory. Sections stored
// uncompressed are slices of the mapping: reading a kernel's 160 MB of DWARF
// this way costs page-table work on already cached pages instead of copying
// every byte into freshly allocated memory, which on virtual machines is the
// dominant cost of a naive read.
type mappedFile struct {
	data []byte
	elf  *elf.File
	eio  *elfio.File // the same file, read by elfio (symbols)
}

// openMapped maps the file at path and parses its ELF headers. Its errors
// name path. The file must be a regular, non-empty file: it is checked
// before opening, so that a FIFO cannot block the open. The ELF header and
// section table are checked by elfio first, whose errors name the offset of
// what is wrong; debug/elf then only reads what passed.
func openMapped(path string) (*mappedFile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regularInput(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := regularInput(path, fi); err != nil {
		return nil, err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%s: mapping: %w", path, err)
	}
	eio, err := checkELF(path, data)
	if err != nil {
		syscall.Munmap(data)
		return nil, err
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		syscall.Munmap(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &mappedFile{data: data, elf: ef, eio: eio}, nil
}

// checkELF checks the ELF header, the section table and that every section's
// contents lie within the file, so that a truncated or corrupt file is
// reported with the section and offset concerned, whichever section is
// read first later on. It returns the file as elfio reads it.
func checkELF(path string, data []byte) (*elfio.File, error) {
	ef, err := elfio.NewFile(path, data)
	if err != nil {
		return nil, err
	}
	for _, s := range ef.Sections() {
		if s.Type == elf.SHT_NULL || s.Type == elf.SHT_NOBITS {
			continue
		}
		if n := uint64(len(data)); s.Offset > n || s.Size > n-s.Offset {
			name := s.Name
			if name == "" {
				name = fmt.Sprintf("#%d", s.Index)
			}
			return nil, fmt.Errorf("%s: section %s: contents at file offset %#x, size %#x, beyond the file's %#x bytes", path, name, s.Offset, s.Size, n)
		}
	}
	return ef, nil
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

// close unmaps the file. No slice of it may be used afterwards.
func (m *mappedFile) close() error { return syscall.Munmap(m.data) }

// release tells the kernel that the whole pages inside b, a slice of the
// mapping, are not needed for now: they leave the process's resident memory
// (the file's page cache keeps them) and are read again from the cache if
// touched later, so this never changes what the mapping reads. Slices that
// are not inside the mapping (decompressed sections) are left alone.
func (m *mappedFile) release(b []byte) {
	if len(b) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p-base > uintptr(len(m.data)) || uintptr(len(b)) > uintptr(len(m.data))-(p-base) {
		return
	}
	hugemem.DropPages(b)
}

// section returns the contents of the named section: a slice of the mapping
// when it is stored as is, a decompressed copy otherwise, nil when absent.
func (m *mappedFile) section(name string) ([]byte, error) {
	s := m.elf.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	if s.Flags&elf.SHF_COMPRESSED == 0 && len(name) > 1 && name[1] != 'z' {
		end := s.Offset + s.FileSize
		if end < s.Offset || end > uint64(len(m.data)) {
			return nil, fmt.Errorf("section %s: offset %#x size %#x beyond the file's %d bytes", name, s.Offset, s.FileSize, len(m.data))
		}
		return m.data[s.Offset:end:end], nil
	}
	b, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("section %s at file offset %#x: %w", name, s.Offset, err)
	}
	return b, nil
}

// dwarfSections collects the DWARF sections the decoder reads. No
// relocations are applied, so this suits linked files only.
func (m *mappedFile) dwarfSections() (*die.Sections, error) {
	s := &die.Sections{Order: m.elf.ByteOrder}
	for i, dst := range s.Fields() {
		b, err := m.section(die.SectionNames[i])
		if err != nil {
			return nil, err
		}
		*dst = b
	}
	if s.Info == nil {
		return nil, ErrNoDWARF
	}
	return s, nil
}
