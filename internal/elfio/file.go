package elfio

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"github.com/gobtf/gobtf/internal/hugemem"
)

// File is an ELF file opened for reading. Its bytes are a read-only memory
// mapping of the file (or, for small and non-regular files, a copy read into
// memory); the section data and symbol names it hands out may point into
// them, so they must not be used after Close.
//
// A File's methods may be called from several goroutines at once, except
// Close.
type File struct {
	name   string
	data   []byte
	mapped bool

	// Class is ELFCLASS32 or ELFCLASS64.
	Class elf.Class
	// Data is the byte order named by the header (ELFDATA2LSB or ELFDATA2MSB).
	Data elf.Data
	// ByteOrder decodes the file's multi-byte fields.
	ByteOrder binary.ByteOrder
	// OSABI is the header's e_ident[EI_OSABI].
	OSABI elf.OSABI
	// Type is the object type: ET_REL for kernel modules, ET_EXEC for vmlinux.
	Type elf.Type
	// Machine is the target architecture.
	Machine elf.Machine
	// Entry is the entry point address.
	Entry uint64
	// Flags is the header's processor-specific e_flags.
	Flags uint32

	sections []Section
	byName   map[string]int

	// fd is the file Open opened, kept for WriteSections until Close;
	// nil for a File made by NewFile.
	fd *os.File
}

// mmapThreshold is the size below which Open reads a file instead of mapping
// it: for small files a read is cheaper than setting up a mapping.
const mmapThreshold = 64 << 10

// Open opens the ELF file at path and parses its header and section table.
// Regular files of at least 64 KiB are memory-mapped read-only; others are
// read into memory. The file stays open until Close, so that the sections
// written with WriteSections replace those of the file read.
func Open(path string) (*File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := RegularFile(path, fi); err != nil {
		return nil, err
	}
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	data, mapped, err := readAll(path, fd)
	if err != nil {
		fd.Close()
		return nil, err
	}
	f, err := NewFile(path, data)
	if err != nil {
		if mapped {
			syscall.Munmap(data)
		}
		fd.Close()
		return nil, err
	}
	f.mapped, f.fd = mapped, fd
	return f, nil
}

// readAll returns the contents of the open file fd, named path: mapped
// read-only and shared when it is large enough to be worth it, and read
// otherwise. fd must be a regular file (checked again, as it may have
// changed since the caller looked).
func readAll(path string, fd *os.File) (data []byte, mapped bool, err error) {
	fi, err := fd.Stat()
	if err != nil {
		return nil, false, err
	}
	if err := RegularFile(path, fi); err != nil {
		return nil, false, err
	}
	size := fi.Size()
	if size >= mmapThreshold && size == int64(int(size)) {
		if m, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			return m, true, nil
		}
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(fd, 0, size), data); err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, false, nil
}

// mapFile maps the file at path with the given protection and flags. It
// returns nil, without an error, when the file is too small to be worth
// mapping or cannot be mapped (some file systems cannot); the caller reads
// it then. Anything but a regular file is an error (see RegularFile).
func mapFile(path string, prot, flags int) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := RegularFile(path, fi); err != nil {
		return nil, err
	}
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	if fi, err = fd.Stat(); err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < mmapThreshold || size != int64(int(size)) {
		return nil, nil
	}
	m, err := syscall.Mmap(int(fd.Fd()), 0, int(size), prot, flags)
	if err != nil {
		return nil, nil
	}
	return m, nil
}

// RegularFile returns an error naming path unless fi, its file information,
// is a regular file's: a directory, device, FIFO or socket is no input, and
// opening a FIFO would block until some other process opened it for writing.
func RegularFile(path string, fi os.FileInfo) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file (%v)", path, fi.Mode().Type())
	}
	return nil
}

// Close releases the file's memory and closes it. Section data and symbol
// names obtained from the File must not be used afterwards.
func (f *File) Close() error {
	err := f.Unmap()
	f.sections = nil
	f.byName = nil
	if f.fd != nil {
		if cerr := f.fd.Close(); err == nil {
			err = cerr
		}
		f.fd = nil
	}
	return err
}

// Unmap releases the file's memory but keeps what WriteSections needs: its
// header fields and its section table stay, its contents go. Section data
// and symbol names obtained from the File must not be used afterwards, nor
// any method that reads the contents.
func (f *File) Unmap() error {
	data := f.data
	f.data = nil
	if f.mapped {
		f.mapped = false
		return syscall.Munmap(data)
	}
	return nil
}

