package elfio

import (
	"encoding/binary"
	"fmt"
	"io"
)

// This file holds the small, bounds-checked ELF header reader and encoder the
// section writer needs. It reads only the ELF header, the program header
// table (for the file ranges that must not move), the section header table
// and the section name string table; every offset and count is checked
// against the file size before it is used, so a corrupt file gives an error,
// never a panic or a huge allocation.

// ELF constants used by the writer (values from the System V gABI).
const (
	elfClass32  = 1
	elfClass64  = 2
	elfData2LSB = 1
	elfData2MSB = 2

	shtNull     = 0
	shtProgbits = 1
	shtStrtab   = 3
	shtRela     = 4
	shtNobits   = 8
	shtRel      = 9

	shfAlloc      = 0x2
	shfInfoLink   = 0x40
	shfCompressed = 0x800

	shnUndef     = 0
	shnLoreserve = 0xff00
	shnXindex    = 0xffff
	pnXnum       = 0xffff
)

// shdr is one section header, widened to 64-bit fields.
type shdr struct {
	name    uint32
	typ     uint32
	flags   uint64
	addr    uint64
	off     uint64
	size    uint64
	link    uint32
	info    uint32
	align   uint64
	entsize uint64
}

// fileEnd is the end of the section's bytes in the file, or 0 when it
// occupies none (SHT_NOBITS, SHT_NULL or empty).
func (s *shdr) fileEnd() uint64 {
	if s.typ == shtNobits || s.typ == shtNull || s.size == 0 {
		return 0
	}
	return s.off + s.size
}

// phdr is the part of a program header the writer needs: the file range.
type phdr struct {
	typ    uint32
	off    uint64
	filesz uint64
}

// elfFile is the parsed header state of an ELF file. Invariants after
// readELF: len(secs) == shnum >= 1, shstrndx < shnum, every section's file
// range and every segment's file range lies inside size, shstrtab holds the
// section name table's bytes.
type elfFile struct {
	is64      bool
	order     binary.ByteOrder
	ehdr      []byte // the raw ELF header (52 or 64 bytes)
	size      uint64 // file size
	phoff     uint64
	phnum     int
	shoff     uint64
	shnum     int
	shstrndx  int
	secs      []shdr
	names     []string
	phdrs     []phdr
	shstrtab  []byte
	shentsize int
}

// ehdrSize, shdrSize and phdrSize give the standard structure sizes.
func (f *elfFile) ehdrSize() int {
	if f.is64 {
		return 64
	}
	return 52
}

func (f *elfFile) shdrSize() int {
	if f.is64 {
		return 64
	}
	return 40
}

func (f *elfFile) phdrSize() int {
	if f.is64 {
		return 56
	}
	return 32
}

// Field offsets inside the ELF header that the writer reads or rewrites.
func (f *elfFile) ehdrOffsets() (phoff, shoff, phentsize, phnum, shentsize, shnum, shstrndx int) {
	if f.is64 {
		return 32, 40, 54, 56, 58, 60, 62
	}
	return 28, 32, 42, 44, 46, 48, 50
}

// word reads an address-sized field.
func (f *elfFile) word(b []byte) uint64 {
	if f.is64 {
		return f.order.Uint64(b)
	}
	return uint64(f.order.Uint32(b))
}

// putWord writes an address-sized field.
func (f *elfFile) putWord(b []byte, v uint64) {
	if f.is64 {
		f.order.PutUint64(b, v)
	} else {
		f.order.PutUint32(b, uint32(v))
	}
}

// decodeShdr decodes one section header.
func (f *elfFile) decodeShdr(b []byte) shdr {
	o := f.order
	if f.is64 {
		return shdr{name: o.Uint32(b), typ: o.Uint32(b[4:]), flags: o.Uint64(b[8:]), addr: o.Uint64(b[16:]),
			off: o.Uint64(b[24:]), size: o.Uint64(b[32:]), link: o.Uint32(b[40:]), info: o.Uint32(b[44:]),
			align: o.Uint64(b[48:]), entsize: o.Uint64(b[56:])}
	}
	return shdr{name: o.Uint32(b), typ: o.Uint32(b[4:]), flags: uint64(o.Uint32(b[8:])), addr: uint64(o.Uint32(b[12:])),
		off: uint64(o.Uint32(b[16:])), size: uint64(o.Uint32(b[20:])), link: o.Uint32(b[24:]), info: o.Uint32(b[28:]),
		align: uint64(o.Uint32(b[32:])), entsize: uint64(o.Uint32(b[36:]))}
}

