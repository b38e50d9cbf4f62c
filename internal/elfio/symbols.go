package elfio

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"unsafe"
)

// Symbol is one entry of the symbol table, decoded.
type Symbol struct {
	// Name points into the file's string table without copying: it must not
	// be used after the File is closed.
	Name  string
	Value uint64
	Size  uint64
	// Section is the index of the section the symbol is defined in, taken
	// from .symtab_shndx when st_shndx is SHN_XINDEX, or one of the special
	// indexes (SHN_UNDEF, SHN_ABS, SHN_COMMON, ...) as stored.
	Section uint32
	Info    uint8 // st_info: type and binding
	Other   uint8 // st_other: visibility
}

// Type returns the symbol's type (STT_FUNC, STT_OBJECT, ...).
func (s Symbol) Type() elf.SymType { return elf.SymType(s.Info & 0xf) }

// Bind returns the symbol's binding (STB_LOCAL, STB_GLOBAL, STB_WEAK).
func (s Symbol) Bind() elf.SymBind { return elf.SymBind(s.Info >> 4) }

// Visibility returns the symbol's visibility (STV_DEFAULT, ...).
func (s Symbol) Visibility() elf.SymVis { return elf.SymVis(s.Other & 3) }

// ErrNoSymbols is wrapped by the error of Symbols for a file without a
// .symtab section.
var ErrNoSymbols = errors.New("no symbol table")

// symtab gives random access to the raw entries of a symbol table.
type symtab struct {
	sec     *Section
	data    []byte
	entsize int
	n       int    // entries, including the null entry 0
	shndx   []byte // .symtab_shndx contents, or nil
}

// symtab locates the file's SHT_SYMTAB section and its extended section
// index table. It returns a nil table (and no error) when there is none.
func (f *File) symtab() (*symtab, error) {
	var sec *Section
	for i := range f.sections {
		if f.sections[i].Type == elf.SHT_SYMTAB {
			sec = &f.sections[i]
			break
		}
	}
	if sec == nil {
		return nil, nil
	}
	return f.symtabOf(sec)
}

// symtabOf sets up access to the symbol table in section sec and its
// extended section index table, if any.
func (f *File) symtabOf(sec *Section) (*symtab, error) {
	data, err := f.SectionData(sec)
	if err != nil {
		return nil, err
	}
	std := 24
	if f.Class == elf.ELFCLASS32 {
		std = 16
	}
	es := int(min(sec.Entsize, 1<<16))
	if sec.Entsize == 0 {
		es = std
	}
	if es < std {
		return nil, f.secErrorf(sec, -1, nil, "symbol entry size %d, smaller than %d", sec.Entsize, std)
	}
	t := &symtab{sec: sec, data: data, entsize: es, n: len(data) / es}
	for i := range f.sections {
		x := &f.sections[i]
		if x.Type == elf.SHT_SYMTAB_SHNDX && int(x.Link) == sec.Index {
			if t.shndx, err = f.SectionData(x); err != nil {
				return nil, err
			}
			break
		}
	}
	return t, nil
}

// symEntry decodes symbol i's raw fields; i must be below t.n. ok is false
// when its section index is SHN_XINDEX and the extended table lacks it.
func (f *File) symEntry(t *symtab, i int, s *Symbol) (nameOff uint32, ok bool) {
	b := t.data[i*t.entsize:]
	bo := f.ByteOrder
	var shndx uint16
	nameOff = bo.Uint32(b)
	if f.Class == elf.ELFCLASS32 {
		s.Value = uint64(bo.Uint32(b[4:]))
		s.Size = uint64(bo.Uint32(b[8:]))
		s.Info = b[12]
		s.Other = b[13]
		shndx = bo.Uint16(b[14:])
	} else {
		s.Info = b[4]
		s.Other = b[5]
		shndx = bo.Uint16(b[6:])
		s.Value = bo.Uint64(b[8:])
		s.Size = bo.Uint64(b[16:])
	}
	s.Section = uint32(shndx)
	if elf.SectionIndex(shndx) == elf.SHN_XINDEX {
		if len(t.shndx) < 4*(i+1) {
			return nameOff, false
		}
		s.Section = bo.Uint32(t.shndx[4*i:])
	}
	return nameOff, true
}

// Symbols returns the entries of the .symtab section in order, leaving out
// the null entry 0: symbol number i is at index i-1, as with debug/elf. It
// allocates the slice and nothing per symbol. The error wraps ErrNoSymbols
// when the file has no symbol table.
func (f *File) Symbols() ([]Symbol, error) {
	t, err := f.symtab()
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("%s: %w", f.name, ErrNoSymbols)
	}
	strSec := f.SectionByIndex(int(t.sec.Link))
	if strSec == nil || strSec.Type != elf.SHT_STRTAB {
		return nil, f.secErrorf(t.sec, -1, nil, "link %d is not a string table", t.sec.Link)
	}
	strtab, err := f.SectionData(strSec)
	if err != nil {
		return nil, err
	}
	if t.n == 0 {
		return nil, nil
	}
	syms := make([]Symbol, t.n-1)
	for i := range syms {
		s := &syms[i]
		off, ok := f.symEntry(t, i+1, s)
		if !ok {
			return nil, f.secErrorf(t.sec, int64((i+1)*t.entsize), nil, "symbol %d: SHN_XINDEX without an entry in .symtab_shndx", i+1)
		}
		if off == 0 {
			continue
		}
		if uint64(off) >= uint64(len(strtab)) {
			return nil, f.secErrorf(t.sec, int64((i+1)*t.entsize), nil, "symbol %d: name offset %#x beyond the %d-byte string table %s", i+1, off, len(strtab), strSec.Name)
		}
		rest := strtab[off:]
		n := bytes.IndexByte(rest, 0)
		if n < 0 {
			return nil, f.secErrorf(strSec, int64(off), nil, "symbol %d: name not NUL-terminated", i+1)
		}
		if n > 0 {
			s.Name = unsafe.String(&rest[0], n)
		}
	}
	return syms, nil
}
