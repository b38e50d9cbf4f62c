package dwarf2btf

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/dwarf/loc"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
)

// decoderStream reads one unit with gobtf's own allocation-free decoder. The
// Entry and its Fields buffer are reused for every DIE, and strings and
// blocks alias the section data, so a walk allocates nothing per DIE.
type decoderStream struct {
	d *die.Data
	r *die.Reader
	e die.Entry

	// along, when set, also takes every DIE (see withFuncs).
	along dieVisitor

	// tu, when the file has type units, walks those the unit refers to
	// after the unit (see typeunits.go).
	tu *tuWalk

	// plans, when set (usePlans), fills digests from the DIEs' bytes in
	// place where it can (see plans.go).
	plans *fixedPlans
}

// reader returns the reader of the unit's own DIEs.
func (st *decoderStream) reader() *die.Reader { return st.r }

// usePlans makes the stream fill digests by compiled plans, kept in p. It
// must be called before the walk and after withFuncs, if at all; a stream
// that walks type units does not use them.
func (st *decoderStream) usePlans(p *fixedPlans) {
	if st.tu != nil {
		return
	}
	p.begin(st.d, st.r.Unit())
	st.plans = p
	st.r.SetDeferFixed(true)
}

// dieVisitor takes the DIEs of a unit along with the type walk: the
// function collector (funcs.Collector.BeginWalk), which so reads a unit's
// subprograms from the same decoded DIEs.
type dieVisitor interface {
	// Visit takes the next DIE of the unit: every one, in order, but those
	// Passes declines.
	Visit(e *die.Entry) error
	// Passes reports whether Visit would do nothing with the next DIE, at
	// depth.
	Passes(depth int) bool
}

// withFuncs makes the stream also hand every DIE to v, and decode the DIEs
// funcs.WalkKeeps names too.
func (st *decoderStream) withFuncs(v dieVisitor) {
	st.along = v
	st.r.SetFilter(typeAndFuncWalkKeeps, typeWalkFixed)
}

// typeWalkFixed reports the tags for which typeWalkKeeps and
// typeAndFuncWalkKeeps decide by the tag alone below the unit DIE (see
// die.Reader.SetFilter): all but variables and parameters.
func typeWalkFixed(tag dwarf.Tag) bool {
	return tag != dwarf.TagVariable && tag != dwarf.TagFormalParameter
}

// typeAndFuncWalkKeeps is the filter of a type walk that also hands its
// DIEs to the function collector: typeWalkKeeps, and what
// funcs.WalkKeeps keeps.
func typeAndFuncWalkKeeps(tag, parent dwarf.Tag, depth int) bool {
	return typeWalkKeeps(tag, parent, depth) || funcs.WalkKeeps(tag, parent)
}

// newDecoderStream positions a reader of d on unit u.
func newDecoderStream(d *die.Data, u *die.Unit) *decoderStream {
	s := &decoderStream{d: d, r: d.NewReader()}
	s.r.SetLazyStrings(true) // fillDigest reads strings with Field.Str
	s.r.SetFilter(typeWalkKeeps, typeWalkFixed)
	// Neither walk does anything with a leaf DIE it does not keep (see
	// funcs.Collector.Visit and cuTypes.visit).
	s.r.SetDropLeaves(true)
	s.r.Seek(u)
	if d.HasTypeUnits() {
		s.tu = newTUWalk(d, u, typeWalkKeeps, typeWalkFixed)
	}
	return s
}

// next decodes the next DIE of the unit, and after the unit's own those of
// the type units it refers to (without their unit DIEs, so that their types
// sit at the unit's top level), into d. It returns the DIE's depth.
func (s *decoderStream) next(d *digest) (int, bool, error) {
	r := s.r
	if s.tu.walking() {
		r = s.tu.reader()
	}
	for {
		ok, err := r.Next(&s.e)
		if err != nil {
			return 0, false, err
		}
		if !ok {
			if !s.tu.advance() {
				return 0, false, nil
			}
			r = s.tu.reader()
			continue
		}
		if s.tu != nil {
			if s.tu.walking() && s.e.Depth == 0 {
				continue
			}
			s.tu.rewrite(&s.e)
		}
		// noVisit: the collector would do nothing with the DIE, which is
		// most of the time, so it is not handed it.
		v := s.along
		noVisit := v == nil || s.tu.walking() || v.Passes(s.e.Depth)
		if s.e.AttrPos >= 0 {
			if s.e.Depth > 0 && (noVisit || !funcs.ReadsFields(s.e.Tag)) && s.plans.fill(d, &s.e) {
				if !noVisit {
					if err := v.Visit(&s.e); err != nil {
						return 0, false, err
					}
				}
				return s.e.Depth, true, nil
			}
			d.reset()
			if err := r.DecodeDeferred(&s.e); err != nil {
				return 0, false, err
			}
		}
		if !noVisit {
			if err := v.Visit(&s.e); err != nil {
				return 0, false, err
			}
		}
		fillDigest(d, &s.e)
		return s.e.Depth, true, nil
	}
}

