package dwarf2btf

import (
	"encoding/binary"
	"unsafe"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// Compiled digests.
//
// Decoding a DIE into Fields and then looking through them for the
// attributes a digest keeps decodes every value, stores it in a 40-byte
// Field, and switches on it twice (on its form, then on its attribute).
// Yet nearly every DIE the type walk reads has a fixed layout
// (die.Unit.FixedLayout): its values lie at the same offsets in every DIE
// of its abbreviation. So the stream compiles, once per abbreviation of a
// unit, the few reads the digest needs (a plan), and fills the digest by
// running them on the DIE's bytes in place.
//
// The invariant: running a plan leaves the digest exactly as fillDigest
// leaves it after Next has decoded the same DIE, and fails (the caller then
// decodes the DIE after all) wherever Next could have reported an error.
// Hence the plan compiler refuses whatever Next resolves or checks beyond a
// plain read (string indexes, supplementary files, strings outside a
// terminated .debug_str), and the strp offsets a plan reads are checked
// against the section as Next checks them. TestPlansMatchFields compares
// both ways on every DIE of the test inputs.

// planAct says what one plan step does with the value it reads.
type planAct uint8

const (
	actCheckStr      planAct = iota // a strp value nothing reads: only checked, as Next does
	actCheckStrx                    // the same for a string index (strx1-4)
	actName                         // DW_AT_name as a strp offset
	actNameStrx                     // DW_AT_name as a string index
	actType                         // DW_AT_type reference
	actByteSize                     // DW_AT_byte_size, constant form
	actBitSize                      // DW_AT_bit_size, any form
	actEncoding                     // DW_AT_encoding
	actDataBitOffset                // DW_AT_data_bit_offset
	actMemberLoc                    // DW_AT_data_member_location, constant form
	actBitOffset                    // DW_AT_bit_offset
	actUpperBound                   // DW_AT_upper_bound, constant form
	actUpperNotConst                // DW_AT_upper_bound, other forms
	actCount                        // DW_AT_count, constant form
	actConstValue                   // DW_AT_const_value, constant form
	actDeclaration                  // DW_AT_declaration
	actSpecification                // DW_AT_specification reference
	actSignature                    // DW_AT_signature reference
	actExternal                     // DW_AT_external
	actArtificial                   // DW_AT_artificial
	actAddrBase                     // DW_AT_addr_base
	actLanguage                     // DW_AT_language
	actGNUAnnot                     // DW_AT_GNU_annotation reference
)

// planStep reads the size-byte little-endian value at off of a DIE's
// values (none when size is 0), adds imm (a unit's offset for unit-relative
// references; the value itself for implicit_const and flag_present), and
// stores it in the digest field at byte offset dst of digestScalars,
// setting the flag at byte offset flag. Steps whose value has nowhere to go
// (a check, a field without a flag) aim at sink and sinkFlag (places).
//
// Offsets rather than a switch on what the step does: a switch of a dozen
// cases, taken per attribute in an order that changes from DIE to DIE,
// mispredicts about once per DIE.
type planStep struct {
	kind  stepKind
	size  uint8
	off   uint16
	dst   uint16
	flag  uint16
	mask  uint64 // the low size bytes
	imm   uint64
	limit uint64 // stepStore: the largest value that does not fail the plan
}

// stepKind says how a step stores its value.
type stepKind uint8

const (
	stepStore stepKind = iota // the value at dst, true at flag
	stepBool                  // value != 0 at dst, a bool
	stepStrx                  // the value is a string index: its .debug_str offset at dst, true at flag
)

// stepPlace says where a step with a given action stores its value: how,
// and at which byte offsets of digestScalars.
type stepPlace struct {
	kind      stepKind
	dst, flag uintptr
}

// Offsets of digestScalars' fields, for places.
const (
	sink     = unsafe.Offsetof(digestScalars{}.sink)
	sinkFlag = unsafe.Offsetof(digestScalars{}.sinkFlag)
)

// places gives each action's place, as fillDigest stores the same
// attribute: a value with its has-flag where the digest has one (else
// sinkFlag), flags as value != 0, checks into the sink.
var places = [...]stepPlace{
	actCheckStr:      {stepStore, sink, sinkFlag},
	actCheckStrx:     {stepStrx, sink, sinkFlag},
	actName:          {stepStore, unsafe.Offsetof(digestScalars{}.nameOff), unsafe.Offsetof(digestScalars{}.strpName)},
	actNameStrx:      {stepStrx, unsafe.Offsetof(digestScalars{}.nameOff), unsafe.Offsetof(digestScalars{}.strpName)},
	actType:          {stepStore, unsafe.Offsetof(digestScalars{}.typ), unsafe.Offsetof(digestScalars{}.hasTyp)},
	actByteSize:      {stepStore, unsafe.Offsetof(digestScalars{}.byteSize), unsafe.Offsetof(digestScalars{}.hasByteSize)},
	actBitSize:       {stepStore, unsafe.Offsetof(digestScalars{}.bitSize), sinkFlag},
	actEncoding:      {stepStore, unsafe.Offsetof(digestScalars{}.encoding), sinkFlag},
	actDataBitOffset: {stepStore, unsafe.Offsetof(digestScalars{}.dataBitOffset), unsafe.Offsetof(digestScalars{}.hasDataBitOffset)},
	actMemberLoc:     {stepStore, unsafe.Offsetof(digestScalars{}.memberLoc), unsafe.Offsetof(digestScalars{}.hasMemberLoc)},
	actBitOffset:     {stepStore, unsafe.Offsetof(digestScalars{}.bitOffset), sinkFlag},
	actUpperBound:    {stepStore, unsafe.Offsetof(digestScalars{}.upperBound), unsafe.Offsetof(digestScalars{}.hasUpperBound)},
	actUpperNotConst: {stepStore, sink, unsafe.Offsetof(digestScalars{}.upperBoundNotConst)},
	actCount:         {stepStore, unsafe.Offsetof(digestScalars{}.count), unsafe.Offsetof(digestScalars{}.hasCount)},
	actConstValue:    {stepStore, unsafe.Offsetof(digestScalars{}.constValue), unsafe.Offsetof(digestScalars{}.hasConstValue)},
	actDeclaration:   {stepBool, unsafe.Offsetof(digestScalars{}.declaration), sinkFlag},
	actSpecification: {stepStore, unsafe.Offsetof(digestScalars{}.specification), sinkFlag},
	actSignature:     {stepStore, unsafe.Offsetof(digestScalars{}.signature), sinkFlag},
	actExternal:      {stepBool, unsafe.Offsetof(digestScalars{}.external), sinkFlag},
	actArtificial:    {stepBool, unsafe.Offsetof(digestScalars{}.artificial), sinkFlag},
	actAddrBase:      {stepStore, unsafe.Offsetof(digestScalars{}.addrBase), unsafe.Offsetof(digestScalars{}.hasAddrBase)},
	actLanguage:      {stepStore, unsafe.Offsetof(digestScalars{}.language), sinkFlag},
	actGNUAnnot:      {stepStore, unsafe.Offsetof(digestScalars{}.gnuAnnot), sinkFlag},
}

// planRef locates the steps of one abbreviation's plan in fixedPlans.steps.
type planRef struct {
	start, end uint32
	// need is the fewest bytes from the DIE's first value on that every
	// step can read 8 of in place: the largest step offset plus 8.
	need  uint32
	state uint8 // planUnknown, planReady or planNone
}

const (
	planUnknown = iota // not compiled yet
	planReady          // steps[start:end]
	planNone           // the DIEs are decoded into Fields instead
)

// maxPlannedCode bounds the abbreviation codes plans are kept for (codes
// are numbered from 1; a kernel unit uses a few hundred).
const maxPlannedCode = 1 << 14

// fixedPlans holds the plans of the unit being walked. One is kept per
// converter and reused from unit to unit.
type fixedPlans struct {
	unit  *die.Unit
	data  []byte // the unit's section
	str   []byte // .debug_str, when it ends with a NUL; else nil
	refs  []planRef
	steps []planStep
	buf   []die.LayoutField
}

// begin prepares p for the walk of unit u of d.
func (p *fixedPlans) begin(d *die.Data, u *die.Unit) {
	p.unit, p.data = u, u.Bytes()
	p.str = nil
	if sec, ok := d.StrSection(); ok {
		p.str = sec
	}
	p.refs = p.refs[:0]
	p.steps = p.steps[:0]
}

// plan returns the plan of abbreviation code, compiling it on first use.
func (p *fixedPlans) plan(code uint64) planRef {
	if code == 0 || code > maxPlannedCode {
		return planRef{state: planNone}
	}
	i := int(code - 1)
	if i >= len(p.refs) {
		p.refs = append(p.refs, make([]planRef, i+1-len(p.refs))...)
	}
	if p.refs[i].state == planUnknown {
		p.refs[i] = p.compile(code)
	}
	return p.refs[i]
}

// compile builds the plan of abbreviation code, or refuses it (planNone).
func (p *fixedPlans) compile(code uint64) planRef {
	none := planRef{state: planNone}
	fields, ok := p.unit.FixedLayout(code, p.buf[:0])
	p.buf = fields
	if !ok {
		return none
	}
	start, need := len(p.steps), uint32(0)
	for _, f := range fields {
		if !plainForm(f.Form) || f.Off > 0xffff {
			p.steps = p.steps[:start]
			return none
		}
		act, read, ok := stepFor(f.Attr, f.Form)
		if !ok {
			p.steps = p.steps[:start]
			return none
		}
		if isStrForm(f.Form) && p.str == nil {
			p.steps = p.steps[:start]
			return none
		}
		if !read {
			continue
		}
		pl := places[act]
		s := planStep{kind: pl.kind, size: uint8(f.Size), off: uint16(f.Off), dst: uint16(pl.dst), flag: uint16(pl.flag),
			mask: 1<<(8*f.Size) - 1, limit: ^uint64(0)}
		if f.Size >= 8 {
			s.mask = ^uint64(0)
		}
		if act == actName || act == actCheckStr {
			s.limit = uint64(len(p.str)) - 1 // p.str ends with a NUL, so is not empty
		}
		switch f.Form {
		case dwarf.FormRef1, dwarf.FormRef2, dwarf.FormRef4, dwarf.FormRef8:
			s.imm = p.unit.Offset
		case dwarf.FormImplicitConst:
			s.imm = uint64(f.Const)
		case dwarf.FormFlagPresent:
			s.imm = 1
		case dwarf.FormData16:
			s.size, s.mask = 0, 0 // its Val is 0; the bytes are in Data
		}
		p.steps = append(p.steps, s)
		need = max(need, uint32(s.off)+8)
	}
	return planRef{start: uint32(start), end: uint32(len(p.steps)), need: need, state: planReady}
}

// plainForm reports whether Next's Val for a value of form f is the value
// as stored (plus the unit's offset for unit-relative references), with
// nothing to resolve and nothing to check but, for strp, the offset.
func plainForm(f dwarf.Form) bool {
	switch f {
	case dwarf.FormData1, dwarf.FormData2, dwarf.FormData4, dwarf.FormData8, dwarf.FormData16,
		dwarf.FormFlag, dwarf.FormFlagPresent, dwarf.FormImplicitConst,
		dwarf.FormRef1, dwarf.FormRef2, dwarf.FormRef4, dwarf.FormRef8, dwarf.FormRefAddr, dwarf.FormRefSig8,
		dwarf.FormSecOffset, dwarf.FormAddr, dwarf.FormStrp,
		dwarf.FormStrx1, dwarf.FormStrx2, dwarf.FormStrx3, dwarf.FormStrx4:
		return true
	}
	return false
}

// isStrForm reports whether f is one of the .debug_str forms plans read:
// strp, or strx1-4, whose values are indexes (resolved by StrxOffset).
func isStrForm(f dwarf.Form) bool { return f == dwarf.FormStrp || f.IsStrx() }

// stepFor returns what a plan does with attribute attr of form f, the way
// fillDigest treats it: act when read is set, nothing when it is not;
// ok is false when fillDigest needs the decoded Field (strings other
// than a strp name).
func stepFor(attr dwarf.Attr, f dwarf.Form) (act planAct, read, ok bool) {
	isRef := f == dwarf.FormRef1 || f == dwarf.FormRef2 || f == dwarf.FormRef4 || f == dwarf.FormRef8 || f == dwarf.FormRefAddr
	switch attr {
	case dwarf.AttrName:
		if f.IsStrx() {
			return actNameStrx, true, true
		}
		return actName, true, f == dwarf.FormStrp
	case dwarf.AttrType:
		return actType, isRef, true
	case dwarf.AttrByteSize:
		return actByteSize, f.IsConst(), true
	case dwarf.AttrBitSize:
		return actBitSize, true, true
	case dwarf.AttrEncoding:
		return actEncoding, true, true
	case dwarf.AttrDataBitOffset:
		return actDataBitOffset, true, true
	case dwarf.AttrDataMemberLoc:
		return actMemberLoc, true, true
	case dwarf.AttrBitOffset:
		return actBitOffset, true, true
	case dwarf.AttrUpperBound:
		if f.IsConst() {
			return actUpperBound, true, true
		}
		return actUpperNotConst, true, true
	case dwarf.AttrCount:
		return actCount, f.IsConst(), true
	case dwarf.AttrConstValue:
		return actConstValue, f.IsConst(), !isStrForm(f)
	case dwarf.AttrDeclaration:
		return actDeclaration, true, true
	case dwarf.AttrSpecification:
		return actSpecification, isRef, true
	case dwarf.AttrSignature:
		return actSignature, isRef, true
	case dwarf.AttrExternal:
		return actExternal, true, true
	case dwarf.AttrArtificial:
		return actArtificial, true, true
	case dwarf.AttrAddrBase:
		return actAddrBase, true, true
	case dwarf.AttrLanguage:
		return actLanguage, true, true
	case dwarf.AttrGNUAnnotation:
		return actGNUAnnot, isRef, true
	case dwarf.AttrProducer:
		return 0, false, false
	}
	// Read by no one, but Next checks a string wherever it is.
	if f.IsStrx() {
		return actCheckStrx, true, true
	}
	return actCheckStr, f == dwarf.FormStrp, true
}

// fill fills d from e, a DIE Next left undecoded, by its plan. It reports
// false when there is none or a string offset or index is out of range
// (where Next would fail): the caller
// then decodes e and fills d from the Fields (after resetting d, which fill
// may have half filled).
func (p *fixedPlans) fill(d *digest, e *die.Entry) bool {
	var ref planRef
	if i := e.Code - 1; i < uint64(len(p.refs)) && p.refs[i].state != planUnknown {
		ref = p.refs[i] // the usual case, kept inline
	} else {
		ref = p.plan(e.Code)
	}
	if ref.state != planReady {
		return false
	}
	d.off, d.tag, d.children = e.Offset, e.Tag, e.Children
	b := p.data[e.AttrPos:]
	base := unsafe.Pointer(&d.digestScalars)
	// Every step reads 8 bytes in place, but within the last few bytes of
	// the section, which only a section's last DIE can reach. Checked once
	// per DIE, the reads need no bounds checks of their own.
	inPlace, at := int(ref.need) <= len(b), unsafe.Pointer(unsafe.SliceData(b))
	steps := p.steps[ref.start:ref.end]
	for k := range steps {
		s := &steps[k]
		var v uint64
		if inPlace {
			v = binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(at, s.off)), 8)) & s.mask
		} else {
			for j := int(s.size) - 1; j >= 0; j-- { // the section's last bytes
				v = v<<8 | uint64(b[int(s.off)+j])
			}
		}
		v += s.imm
		switch s.kind {
		case stepStore:
			if v > s.limit {
				return false
			}
			*(*uint64)(unsafe.Add(base, s.dst)) = v
			*(*bool)(unsafe.Add(base, s.flag)) = true
		case stepBool:
			*(*bool)(unsafe.Add(base, s.dst)) = v != 0
		case stepStrx:
			off, ok := p.unit.StrxOffset(v)
			if !ok {
				return false
			}
			*(*uint64)(unsafe.Add(base, s.dst)) = off
			*(*bool)(unsafe.Add(base, s.flag)) = true
		}
	}
	d.lazyName = d.strpName
	if d.strSec == nil {
		d.strSec = p.str
	}
	return true
}