// encodeShdr encodes one section header into b (shdrSize bytes). The caller
// has checked that 32-bit values fit.
func (f *elfFile) encodeShdr(b []byte, s *shdr) {
	o := f.order
	if f.is64 {
		o.PutUint32(b, s.name)
		o.PutUint32(b[4:], s.typ)
		o.PutUint64(b[8:], s.flags)
		o.PutUint64(b[16:], s.addr)
		o.PutUint64(b[24:], s.off)
		o.PutUint64(b[32:], s.size)
		o.PutUint32(b[40:], s.link)
		o.PutUint32(b[44:], s.info)
		o.PutUint64(b[48:], s.align)
		o.PutUint64(b[56:], s.entsize)
		return
	}
	o.PutUint32(b, s.name)
	o.PutUint32(b[4:], s.typ)
	o.PutUint32(b[8:], uint32(s.flags))
	o.PutUint32(b[12:], uint32(s.addr))
	o.PutUint32(b[16:], uint32(s.off))
	o.PutUint32(b[20:], uint32(s.size))
	o.PutUint32(b[24:], s.link)
	o.PutUint32(b[28:], s.info)
	o.PutUint32(b[32:], uint32(s.align))
	o.PutUint32(b[36:], uint32(s.entsize))
}

// maxHeaderBytes bounds the section and program header tables read into
// memory: 2^24 sections of 64 bytes, far above any real file.
const maxHeaderBytes = 1 << 30