// Release tells the kernel that the whole pages of b, a slice of the
// file's mapping, are not needed for now: they leave the process's resident
// memory, and a later read faults them in again from the page cache, so it
// never changes what b reads. Slices that are not inside the mapping
// (decompressed or relocated copies) are left alone.
func (f *File) Release(b []byte) {
	if len(b) == 0 || !f.mapped {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p-base > uintptr(len(f.data)) || uintptr(len(b)) > uintptr(len(f.data))-(p-base) {
		return
	}
	hugemem.DropPages(b)
}

// dropPages tells the kernel that the whole pages of the file's mapping
// inside [off, off+size) are not needed for now: they leave the process's
// resident memory, and a later read faults them in again from the page
// cache, so it never changes what the File reads. It does nothing for a
// File read into memory, or for a range outside the file.
func (f *File) dropPages(off, size uint64) {
	if n := uint64(len(f.data)); f.mapped && off <= n && size <= n-off {
		hugemem.DropPages(f.data[off : off+size])
	}
}

// Name returns the path given to Open (or the name given to NewFile).
func (f *File) Name() string { return f.name }

// Bytes returns the whole file's contents, read-only.
func (f *File) Bytes() []byte { return f.data[:len(f.data):len(f.data)] }

// ELF header layout: the identification bytes, then fields whose offsets
// depend on the class.
const (
	identSize = 16
	ehdr32    = 52
	ehdr64    = 64
	shdr32    = 40
	shdr64    = 64
)

// ErrNotELF is wrapped by the error of NewFile and Open for input that does
// not start with the ELF magic.
var ErrNotELF = errors.New("not an ELF file")

// NewFile parses the ELF file held in data; name is used in error messages.
// The File refers to data without copying it, and data must not change
// while the File is used. Close on such a File releases nothing.
func NewFile(name string, data []byte) (*File, error) {
	f := &File{name: name, data: data}
	if len(data) < identSize || !IsELF(data) {
		return nil, &FormatError{File: name, Offset: -1, Err: ErrNotELF}
	}
	f.Class = elf.Class(data[elf.EI_CLASS])
	f.Data = elf.Data(data[elf.EI_DATA])
	f.OSABI = elf.OSABI(data[elf.EI_OSABI])
	switch f.Data {
	case elf.ELFDATA2LSB:
		f.ByteOrder = binary.LittleEndian
	case elf.ELFDATA2MSB:
		f.ByteOrder = binary.BigEndian
	default:
		return nil, f.errorf(elf.EI_DATA, "unknown data encoding %d", data[elf.EI_DATA])
	}
	if v := elf.Version(data[elf.EI_VERSION]); v != elf.EV_CURRENT {
		return nil, f.errorf(elf.EI_VERSION, "unknown ELF version %d", v)
	}
	bo := f.ByteOrder
	var shoff uint64
	var shentsize, shnum, shstrndx uint16
	switch f.Class {
	case elf.ELFCLASS32:
		if len(data) < ehdr32 {
			return nil, f.errorf(0, "truncated ELF header: %d bytes, need %d", len(data), ehdr32)
		}
		f.Entry = uint64(bo.Uint32(data[24:]))
		shoff = uint64(bo.Uint32(data[32:]))
		f.Flags = bo.Uint32(data[36:])
		shentsize = bo.Uint16(data[46:])
		shnum = bo.Uint16(data[48:])
		shstrndx = bo.Uint16(data[50:])
	case elf.ELFCLASS64:
		if len(data) < ehdr64 {
			return nil, f.errorf(0, "truncated ELF header: %d bytes, need %d", len(data), ehdr64)
		}
		f.Entry = bo.Uint64(data[24:])
		shoff = bo.Uint64(data[40:])
		f.Flags = bo.Uint32(data[48:])
		shentsize = bo.Uint16(data[58:])
		shnum = bo.Uint16(data[60:])
		shstrndx = bo.Uint16(data[62:])
	default:
		return nil, f.errorf(elf.EI_CLASS, "unknown ELF class %d", data[elf.EI_CLASS])
	}
	f.Type = elf.Type(bo.Uint16(data[16:]))
	f.Machine = elf.Machine(bo.Uint16(data[18:]))
	if err := f.readSections(shoff, int(shentsize), int(shnum), int(shstrndx)); err != nil {
		return nil, err
	}
	return f, nil
}
