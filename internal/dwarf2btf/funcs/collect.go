package funcs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// Collect follows pahole's loading of one unit's functions and its
// per-unit encoder pass. The steps and their order matter, because pahole
// shares information between a concrete out-of-line instance of a function
// (a DW_TAG_subprogram with DW_AT_abstract_origin and an address) and its
// abstract instance (the one with the declared name, types and parameters):
//
//  1. walk the unit: every DW_TAG_subprogram, wherever it is nested, with its
//     DW_TAG_formal_parameter children (numbered in order), varargs and
//     btf_decl_tag annotations. pahole registers a subprogram after its
//     children, so the unit's function order is DIE post-order;
//  2. decode every parameter's location (location.go), which needs the byte
//     size of its type (taken through the abstract origin if it has one);
//  3. resolve, in function order, each parameter without DW_AT_type through
//     its abstract origin: it takes the origin's name and type, its function
//     is "reordered" when the two positions differ, and the origin parameter
//     accumulates the location facts (so an abstract instance learns where
//     its concrete instances keep their parameters);
//  4. analyse each function's parameter locations against the ABI
//     registers (analyze) and set its flags;
//  5. save every function that is not a declaration, has all parameters
//     named and whose name is in the ELF function table.
func (s *Collector) Collect(in Unit) ([]Candidate, error) {
	u := &unit{units: in.Units, data: in.Data, spec: in.Types.Spec(), typeID: in.Types.TypeID,
		producerClang: in.Clang, machine: in.Machine, elf: s.table, opts: s.opts}
	if s.prewalked && len(in.Units) == 1 && &in.Units[0] == s.walked {
		// Step 1 was done beside the type walk (BeginWalk).
		s.prewalked, s.walked = false, nil
		s.loc.reset(u.data.Sections(), &u.units[0])
	} else {
		s.reset(u)
		if err := s.walk(u); err != nil {
			return nil, err
		}
	}
	s.sizesAndLocations(u)
	s.resolveOrigins()
	abi := abiFor(u.machine)
	for _, fi := range s.order {
		s.analyze(u, &abi, fi)
	}
	return s.candidates(u, &abi), nil
}

// TakeNotFound hands over, with Options.Log, the names of the functions of
// the last unit collected left out for want of an ELF symbol of the name.
func (s *Collector) TakeNotFound() []string {
	b := s.notFound
	s.notFound = nil
	return b
}

// subprog is one DW_TAG_subprogram of the unit being collected.
type subprog struct {
	off       uint64
	name      die.Field // DW_AT_name (zero if none), read (Str) only where it is needed
	origin    uint64    // DW_AT_abstract_origin, 0 if none
	spec      uint64    // DW_AT_specification, 0 if none
	typ       uint64    // DW_AT_type, 0 if none
	lowPC     uint64
	gnuAnnot  uint64 // DW_AT_GNU_annotation: first annotation DIE, 0 if none
	hasOrigin bool
	decl      bool
	inlined   bool
	ccNocall  bool // DW_AT_calling_convention is DW_CC_nocall
	unspec    bool // has DW_TAG_unspecified_parameters
	first, n  int32
	nAnnots   int32
	flags     funcFlags
}

// fparam is one DW_TAG_formal_parameter of a subprogram.
type fparam struct {
	off      uint64
	origin   uint64 // DW_AT_abstract_origin, 0 if none
	typ      uint64 // DW_AT_type, 0 if none; after step 3 the resolved type
	gnuAnnot uint64
	name     die.Field // DW_AT_name (zero if none), read (Str) only where it is needed
	hasType  bool
	fn       int32
	idx      int32
	unit     int32 // index in unit.units, for its location lists

	locForm  dwarf.Form
	locVal   uint64
	locData  []byte
	hasLoc   bool
	hasConst bool // DW_AT_const_value

	loc        paramLoc
	typeSize   int
	inMemory   bool
	optimized  bool
	unexpected bool

	// With true_signature, the one member of an aggregate parameter that
	// arrives in a register, encoded in the parameter's place (see
	// trueSigMember).
	member    string
	memberTyp btf.TypeID
	hasMember bool
}

// fannot is one btf_decl_tag annotation of a function or of a parameter.
type fannot struct {
	fn        int32
	component int32
	value     string
}

