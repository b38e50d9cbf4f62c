package btfext

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Object is what CO-RE relocation needs of a compiled BPF object: its BTF
// (the "local" types the relocations start from), its .BTF.ext and the
// programs its instructions belong to. Once read it is only read, so
// goroutines may share it.
type Object struct {
	// Name is the path the object was read from, used in messages.
	Name string
	// BTF is the object's .BTF.
	BTF *btf.Spec
	// PointerSize is the size of a pointer in the object's BTF, from its
	// ELF class (8 for the 64-bit BPF objects clang writes), as libbpf
	// takes it.
	PointerSize uint32
	// Ext is the object's .BTF.ext.
	Ext *Ext

	progs map[string][]program // by ELF section name, sorted by offset
}

// program is one function symbol of a section of instructions.
type program struct {
	name      string
	off, size uint64
}

// NewObject returns an Object of the given BTF and .BTF.ext with no
// program names (messages then name sections), for callers that have the
// sections without an ELF file.
func NewObject(name string, spec *btf.Spec, ptrSize uint32, ext *Ext) *Object {
	return &Object{Name: name, BTF: spec, PointerSize: ptrSize, Ext: ext, progs: map[string][]program{}}
}

// ReadObject reads the BPF object at path.
func ReadObject(path string) (*Object, error) {
	f, err := elfio.Open(path)
	if err != nil {
		if errors.Is(err, elfio.ErrNotELF) {
			return nil, fmt.Errorf("%s: not a BPF object: %w", path, err)
		}
		return nil, err
	}
	defer f.Close()
	return parseObject(path, f)
}

// ParseObject reads a BPF object held in data; name is used in messages.
// The Object does not alias data.
func ParseObject(name string, data []byte) (*Object, error) {
	f, err := elfio.NewFile(name, data)
	if err != nil {
		return nil, err
	}
	return parseObject(name, f)
}

// parseObject reads the object's .BTF, .BTF.ext and function symbols. Every
// error names the object, and the section and offset where it is known.
func parseObject(name string, f *elfio.File) (*Object, error) {
	secErr := func(sec string, off int, err error) error {
		var fe *FormatError
		if errors.As(err, &fe) {
			return &elfio.FormatError{File: name, Section: sec, Offset: int64(fe.Offset), Msg: fe.Msg}
		}
		var be *btf.FormatError
		if errors.As(err, &be) {
			return &elfio.FormatError{File: name, Section: sec, Offset: int64(be.Offset), Msg: be.Msg, Err: be.Err}
		}
		return &elfio.FormatError{File: name, Section: sec, Offset: int64(off), Err: err}
	}
	if f.Machine != elf.EM_BPF && f.Machine != elf.EM_NONE { // libbpf's test
		return nil, &elfio.FormatError{File: name, Offset: 18, Msg: fmt.Sprintf("not a BPF object (machine %v)", f.Machine)}
	}
	btfSec := f.Section(".BTF")
	if btfSec == nil {
		return nil, &elfio.FormatError{File: name, Offset: -1, Msg: "no .BTF section (compile with clang -g)"}
	}
	extSec := f.Section(".BTF.ext")
	if extSec == nil {
		return nil, &elfio.FormatError{File: name, Offset: -1, Msg: "no .BTF.ext section (compile with clang -g -target bpf)"}
	}
	raw, err := f.SectionData(btfSec)
	if err != nil {
		return nil, err
	}
	spec, err := btf.Parse(raw, nil)
	if err != nil {
		return nil, secErr(".BTF", -1, err)
	}
	if strs := spec.Strings().Bytes(); len(strs) == 0 || strs[0] != 0 || strs[len(strs)-1] != 0 {
		return nil, &elfio.FormatError{File: name, Section: ".BTF", Offset: -1, Msg: "the string section does not start with the empty string and end with a NUL"}
	}
	raw, err = f.SectionData(extSec)
	if err != nil {
		return nil, err
	}
	ext, err := Parse(raw)
	if err != nil {
		return nil, secErr(".BTF.ext", -1, err)
	}
	o := &Object{Name: name, BTF: spec, PointerSize: 8, Ext: ext, progs: map[string][]program{}}
	if f.Class == elf.ELFCLASS32 {
		o.PointerSize = 4
	}
	for _, s := range ext.Relocs {
		if _, ok := spec.Strings().Lookup(s.NameOff); !ok {
			return nil, secErr(".BTF.ext", s.Offset, fmt.Errorf("section name offset %#x is not in the .BTF string table", s.NameOff))
		}
	}
	if err := o.readPrograms(f); err != nil {
		return nil, err
	}
	return o, nil
}

// readPrograms indexes the function symbols of the object's sections of
// instructions, which name the programs (and subprograms) as libbpf names
// them. An object without a symbol table has no names; messages then name
// the section only.
func (o *Object) readPrograms(f *elfio.File) error {
	syms, err := f.Symbols()
	if errors.Is(err, elfio.ErrNoSymbols) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, s := range syms {
		if s.Type() != elf.STT_FUNC || s.Name == "" {
			continue
		}
		sec := f.SectionByIndex(int(s.Section))
		if sec == nil || sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		o.progs[sec.Name] = append(o.progs[sec.Name], program{strings.Clone(s.Name), s.Value, s.Size})
	}
	for _, ps := range o.progs {
		sort.Slice(ps, func(i, j int) bool { return ps[i].off < ps[j].off })
	}
	return nil
}

// SectionName returns the name of the ELF section a relocation section
// belongs to (Parse has checked that it is in the string table).
func (o *Object) SectionName(s *RelocSection) string { return o.BTF.Strings().String(s.NameOff) }

// Program returns the name of the function whose instructions hold the
// byte offset insnOff of section sec, or "" when no function symbol covers
// it.
func (o *Object) Program(sec string, insnOff uint32) string {
	ps := o.progs[sec]
	i := sort.Search(len(ps), func(i int) bool { return ps[i].off > uint64(insnOff) }) - 1
	if i < 0 {
		return ""
	}
	if p := ps[i]; uint64(insnOff) < p.off+p.size || p.size == 0 {
		return p.name
	}
	return ""
}
