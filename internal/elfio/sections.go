package elfio

import (
	"debug/elf"
	"fmt"
	"strings"
)

// Section describes one entry of the section header table.
type Section struct {
	Name      string // from the section name string table; "" when it has none
	Index     int    // position in the section header table
	Type      elf.SectionType
	Flags     elf.SectionFlag
	Addr      uint64
	Offset    uint64 // file offset of the contents
	Size      uint64 // size of the contents as stored (compressed size for SHF_COMPRESSED)
	Link      uint32
	Info      uint32
	Addralign uint64
	Entsize   uint64
}

// readSections parses the section header table at file offset shoff with
// entries of entsize bytes. num and strndx are the header's e_shnum and
// e_shstrndx; when they overflow their 16-bit fields, the real values sit
// in section 0 (sh_size and sh_link), as the gABI's extended numbering
// prescribes.
func (f *File) readSections(shoff uint64, entsize, num, strndx int) error {
	if shoff == 0 {
		if num != 0 {
			return f.errorf(-1, "%d section headers at offset 0", num)
		}
		return nil
	}
	minSize := shdr64
	if f.Class == elf.ELFCLASS32 {
		minSize = shdr32
	}
	if entsize < minSize {
		return f.errorf(-1, "section header size %d, smaller than the %d bytes of a %v header", entsize, minSize, f.Class)
	}
	if shoff > uint64(len(f.data)) || uint64(len(f.data))-shoff < uint64(entsize) {
		return f.errorf(int64(min(shoff, 1<<62)), "section header table beyond the file's %d bytes", len(f.data))
	}
	var s0 Section
	f.parseHeader(&s0, f.data[shoff:])
	room := (uint64(len(f.data)) - shoff) / uint64(entsize)
	n := uint64(num)
	if num == 0 {
		n = s0.Size // extended numbering
	}
	if n > room {
		return f.errorf(int64(shoff), "%d section headers of %d bytes exceed the file's %d bytes", n, entsize, len(f.data))
	}
	if strndx == int(elf.SHN_XINDEX) {
		strndx = int(s0.Link)
	}
	if strndx != 0 && uint64(strndx) >= n {
		return f.errorf(-1, "section name table index %d out of range (%d sections)", strndx, n)
	}
	f.sections = make([]Section, n)
	nameOffs := make([]uint32, n)
	for i := range f.sections {
		s := &f.sections[i]
		nameOffs[i] = f.parseHeader(s, f.data[shoff+uint64(i)*uint64(entsize):])
		s.Index = i
	}
	if strndx != 0 {
		if err := f.readNames(&f.sections[strndx], nameOffs); err != nil {
			return err
		}
	}
	f.byName = make(map[string]int, len(f.sections))
	for i := len(f.sections) - 1; i >= 1; i-- {
		f.byName[f.sections[i].Name] = i
	}
	return nil
}

// parseHeader decodes the section header at the start of b (which holds at
// least a full header) into s, and returns the offset of its name in the
// section name table.
func (f *File) parseHeader(s *Section, b []byte) (nameOff uint32) {
	bo := f.ByteOrder
	nameOff = bo.Uint32(b[0:])
	s.Type = elf.SectionType(bo.Uint32(b[4:]))
	if f.Class == elf.ELFCLASS32 {
		s.Flags = elf.SectionFlag(bo.Uint32(b[8:]))
		s.Addr = uint64(bo.Uint32(b[12:]))
		s.Offset = uint64(bo.Uint32(b[16:]))
		s.Size = uint64(bo.Uint32(b[20:]))
		s.Link = bo.Uint32(b[24:])
		s.Info = bo.Uint32(b[28:])
		s.Addralign = uint64(bo.Uint32(b[32:]))
		s.Entsize = uint64(bo.Uint32(b[36:]))
	} else {
		s.Flags = elf.SectionFlag(bo.Uint64(b[8:]))
		s.Addr = bo.Uint64(b[16:])
		s.Offset = bo.Uint64(b[24:])
		s.Size = bo.Uint64(b[32:])
		s.Link = bo.Uint32(b[40:])
		s.Info = bo.Uint32(b[44:])
		s.Addralign = bo.Uint64(b[48:])
		s.Entsize = bo.Uint64(b[56:])
	}
	return nameOff
}

// readNames resolves every section's name, given by its offset in
// nameOffs, in the string table section st.
// The table is copied once into a string; names are substrings of it, so
// they stay valid after Close.
func (f *File) readNames(st *Section, nameOffs []uint32) error {
	if st.Type == elf.SHT_NOBITS || st.Flags&elf.SHF_COMPRESSED != 0 {
		return f.errorf(-1, "section name table #%d is not stored as plain bytes", st.Index)
	}
	raw, err := f.rawData(st)
	if err != nil {
		return err
	}
	table := string(raw)
	for i := range f.sections {
		s := &f.sections[i]
		off := nameOffs[i]
		if uint64(off) >= uint64(len(table)) {
			if off == 0 {
				continue // an empty table names nothing
			}
			return f.errorf(int64(s.Offset), "section #%d: name offset %#x beyond the %d-byte name table", i, off, len(table))
		}
		rest := table[off:]
		end := strings.IndexByte(rest, 0)
		if end < 0 {
			return f.errorf(-1, "section #%d: name at offset %#x of the name table is not NUL-terminated", i, off)
		}
		s.Name = rest[:end]
	}
	return nil
}

// Sections returns the section header table, indexed by section number;
// entry 0 is the null section. The slice must not be modified.
func (f *File) Sections() []Section { return f.sections }

// Section returns the first section named name, or nil.
func (f *File) Section(name string) *Section {
	i, ok := f.byName[name]
	if !ok {
		return nil
	}
	return &f.sections[i]
}

// SectionByIndex returns section i, or nil when i is out of range.
func (f *File) SectionByIndex(i int) *Section {
	if i < 0 || i >= len(f.sections) {
		return nil
	}
	return &f.sections[i]
}

// rawData returns the section's bytes as stored in the file, bounds-checked,
// as a slice of the file's memory whose capacity ends with the section (so
// an append cannot write into the file's memory). SHT_NOBITS sections have
// no stored bytes and yield nil.
func (f *File) rawData(s *Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
		return nil, nil
	}
	n := uint64(len(f.data))
	if s.Offset > n || s.Size > n-s.Offset {
		return nil, f.secErrorf(s, -1, nil, "contents at file offset %#x, size %#x, beyond the file's %#x bytes", s.Offset, s.Size, n)
	}
	end := s.Offset + s.Size
	return f.data[s.Offset:end:end], nil
}

// String returns a short description of the section, for messages.
func (s *Section) String() string {
	return fmt.Sprintf("section %s (#%d, %v, offset %#x, size %#x)", s.Name, s.Index, s.Type, s.Offset, s.Size)
}