// Collector collects the function candidates of one unit at a time. It
// keeps its buffers from unit to unit: a converter goroutine has one.
type Collector struct {
	table *Table
	opts  *Options

	subs   []subprog
	params []fparam
	annots []fannot
	order  []int32 // subprogram indexes in pahole's function order
	loc    locReader
	entry  die.Entry // for following annotation chains
	reader *die.Reader

	// per-unit output arenas, handed over (not reused) at the end
	outStrs []byte

	// notFound, with Options.Log, names each function of the unit left
	// out for want of an ELF function of its name; it is handed over with
	// the candidates (TakeNotFound).
	notFound []string

	// The walk of step 1 (Visit), and whether it has been done beside
	// the type walk (BeginWalk) for the unit Collect is given next.
	stack     []fnFrame
	unit      int32     // index of the unit walked in unit.units
	cUnit     bool      // the unit's language is C
	declTags  bool      // btf_decl_tag annotations are collected
	walked    *die.Unit // the unit BeginWalk was given
	prewalked bool      // EndWalk has ended the walk of walked
	// skipping is set while Visit is inside the subtree of a DIE whose
	// subtree holds nothing collected (skipsFuncs), at depth skipDepth.
	skipping  bool
	skipDepth int
}

// NewCollector returns a collector of the functions that table has, as
// opts says.
func NewCollector(table *Table, opts *Options) *Collector {
	return &Collector{table: table, opts: opts}
}

func (s *Collector) reset(u *unit) {
	s.resetWalk()
	s.loc.reset(u.data.Sections(), &u.units[0])
}

// resetWalk clears what step 1 collects.
func (s *Collector) resetWalk() {
	s.subs = s.subs[:0]
	s.params = s.params[:0]
	s.annots = s.annots[:0]
	s.order = s.order[:0]
	s.outStrs = s.outStrs[:0]
	s.stack = s.stack[:0]
	s.skipping = false
}

// BeginWalk prepares step 1 for unit u, whose DIEs another walk (the type
// walk) reads with r and hands to Visit, every one of them in order but
// those Passes declines, before calling EndWalk. r must decode the DIEs
// WalkKeeps keeps, those with the tags ReadsFields names into their Fields.
// Collect, given that unit next, then skips its own walk, so the unit is
// walked once.
func (s *Collector) BeginWalk(r *die.Reader, u *die.Unit) {
	s.resetWalk()
	s.reader, s.unit, s.cUnit, s.declTags = r, 0, isC(u.Language), s.opts.DeclTag
	s.walked, s.prewalked = u, false
}

// EndWalk closes the frames still open at the end of the unit, and marks
// step 1 done for Collect.
func (s *Collector) EndWalk() error {
	if err := s.endWalkUnit(); err != nil {
		return err
	}
	s.prewalked = true
	return nil
}

// Passes reports whether Visit would do nothing with a DIE at depth: it is
// below one whose subtree holds nothing Visit collects.
func (s *Collector) Passes(depth int) bool { return s.skipping && depth > s.skipDepth }

// WalkKeeps reports whether a walk that hands its DIEs to Visit must decode
// the DIEs with the given tag and parent tag: subprograms, their
// parameters and unspecified parameters, and annotations.
func WalkKeeps(tag, parent dwarf.Tag) bool {
	switch tag {
	case dwarf.TagSubprogram, dwarf.TagLLVMAnnotation, dwarf.TagGNUAnnotation:
		return true
	case dwarf.TagFormalParameter, dwarf.TagUnspecifiedParameters:
		return parent == dwarf.TagSubprogram
	}
	return false
}

// fnFrame is an open DIE of the walk.
type fnFrame struct {
	depth int
	kind  uint8 // 0 other, 1 subprogram, 2 parameter
	idx   int32
}

// walk reads the DIEs of the unit, or of every unit of a merged
// conversion in order (step 1).
func (s *Collector) walk(u *unit) error {
	r := u.data.NewReader()
	r.SetLazyStrings(true) // strings are read with Field.Str only
	r.SetFilter(funcWalkKeeps, func(dwarf.Tag) bool { return true })
	s.reader = r
	s.declTags = u.opts.DeclTag
	for k := range u.units {
		r.Seek(&u.units[k])
		s.unit, s.cUnit = int32(k), isC(u.units[k].Language)
		if err := s.walkUnit(u, r); err != nil {
			return err
		}
	}
	return nil
}

