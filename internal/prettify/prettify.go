// Package prettify is pahole's data pretty-printer (--prettify): records
// read from a file or a pipe, laid out by types from BTF or DWARF (the
// layout view's model, internal/classlayout), printed as C initializers
// byte for byte as pahole master prints them, with its options: a header
// record (--header_type) whose members --seek_bytes, --size_bytes and
// range= may name ("$header.e_phoff"), --skip, --count, and the -C type
// arguments sizeof= (records of variable size), type= and type_enum= (the
// record's real type named by an enumerator) and filter=.
//
// The package has three parts: the expressions (expr.go: operands,
// filters, header member paths), the record walker (walk.go, input.go:
// records read in order, in a buffer as long as the longest, so that any
// input streams in bounded memory) and the value printer (value.go).
// Run (this file) is pahole's stealer and prototype__stdio_fprintf_value:
// which unit's types are used, and the header and seeking before the walk.
package prettify

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gobtf/gobtf/internal/classlayout"
)

// Options are the pretty-printer's options; the -C names are given to
// NewRun, the loading options (languages) in Load.
type Options struct {
	HeaderType string  // --header_type ("" for none)
	Range      *string // --range (nil for none)
	Seek, Size *Operand
	Skip       uint32 // --skip, atoi's value taken as pahole's uint32
	Count      uint32 // --count; 0: every record
	Hex        bool   // --hex
	Verbose    bool   // -V
	Load       classlayout.Options
}

// Prototype is one -C name with its arguments.
type Prototype struct {
	Name string
	Args classlayout.ClassArgs
}

// proto is a -C name being looked for, then printed.
type proto struct {
	Prototype
	m          *classlayout.Model // where the type was found; nil until then
	id         uint32
	sizeMember int // -1: none
	typeMember int
	enums      []uint32
	filter     *Filter
	realTypes  map[uint64]uint32 // by type= value, the struct it names
}

// header is the --header_type record, read once before the first type's
// records (pahole's type_instance).
type header struct {
	m    *classlayout.Model
	id   uint32
	data []byte
	read bool
}

// Run is one pretty-printing run over the files of a command line: each
// Source given to Print in turn, then Finish.
type Run struct {
	opt    Options
	in     *Input
	w      *bufio.Writer
	errw   io.Writer
	protos []*proto // the names not printed yet, in order
	header *header
	vp     valuePrinter

	aborted string // the -C name whose arguments did not apply
}

// NewRun starts a run reading in, printing records to w and pahole's
// messages to errw.
func NewRun(opt Options, protos []Prototype, in *Input, w, errw io.Writer) *Run {
	r := &Run{opt: opt, in: in, w: bufio.NewWriterSize(w, 1<<18), errw: errw}
	for _, p := range protos {
		r.protos = append(r.protos, &proto{Prototype: p, sizeMember: -1, typeMember: -1})
	}
	r.vp.hex = opt.Hex
	return r
}

// stealResult is what a unit's look-up leads to.
type stealResult uint8

const (
	nextUnit  stealResult = iota // some type is still missing
	stopFile                     // printed: the file's other units are not read
	abortFile                    // an argument does not apply to its type
)

// Print looks for the types in src's units in order and, once every -C
// name (with its type_enum=) and the header type are found, prints the
// records. The error is src's, or, for DWARF, the -C arguments that do
// not apply to their type (pahole's DWARF loader fails there).
func (r *Run) Print(src classlayout.Source) error {
	res := nextUnit
	err := classlayout.Units(src, &r.opt.Load, func(m *classlayout.Model) (bool, error) {
		res = r.steal(m)
		return res == nextUnit, nil
	})
	if ferr := r.w.Flush(); err == nil {
		err = ferr
	}
	if err == nil && res == abortFile && classlayout.ArgsAbortFails(src) {
		err = &classlayout.ArgsError{Path: classlayout.SourcePath(src), Name: r.aborted}
	}
	return err
}

