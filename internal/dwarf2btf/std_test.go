package dwarf2btf

// The standard library's path through the DWARF: debug/dwarf and debug/elf,
// slow (an allocation per DIE) but independent of gobtf's own decoder and
// ELF reader, which makes it the tests' reference for them.

import (
	stddwarf "debug/dwarf"
	"debug/elf"
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/dwarf/loc"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
	"github.com/gobtf/gobtf/internal/elfio"
)

// ConvertTypesStd converts the types and variables of every compilation unit
// of f, read with the standard library's debug/dwarf (which also applies the
// relocations of relocatable files), into one standalone Spec, not
// deduplicated. ef is the same file opened by elfio, for its sections.
func ConvertTypesStd(f *elf.File, ef *elfio.File, opts *Options) (*btf.Spec, error) {
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("reading DWARF: %w", err)
	}
	var units []stddwarf.Offset
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
	var debugAddr []byte
	if sec := f.Section(".debug_addr"); sec != nil {
		// Without relocations: fine for linked files, which is where
		// variable addresses mean something.
		debugAddr, _ = sec.Data()
	}
	open := func(i int) (dieStream, string) {
		return newStdStream(d, units[i]), fmt.Sprintf("unit at .debug_info offset %#x", units[i])
	}
	syms, _ := stdSymbols(f)
	return convertUnits(len(units), open, newTarget(ef, syms, opts, debugAddr, 0, nil), nil, opts)
}

// ConvertTypes converts like ConvertTypesStd with gobtf's own DIE decoder
// over the given sections (decompressed and, for relocatable files,
// relocated), reading the symbols through debug/elf.
func ConvertTypes(f *elf.File, ef *elfio.File, secs *die.Sections, opts *Options) (*btf.Spec, error) {
	return convertTypes(ef, func() ([]elfio.Symbol, error) { return stdSymbols(f) }, secs, nil, nil, nil, nil, opts)
}

// SectionsStd reads the DWARF sections of f with debug/elf (decompressing
// them, but applying no relocations).
func SectionsStd(f *elf.File) (*die.Sections, error) {
	s := &die.Sections{Order: f.ByteOrder}
	for i, dst := range s.Fields() {
		sec := f.Section(die.SectionNames[i])
		if sec == nil {
			continue
		}
		b, err := sec.Data()
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", die.SectionNames[i], err)
		}
		*dst = b
	}
	if s.Info == nil {
		return nil, fmt.Errorf("no .debug_info section")
	}
	return s, nil
}

// funcTableStd builds the function table of a file opened with elfio, from
// its symbols as debug/elf reads them.
func funcTableStd(ef *elfio.File, opts *Options) (*funcs.Table, error) {
	f, err := elf.Open(ef.Name())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := stdSymbols(f)
	return funcTable(ef, syms, err, funcOptions(opts))
}

// stdSymbols returns the symbols of f as debug/elf reads them, in elfio's
// form: the slow path, for files not read through elfio.
func stdSymbols(f *elf.File) ([]elfio.Symbol, error) {
	syms, err := f.Symbols()
	out := make([]elfio.Symbol, len(syms))
	for i, s := range syms {
		out[i] = elfio.Symbol{Name: s.Name, Value: s.Value, Size: s.Size, Section: uint32(s.Section), Info: s.Info, Other: s.Other}
	}
	return out, err
}

// stdStream reads one unit through the standard library's debug/dwarf. It is
// slow (an allocation per DIE) but independent of gobtf's own decoder, which
// makes it a reference to test that decoder's digests against.
type stdStream struct {
	r     *stddwarf.Reader
	depth int
	done  bool
}

// newStdStream positions a reader on the unit at off.
func newStdStream(d *stddwarf.Data, off stddwarf.Offset) *stdStream {
	r := d.Reader()
	r.Seek(off)
	return &stdStream{r: r}
}

// next tracks depth as the number of open DIEs with children; a null entry
// closes one, and the unit ends when its own children are closed.
func (s *stdStream) next(d *digest) (int, bool, error) {
	for !s.done {
		e, err := s.r.Next()
		if err != nil {
			return 0, false, err
		}
		if e == nil {
			s.done = true
			break
		}
		if e.Tag == 0 {
			s.depth--
			if s.depth <= 0 {
				s.done = true
			}
			continue
		}
		depth := s.depth
		if e.Children {
			s.depth++
		} else if depth == 0 {
			s.done = true
		}
		fillDigestStd(d, e)
		return depth, true, nil
	}
	return 0, false, nil
}

// fillDigestStd copies the attributes the converter reads from a debug/dwarf
// entry.
func fillDigestStd(d *digest, e *stddwarf.Entry) {
	d.off = uint64(e.Offset)
	d.tag = e.Tag
	d.children = e.Children
	for _, f := range e.Field {
		switch f.Attr {
		case dwarf.AttrName:
			d.name, _ = f.Val.(string)
		case dwarf.AttrType:
			if o, ok := f.Val.(stddwarf.Offset); ok {
				d.typ, d.hasTyp = uint64(o), true
			}
		case dwarf.AttrByteSize:
			d.byteSize, d.hasByteSize = uint64(asInt(f.Val)), true
		case dwarf.AttrBitSize:
			d.bitSize = uint64(asInt(f.Val))
		case dwarf.AttrEncoding:
			d.encoding = uint64(asInt(f.Val))
		case dwarf.AttrDataBitOffset:
			d.dataBitOffset, d.hasDataBitOffset = uint64(asInt(f.Val)), true
		case dwarf.AttrDataMemberLoc:
			switch v := f.Val.(type) {
			case int64:
				d.memberLoc, d.hasMemberLoc = uint64(v), true
			case []byte:
				d.memberLoc, d.hasMemberLoc = loc.PlusUconst(v), true
			}
		case dwarf.AttrBitOffset:
			d.bitOffset = uint64(asInt(f.Val))
		case dwarf.AttrUpperBound:
			if v, ok := f.Val.(int64); ok {
				d.upperBound, d.hasUpperBound = uint64(v), true
			} else {
				d.upperBoundNotConst = true
			}
		case dwarf.AttrCount:
			if v, ok := f.Val.(int64); ok {
				d.count, d.hasCount = uint64(v), true
			}
		case dwarf.AttrConstValue:
			switch v := f.Val.(type) {
			case int64:
				d.constValue, d.hasConstValue = uint64(v), true
			case string:
				d.constString, d.hasConstValue = v, true
			}
		case dwarf.AttrDeclaration:
			d.declaration, _ = f.Val.(bool)
		case dwarf.AttrSpecification:
			if o, ok := f.Val.(stddwarf.Offset); ok {
				d.specification = uint64(o)
			}
		case dwarf.AttrExternal:
			d.external, _ = f.Val.(bool)
		case dwarf.AttrLocation:
			d.location, _ = f.Val.([]byte)
		case dwarf.AttrArtificial:
			d.artificial, _ = f.Val.(bool)
		case dwarf.AttrAddrBase:
			d.addrBase, d.hasAddrBase = uint64(asInt(f.Val)), true
		case dwarf.AttrLanguage:
			d.language = uint64(asInt(f.Val))
		case dwarf.AttrProducer:
			d.producer, _ = f.Val.(string)
		case dwarf.AttrGNUAnnotation:
			if o, ok := f.Val.(stddwarf.Offset); ok {
				d.gnuAnnot = uint64(o)
			}
		}
	}
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case uint64:
		return int64(x)
	case bool:
		if x {
			return 1
		}
	}
	return 0
}