// walkUnit reads the DIEs of the unit r is positioned at.
func (s *Collector) walkUnit(u *unit, r *die.Reader) error {
	var e die.Entry
	s.stack = s.stack[:0]
	for {
		ok, err := r.Next(&e)
		if err != nil {
			return fmt.Errorf("functions: %w", err)
		}
		if !ok {
			break
		}
		if err := s.Visit(&e); err != nil {
			return err
		}
		if e.Children && skipsFuncs(e.Tag, s.cUnit) {
			// Nothing the walk collects can be below: step over the
			// subtree without decoding it.
			if err := r.SkipChildren(); err != nil {
				return fmt.Errorf("functions: %w", err)
			}
		}
	}
	return s.endWalkUnit()
}

// endWalkUnit closes the frames still open at the end of a unit.
func (s *Collector) endWalkUnit() error {
	for len(s.stack) > 0 {
		if err := s.closeFrame(s.stack[len(s.stack)-1]); err != nil {
			return err
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
	return nil
}

// Visit takes the next DIE of the unit in step 1.
func (s *Collector) Visit(e *die.Entry) error {
	// The DIEs below one whose subtree holds nothing collected are passed
	// over at once: the type walk hands them all to Visit, and most of a
	// kernel's DIEs are struct members and enumerators.
	if s.skipping {
		if e.Depth > s.skipDepth {
			return nil
		}
		s.skipping = false
	}
	for len(s.stack) > 0 && s.stack[len(s.stack)-1].depth >= e.Depth {
		if err := s.closeFrame(s.stack[len(s.stack)-1]); err != nil {
			return err
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
	var parent fnFrame
	if len(s.stack) > 0 {
		parent = s.stack[len(s.stack)-1]
	}
	// A DIE whose subtree holds nothing collected (skipsFuncs) gets a
	// plain frame, so that its children (the parameters of a subroutine
	// type, say) are not taken for those of an enclosing function.
	f := fnFrame{depth: e.Depth}
	switch {
	case e.Children && skipsFuncs(e.Tag, s.cUnit):
		s.skipping, s.skipDepth = true, e.Depth
	case e.Tag == dwarf.TagSubprogram:
		s.subs = append(s.subs, subprogFrom(e))
		f.kind, f.idx = 1, int32(len(s.subs)-1)
	case e.Tag == dwarf.TagFormalParameter && parent.kind == 1:
		fn := &s.subs[parent.idx]
		p := paramFrom(e)
		p.fn, p.idx, p.unit = parent.idx, fn.n, s.unit
		if fn.n == 0 {
			fn.first = int32(len(s.params))
		}
		fn.n++
		s.params = append(s.params, p)
		f.kind, f.idx = 2, int32(len(s.params)-1)
	case e.Tag == dwarf.TagUnspecifiedParameters && parent.kind == 1:
		s.subs[parent.idx].unspec = true
	case e.Tag == dwarf.TagLLVMAnnotation || e.Tag == dwarf.TagGNUAnnotation:
		if s.declTags && parent.kind != 0 {
			fn, comp := parent.idx, int32(-1)
			if parent.kind == 2 {
				fn, comp = s.params[parent.idx].fn, s.params[parent.idx].idx
			}
			s.addAnnot(e, fn, comp)
		}
	}
	if e.Children {
		s.stack = append(s.stack, f)
	} else if f.kind != 0 {
		return s.closeFrame(f)
	}
	return nil
}

// ReadsFields reports whether Visit may read the attributes of a DIE with
// the given tag, outside the subtrees it passes over: those of
// subprograms, parameters and annotations.
func ReadsFields(tag dwarf.Tag) bool {
	switch tag {
	case dwarf.TagSubprogram, dwarf.TagFormalParameter, dwarf.TagLLVMAnnotation, dwarf.TagGNUAnnotation:
		return true
	}
	return false
}

// funcWalkKeeps reports whether the function walk reads anything of a DIE
// with the given tag: subprograms, parameters and annotations. The others
// (locals, lexical blocks, inlined calls, call sites, ...) are stepped over
// unread, keeping only their place in the tree. Below the unit DIE, the tag
// alone decides.
func funcWalkKeeps(tag, _ dwarf.Tag, depth int) bool {
	switch tag {
	case dwarf.TagSubprogram, dwarf.TagFormalParameter, dwarf.TagUnspecifiedParameters, dwarf.TagLLVMAnnotation, dwarf.TagGNUAnnotation:
		return true
	}
	// Types whose subtrees skipsFuncs steps over are read for their
	// DW_AT_sibling.
	return depth == 0 || skipsFuncs(tag, true)
}

// skipsFuncs reports whether the children of a DIE with the given tag can
// hold nothing the function walk collects (subprograms, their parameters and
// annotations): those of enumerations, arrays and subroutine types never do
// (parameters of a subroutine type are not a function's), and in C, where no
// function is defined inside a type, neither do those of structs and unions.
func skipsFuncs(tag dwarf.Tag, cUnit bool) bool {
	switch tag {
	case dwarf.TagEnumerationType, dwarf.TagArrayType, dwarf.TagSubroutineType:
		return true
	case dwarf.TagStructType, dwarf.TagUnionType:
		return cUnit
	}
	return false
}

// isC reports whether a DW_AT_language value is a version of C.
func isC(lang uint64) bool { return lang <= 0xffff && dwarf.Lang(lang).IsC() }

// closeFrame finishes a subprogram or parameter whose children have been
// read: gcc-style annotations chained from it come last, and a subprogram
// takes its place in the function order.
func (s *Collector) closeFrame(f fnFrame) error {
	switch f.kind {
	case 1:
		if s.declTags {
			if err := s.annotChain(s.subs[f.idx].gnuAnnot, f.idx, -1); err != nil {
				return err
			}
		}
		s.order = append(s.order, f.idx)
	case 2:
		p := &s.params[f.idx]
		if s.declTags {
			if err := s.annotChain(p.gnuAnnot, p.fn, p.idx); err != nil {
				return err
			}
		}
	}
	return nil
}

// addAnnot records e if it is a btf_decl_tag annotation.
func (s *Collector) addAnnot(e *die.Entry, fn, comp int32) {
	var name, value string
	for i := range e.Fields {
		switch f := &e.Fields[i]; f.Attr {
		case dwarf.AttrName:
			name = f.Str()
		case dwarf.AttrConstValue:
			value = f.Str()
		}
	}
	if name != "btf_decl_tag" {
		return
	}
	s.annots = append(s.annots, fannot{fn: fn, component: comp, value: value})
	s.subs[fn].nAnnots++
}

// annotChain follows a DW_AT_GNU_annotation chain starting at off.
func (s *Collector) annotChain(off uint64, fn, comp int32) error {
	for hops := 0; off != 0 && hops < 1024; hops++ {
		if err := s.reader.EntryAt(die.SecInfo, off, &s.entry); err != nil {
			return fmt.Errorf("functions: annotation at %#x: %w", off, err)
		}
		if s.entry.Tag != dwarf.TagGNUAnnotation {
			return nil
		}
		s.addAnnot(&s.entry, fn, comp)
		off = 0
		if f := s.entry.Field(dwarf.AttrGNUAnnotation); f != nil && f.IsRef() {
			off = f.Val
		}
	}
	return nil
}

func subprogFrom(e *die.Entry) subprog {
	sp := subprog{off: e.Offset}
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			sp.name = *f
		case dwarf.AttrAbstractOrigin:
			sp.hasOrigin = true
			if f.IsRef() {
				sp.origin = f.Val
			}
		case dwarf.AttrSpecification:
			if f.IsRef() {
				sp.spec = f.Val
			}
		case dwarf.AttrType:
			if f.IsRef() {
				sp.typ = f.Val
			}
		case dwarf.AttrLowpc:
			sp.lowPC = f.Val
		case dwarf.AttrDeclaration:
			sp.decl = true
		case dwarf.AttrInline:
			sp.inlined = f.Val != 0
		case dwarf.AttrCallingConvention:
			sp.ccNocall = f.Val == uint64(dwarf.CCNocall)
		case dwarf.AttrGNUAnnotation:
			if f.IsRef() {
				sp.gnuAnnot = f.Val
			}
		}
	}
	return sp
}

func paramFrom(e *die.Entry) fparam {
	p := fparam{off: e.Offset, loc: paramLoc{reg: regUnknown}}
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			p.name = *f
		case dwarf.AttrType:
			if f.IsRef() {
				p.typ, p.hasType = f.Val, true
			}
		case dwarf.AttrAbstractOrigin:
			if f.IsRef() {
				p.origin = f.Val
			}
		case dwarf.AttrLocation:
			p.hasLoc = true
			p.locForm, p.locVal, p.locData = f.Form, f.Val, f.Data
		case dwarf.AttrConstValue:
			p.hasConst = true
		case dwarf.AttrGNUAnnotation:
			if f.IsRef() {
				p.gnuAnnot = f.Val
			}
		}
	}
	return p
}