// Finish ends the run: the first -C name no file had is reported, as
// pahole reports it.
func (r *Run) Finish() error {
	if err := r.w.Flush(); err != nil {
		return err
	}
	for _, p := range r.protos {
		if p.m == nil {
			suffix := ""
			if p.Args.N != 0 {
				suffix = " or arguments not validated"
			}
			fmt.Fprintf(r.errw, "pahole: type '%s' not found%s\n", p.Name, suffix)
			break
		}
	}
	return nil
}

// steal is pahole_stealer in pretty-printing mode, on one unit.
func (r *Run) steal(m *classlayout.Model) stealResult {
	if r.header == nil && r.opt.HeaderType != "" {
		if id := m.FindType(r.opt.HeaderType); id != 0 {
			r.header = &header{m: m, id: id, data: make([]byte, headerSize(m, id))}
		}
	}
	for _, p := range r.protos {
		if p.m != nil {
			continue
		}
		switch res := r.resolve(m, p); res {
		case abortFile:
			r.aborted = p.Name
			return res
		case nextUnit:
			return res
		}
	}
	if r.header == nil && r.opt.HeaderType != "" {
		return nextUnit
	}
	for len(r.protos) > 0 {
		p := r.protos[0]
		r.protos = r.protos[1:]
		if !r.prettify(p) {
			break
		}
	}
	return stopFile
}

// resolve finds p's type in m and checks its arguments there, with
// pahole's messages; stopFile means found.
func (r *Run) resolve(m *classlayout.Model, p *proto) stealResult {
	id := m.FindType(p.Name)
	if id == 0 {
		return nextUnit
	}
	t := m.Type(id)
	a := p.Args
	if a.N != 0 && t.Kind != classlayout.KindStruct {
		fmt.Fprintln(r.errw, "pahole: attributes are only supported with 'class' and 'struct' types")
		return abortFile
	}
	sizeMember, typeMember := -1, -1
	if a.Has&classlayout.HasSize != 0 {
		if sizeMember = m.MemberIndex(t, a.Size); sizeMember < 0 {
			fmt.Fprintf(r.errw, "pahole: the sizeof member '%s' wasn't found in the '%s' type\n", a.Size, p.Name)
			return abortFile
		}
	}
	if a.Has&classlayout.HasType != 0 {
		if typeMember = m.MemberIndex(t, a.TypeMember); typeMember < 0 {
			fmt.Fprintf(r.errw, "pahole: the type member '%s' wasn't found in the '%s' type\n", a.TypeMember, p.Name)
			return abortFile
		}
	}
	var enums []uint32
	if a.Has&classlayout.HasTypeEnum != 0 {
		var ok bool
		if enums, ok = m.TypeEnums(a.TypeEnum); !ok {
			return nextUnit
		}
	}
	var filter *Filter
	if a.Has&classlayout.HasFilter != 0 {
		var verbose io.Writer
		if r.opt.Verbose {
			verbose = r.errw
		}
		f, ok := ParseFilter(m, id, typeMember, enums, a.Filter, a.FilterAfterBlank, verbose)
		if !ok {
			fmt.Fprintf(r.errw, "pahole: invalid filter '%s' for '%s'\n", a.Filter, p.Name)
			return abortFile
		}
		filter = &f
	}
	p.m, p.id, p.sizeMember, p.typeMember, p.enums, p.filter = m, id, sizeMember, typeMember, enums, filter
	return stopFile
}

// headerSize is the size pahole reads a header type with, its struct
// type's size field: bytes for structs and unions, bits for enums, none
// for typedefs.
func headerSize(m *classlayout.Model, id uint32) int {
	switch t := m.Type(id); t.Kind {
	case classlayout.KindStruct, classlayout.KindUnion:
		return int(t.Size)
	case classlayout.KindEnum:
		return int(t.Size) * 8
	}
	return 0
}

// intValue is type_instance__int_value: the integer at path in the
// header record, or false (pahole's -1) when there is no such integer
// member or its value is negative.
func (h *header) intValue(path string) (int64, bool) {
	off, size, ok := memberPath(h.m, h.id, path)
	if !ok {
		return 0, false
	}
	v := int64(baseValue(h.data, int(off), int(size)))
	return v, v >= 0
}