// readELF parses the headers of the ELF file r of the given size. Errors
// say which structure is bad and at which offset; the caller adds the path.
func readELF(r io.ReaderAt, size uint64) (*elfFile, error) {
	ident := make([]byte, 64)
	n, err := r.ReadAt(ident, 0)
	if n < 16 || (err != nil && err != io.EOF) {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("file too short for an ELF header (%d bytes)", size)
		}
		return nil, fmt.Errorf("reading the ELF header: %w", err)
	}
	if !IsELF(ident) {
		return nil, fmt.Errorf("not an ELF file (bad magic at offset 0)")
	}
	f := &elfFile{size: size}
	switch ident[4] {
	case elfClass32:
	case elfClass64:
		f.is64 = true
	default:
		return nil, fmt.Errorf("unknown ELF class %d at offset 4", ident[4])
	}
	switch ident[5] {
	case elfData2LSB:
		f.order = binary.LittleEndian
	case elfData2MSB:
		f.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("unknown ELF data encoding %d at offset 5", ident[5])
	}
	if n < f.ehdrSize() {
		return nil, fmt.Errorf("file too short for an ELF header (%d bytes)", size)
	}
	f.ehdr = ident[:f.ehdrSize()]
	phoffAt, shoffAt, phentAt, phnumAt, shentAt, shnumAt, shstrAt := f.ehdrOffsets()
	o := f.order
	f.phoff = f.word(f.ehdr[phoffAt:])
	f.shoff = f.word(f.ehdr[shoffAt:])
	phentsize := int(o.Uint16(f.ehdr[phentAt:]))
	f.phnum = int(o.Uint16(f.ehdr[phnumAt:]))
	f.shentsize = int(o.Uint16(f.ehdr[shentAt:]))
	f.shnum = int(o.Uint16(f.ehdr[shnumAt:]))
	f.shstrndx = int(o.Uint16(f.ehdr[shstrAt:]))

	if f.shoff == 0 {
		return nil, fmt.Errorf("no section header table (e_shoff is 0)")
	}
	if f.shentsize != f.shdrSize() {
		return nil, fmt.Errorf("section header size %d at offset %#x, want %d", f.shentsize, shentAt, f.shdrSize())
	}
	// Section 0 holds the real counts when they overflow the header fields.
	sh0, err := f.readTable(r, f.shoff, 1, f.shentsize, "section header 0")
	if err != nil {
		return nil, err
	}
	s0 := f.decodeShdr(sh0)
	if f.shnum == 0 {
		if s0.size > maxHeaderBytes/uint64(f.shentsize) {
			return nil, fmt.Errorf("section count %d in section 0's sh_size at offset %#x is out of range", s0.size, f.shoff)
		}
		f.shnum = int(s0.size)
	}
	if f.shnum == 0 {
		return nil, fmt.Errorf("no sections (e_shnum and section 0's sh_size are 0)")
	}
	if f.shstrndx == shnXindex {
		f.shstrndx = int(s0.link)
	}
	if f.phnum == pnXnum {
		f.phnum = int(s0.info)
	}
	if f.shstrndx == shnUndef || f.shstrndx >= f.shnum {
		return nil, fmt.Errorf("section name table index %d is not a section (the file has %d)", f.shstrndx, f.shnum)
	}
	tab, err := f.readTable(r, f.shoff, f.shnum, f.shentsize, "section header table")
	if err != nil {
		return nil, err
	}
	f.secs = make([]shdr, f.shnum)
	for i := range f.secs {
		s := f.decodeShdr(tab[i*f.shentsize:])
		if end := s.fileEnd(); end != 0 && (end < s.off || end > size) {
			return nil, fmt.Errorf("section %d at offset %#x with size %#x extends past the end of the file (%#x bytes)", i, s.off, s.size, size)
		}
		f.secs[i] = s
	}
	if f.phnum > 0 {
		if phentsize != f.phdrSize() {
			return nil, fmt.Errorf("program header size %d at offset %#x, want %d", phentsize, phentAt, f.phdrSize())
		}
		ptab, err := f.readTable(r, f.phoff, f.phnum, phentsize, "program header table")
		if err != nil {
			return nil, err
		}
		f.phdrs = make([]phdr, f.phnum)
		for i := range f.phdrs {
			b := ptab[i*phentsize:]
			p := phdr{typ: o.Uint32(b)}
			if f.is64 {
				p.off, p.filesz = o.Uint64(b[8:]), o.Uint64(b[32:])
			} else {
				p.off, p.filesz = uint64(o.Uint32(b[4:])), uint64(o.Uint32(b[16:]))
			}
			if p.filesz > 0 && (p.off+p.filesz < p.off || p.off+p.filesz > size) {
				return nil, fmt.Errorf("program header %d at offset %#x: segment at offset %#x with size %#x extends past the end of the file (%#x bytes)",
					i, f.phoff+uint64(i*phentsize), p.off, p.filesz, size)
			}
			f.phdrs[i] = p
		}
	}
	str := &f.secs[f.shstrndx]
	if str.typ != shtStrtab {
		return nil, fmt.Errorf("section name table (section %d) has type %d, not SHT_STRTAB", f.shstrndx, str.typ)
	}
	f.shstrtab = make([]byte, str.size)
	if _, err := r.ReadAt(f.shstrtab, int64(str.off)); err != nil {
		return nil, fmt.Errorf("reading the section name table at offset %#x: %w", str.off, err)
	}
	f.names = make([]string, f.shnum)
	for i := range f.secs {
		name, ok := cString(f.shstrtab, f.secs[i].name)
		if !ok {
			return nil, fmt.Errorf("section %d: name offset %#x is outside the section name table (%d bytes)", i, f.secs[i].name, len(f.shstrtab))
		}
		f.names[i] = name
	}
	return f, nil
}

// readTable reads count entries of entsize bytes at off, checking the range.
func (f *elfFile) readTable(r io.ReaderAt, off uint64, count, entsize int, what string) ([]byte, error) {
	n := uint64(count) * uint64(entsize)
	if n > maxHeaderBytes || off > f.size || n > f.size-off {
		return nil, fmt.Errorf("%s at offset %#x (%d entries of %d bytes) extends past the end of the file (%#x bytes)", what, off, count, entsize, f.size)
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, int64(off)); err != nil {
		return nil, fmt.Errorf("reading the %s at offset %#x: %w", what, off, err)
	}
	return b, nil
}

// cString returns the NUL-terminated string at off in tab.
func cString(tab []byte, off uint32) (string, bool) {
	if uint64(off) >= uint64(len(tab)) {
		return "", off == 0 && len(tab) == 0
	}
	for i := int(off); i < len(tab); i++ {
		if tab[i] == 0 {
			return string(tab[off:i]), true
		}
	}
	return "", false
}