// findSub returns the index of the subprogram at off, or -1.
func (s *Collector) findSub(off uint64) int {
	i := sort.Search(len(s.subs), func(i int) bool { return s.subs[i].off >= off })
	if i < len(s.subs) && s.subs[i].off == off {
		return i
	}
	return -1
}

// findParam returns the index of the parameter at off, or -1.
func (s *Collector) findParam(off uint64) int {
	i := sort.Search(len(s.params), func(i int) bool { return s.params[i].off >= off })
	if i < len(s.params) && s.params[i].off == off {
		return i
	}
	return -1
}

// sizesAndLocations is step 2.
func (s *Collector) sizesAndLocations(u *unit) {
	abi := abiFor(u.machine)
	addrSize := u.addrSize()
	limit := addrSize
	if abi.twoRegs {
		limit = 2 * addrSize
	}
	cur := int32(0)
	for i := range s.params {
		p := &s.params[i]
		if p.unit != cur {
			cur = p.unit
			s.loc.reset(u.data.Sections(), &u.units[cur])
		}
		typ := p.typ
		if p.origin != 0 {
			typ = 0
			if j := s.findParam(p.origin); j >= 0 {
				typ = s.params[j].typ
			}
		}
		if typ != 0 {
			p.typeSize = typeByteSize(u, typ)
		}
		p.inMemory = p.typeSize > limit
		if p.hasLoc {
			s.loc.decode(p.locForm, p.locVal, p.locData, p.typeSize, abi.twoRegs, &p.loc)
		}
	}
}