// cstr is a C string pahole prints with %s: "(null)" for none.
func cstr(set bool, s string) string {
	if !set {
		return "(null)"
	}
	return s
}

// hexC is C's %#llx: 0 without "0x".
func hexC(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}

// prettify is prototype__stdio_fprintf_value: the header read, the input
// positioned (range=, --seek_bytes) and limited (--size_bytes, range=),
// then p's records printed. false: it stopped at an error it reported.
func (r *Run) prettify(p *proto) bool {
	h := r.header
	if h != nil && !h.read {
		h.read = true
		if !r.in.ReadFull(h.data) {
			fmt.Fprintf(r.errw, "pahole: --header (%s) type couldn't be read\n", cstr(r.opt.HeaderType != "", r.opt.HeaderType))
			return false
		}
	}
	spec := walkSpec{size: sizeOf(p.m, p.id), skip: r.opt.Skip, count: r.opt.Count, sizeBytes: ^uint64(0)}
	if ok, done := r.seekRange(p, &spec); done {
		if !ok {
			return false
		}
	} else if !r.seekBytes() || !r.sizeBytes(&spec) {
		return false
	}
	ms := p.m.MembersOf(p.m.Type(p.id))
	if p.sizeMember >= 0 {
		spec.sizeOff, spec.sizeSize = int(ms[p.sizeMember].ByteOffset), int(ms[p.sizeMember].ByteSize)
	}
	if p.filter != nil {
		mb := &ms[p.filter.Member]
		spec.filterOff, spec.filterSize, spec.filterRight = int(mb.ByteOffset), int(mb.ByteSize), p.filter.Right
	}
	r.vp.typeModel, r.vp.typeStruct, r.vp.typeMember, r.vp.enums = p.m, p.id, p.typeMember, p.enums
	name := p.m.Type(p.id).Name
	var werr error
	err := walk(r.in, &spec, func(rec *record) {
		if werr != nil {
			return
		}
		id := r.realType(p, rec.buf)
		if r.opt.Verbose {
			r.vp.buf = fmt.Appendf(r.vp.buf, "// type=%s, offset=%s, sizeof=%d", name, hexC(uint64(rec.offset)), spec.size)
			if rec.size != spec.size {
				r.vp.buf = fmt.Appendf(r.vp.buf, ", real_sizeof=%d\n", rec.size)
			} else {
				r.vp.buf = append(r.vp.buf, '\n')
			}
		}
		r.vp.record(p.m, id, rec.buf, rec.size)
		r.vp.buf = append(r.vp.buf, ",\n"...)
		if len(r.vp.buf) >= 1<<16 {
			_, werr = r.w.Write(r.vp.buf)
			r.vp.buf = r.vp.buf[:0]
		}
	})
	if werr == nil {
		_, werr = r.w.Write(r.vp.buf)
	}
	r.vp.buf = r.vp.buf[:0]
	if isShortRecord(err) {
		fmt.Fprintln(r.errw, err)
		return false
	}
	return werr == nil
}

// realType is tag__real_type: with type= and type_enum=, the struct named
// by the record's type enumerator, in lower case ("PERF_RECORD_MMAP":
// struct perf_record_mmap), looked for in the unit of p's type; p's type
// when there is none.
func (r *Run) realType(p *proto, rec []byte) uint32 {
	if len(p.enums) == 0 || p.typeMember < 0 {
		return p.id
	}
	mb := &p.m.MembersOf(p.m.Type(p.id))[p.typeMember]
	v := baseValue(rec, int(mb.ByteOffset), int(mb.ByteSize))
	if id, ok := p.realTypes[v]; ok {
		return id
	}
	id := p.id
	if name, ok := r.vp.enumName(p.m, v); ok {
		if len(name) > 1023 {
			name = name[:1023] // pahole's buffer
		}
		if rid := p.m.FindType(asciiLower(name)); rid != 0 && p.m.Type(rid).Kind == classlayout.KindStruct {
			id = rid
		}
	}
	if p.realTypes == nil {
		p.realTypes = make(map[uint64]uint32)
	}
	p.realTypes[v] = id
	return id
}

// asciiLower is strlwr: ASCII letters in lower case.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