// fillDigest copies the attributes the converter reads from a decoded
// entry. Integer attributes take constant forms as pahole's attr_numeric
// does (sdata values keep their sign bits); references are absolute
// .debug_info offsets. A DW_FORM_ref_sig8 type reference (DWARF 4 type units)
// cannot be keyed by a .debug_info offset and is left unresolved.
func fillDigest(d *digest, e *die.Entry) {
	d.off = e.Offset
	d.tag = e.Tag
	d.children = e.Children
	for i := range e.Fields {
		f := &e.Fields[i]
		switch f.Attr {
		case dwarf.AttrName:
			d.nameField, d.lazyName, d.hasNameField = *f, true, true
		case dwarf.AttrType:
			if f.IsRef() {
				d.typ, d.hasTyp = f.Val, true
			}
		case dwarf.AttrByteSize:
			if f.Form.IsConst() {
				d.byteSize, d.hasByteSize = f.Val, true
			}
		case dwarf.AttrBitSize:
			d.bitSize = f.Val
		case dwarf.AttrEncoding:
			d.encoding = f.Val
		case dwarf.AttrDataBitOffset:
			d.dataBitOffset, d.hasDataBitOffset = f.Val, true
		case dwarf.AttrDataMemberLoc:
			if f.Form.IsBlock() {
				d.memberLoc = loc.PlusUconst(f.Data)
			} else {
				d.memberLoc = f.Val
			}
			d.hasMemberLoc = true
		case dwarf.AttrBitOffset:
			d.bitOffset = f.Val
		case dwarf.AttrUpperBound:
			if f.Form.IsConst() {
				d.upperBound, d.hasUpperBound = f.Val, true
			} else {
				d.upperBoundNotConst = true
			}
		case dwarf.AttrCount:
			if f.Form.IsConst() {
				d.count, d.hasCount = f.Val, true
			}
		case dwarf.AttrConstValue:
			switch {
			case f.Form.IsConst():
				d.constValue, d.hasConstValue = f.Val, true
			case f.Form.IsString():
				d.constString, d.hasConstValue = f.Str(), true
			}
		case dwarf.AttrDeclaration:
			d.declaration = f.Val != 0
		case dwarf.AttrSpecification:
			if f.IsRef() {
				d.specification = f.Val
			}
		case dwarf.AttrSignature:
			if f.IsRef() { // a type unit's type, rewritten by tuWalk
				d.signature = f.Val
			}
		case dwarf.AttrExternal:
			d.external = f.Val != 0
		case dwarf.AttrArtificial:
			d.artificial = f.Val != 0
		case dwarf.AttrLocation:
			if f.Form.IsBlock() {
				d.location = f.Data
			}
		case dwarf.AttrAddrBase:
			d.addrBase, d.hasAddrBase = f.Val, true
		case dwarf.AttrLanguage:
			d.language = f.Val
		case dwarf.AttrProducer:
			d.producer = f.Str()
		case dwarf.AttrGNUAnnotation:
			if f.IsRef() {
				d.gnuAnnot = f.Val
			}
		}
	}
}

// typeWalkKeeps reports whether the type walk (cuTypes.walk and visit) reads
// anything of a DIE with the given tag, parent tag and depth: the unit DIE,
// top-level variables, the parameters of subroutine types, and the tags
// visit and visitType look at. The others (subprograms, local variables,
// lexical blocks, inlined calls, call sites, labels, the parameters of
// functions and of inlined calls, ...) are only stepped over, keeping their
// depth and children so that the types defined below them are still found.
// (A parameter whose parent is not known, 0, is kept: visit sorts it out.)
func typeWalkKeeps(tag, parent dwarf.Tag, depth int) bool {
	if depth == 0 {
		return true
	}
	switch tag {
	case dwarf.TagVariable:
		return depth == 1
	case dwarf.TagFormalParameter:
		return parent == dwarf.TagSubroutineType || parent == 0
	case dwarf.TagArrayType, dwarf.TagClassType, dwarf.TagEnumerationType, dwarf.TagMember, dwarf.TagPointerType,
		dwarf.TagReferenceType, dwarf.TagStringType, dwarf.TagStructType, dwarf.TagSubroutineType, dwarf.TagTypedef, dwarf.TagUnionType,
		dwarf.TagUnspecifiedParameters, dwarf.TagInheritance, dwarf.TagPtrToMemberType, dwarf.TagSubrangeType, dwarf.TagBaseType, dwarf.TagConstType,
		dwarf.TagEnumerator, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagUnspecifiedType, dwarf.TagRvalueReferenceType, dwarf.TagAtomicType,
		dwarf.TagLLVMAnnotation, dwarf.TagGNUAnnotation:
		return true
	}
	return false
}