// typeByteSize is the size pahole gives a parameter's type for the ABI
// checks: a pointer's address size, else the first byte size met along the
// chain of referenced types (so an array counts as its element).
func typeByteSize(u *unit, off uint64) int {
	id := u.typeID(off)
	for hops := 0; id != 0 && hops < 64; hops++ {
		t := u.spec.Type(id)
		if t == nil {
			return 0
		}
		switch t.Kind() {
		case btf.KindPtr:
			return u.addrSize()
		case btf.KindInt, btf.KindFloat, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
			return int(t.Size())
		case btf.KindArray:
			id, _, _ = t.Array()
		case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			id = t.Ref()
		default:
			return 0
		}
	}
	return 0
}

// resolveOrigins is step 3.
func (s *Collector) resolveOrigins() {
	for _, fi := range s.order {
		sp := &s.subs[fi]
		for k := sp.first; k < sp.first+sp.n; k++ {
			p := &s.params[k]
			if p.hasType || p.origin == 0 {
				continue
			}
			j := s.findParam(p.origin)
			if j < 0 {
				continue
			}
			o := &s.params[j]
			p.name = o.name
			if p.idx != o.idx {
				sp.flags |= flagReordered
			}
			p.typ = o.typ
			if p.hasLoc {
				o.hasLoc = true
			}
			if p.hasConst {
				o.hasConst = true
			}
			if p.loc.constVal {
				o.loc.constVal = true
			}
			if p.loc.stack {
				o.loc.stack = true
			}
			if p.loc.reg != regUnknown {
				o.loc.reg = p.loc.reg
			}
			if p.typeSize != 0 {
				o.typeSize = p.typeSize
			}
			if p.inMemory {
				o.inMemory = true
			}
			o.loc.first |= p.loc.first
			o.loc.second |= p.loc.second
		}
	}
}

// named reports whether a subprogram's or parameter's name field was set
// (a DIE's DW_AT_name, possibly an empty string).
func named(f *die.Field) bool { return f.Attr == dwarf.AttrName }

// funcName returns a subprogram's name attribute: its own, else its
// abstract origin's, else its specification's; nil when it has none.
func (s *Collector) funcName(sp *subprog) *die.Field {
	if named(&sp.name) {
		return &sp.name
	}
	if sp.origin == 0 && sp.spec == 0 {
		return nil
	}
	for _, ref := range [2]uint64{sp.origin, sp.spec} {
		if ref == 0 {
			continue
		}
		if j := s.findSub(ref); j >= 0 {
			if f := &s.subs[j].name; named(f) {
				return f
			}
			return nil
		}
	}
	return nil
}

// kabi applies --kabi_prefix to a name read from DWARF.
func kabiName(opts *Options, name string) string {
	if p := opts.KabiPrefix; p != "" && strings.HasPrefix(name, p) {
		return p
	}
	return name
}
