package dwarf2btf

import (
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
)

// dieStream yields the DIEs of one unit in order, the unit DIE first.
type dieStream interface {
	// next decodes the next DIE into d and returns its depth (0 for the unit
	// DIE, 1 for its children, ...). ok is false after the unit's last DIE.
	next(d *digest) (depth int, ok bool, err error)
}

// frameKind says how the children of an open DIE are read.
type frameKind uint8

const (
	frameOther   frameKind = iota // children are read as top-level DIEs
	frameStruct                   // members, decl tags, nested types
	frameEnum                     // enumerators
	frameArray                    // subranges
	frameProto                    // parameters
	framePointer                  // type tags
	frameTypedef                  // decl tags
	frameMember                   // decl tags of one member
	frameVar                      // decl tags of a top-level variable
)

// frame is an open DIE whose children are being read.
type frame struct {
	depth     int
	kind      frameKind
	rec       int // record index, for type frames
	start     int // scratch-stack length when the frame opened
	members   int // frameStruct: DW_TAG_member/inheritance children seen
	component int32
	target    uint64 // frameMember: the struct's DIE offset
	annot     uint64 // frameStruct: the struct's DW_AT_GNU_annotation, 0 if none
}

// walkTypes reads one unit's DIEs from src and records its types in c. It
// returns the unit DIE's language and whether the producer is clang.
func (c *cuTypes) walk(src dieStream) (lang uint64, clang bool, err error) {
	var d digest
	var stack []frame
	var leaf frame // the frame of a DIE without children: see below
	for {
		d.reset()
		depth, ok, err := src.next(&d)
		if err != nil {
			return 0, false, err
		}
		if !ok {
			break
		}
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			c.close(&stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		if depth == 0 {
			c.unitTag = d.tag
			lang, clang = d.language, strings.Contains(d.producer, "clang")
			if c.opts.Log != nil {
				c.unitName = d.nm()
			}
			// Each unit has its own slice of .debug_addr (a merged
			// conversion reads several units in one walk).
			c.addrx = nil
			if d.hasAddrBase && c.debugAddr != nil {
				c.setAddrBase(d.addrBase)
			}
			if d.children {
				stack = append(stack, frame{depth: 0})
			}
			continue
		}
		// The DIE's frame is filled in place, in a slot pushed for it when
		// the DIE has children: returned by value, it would be written
		// field by field and then copied with 16-byte loads, which the
		// processor cannot forward from the narrower stores still in
		// flight. A leaf's frame is never read (visit only sets frames),
		// so a leaf, most DIEs (members above all), writes into a scratch
		// one, neither pushed nor cleared.
		n := len(stack)
		var parent *frame
		if n > 0 {
			parent = &stack[n-1]
		}
		if !d.children {
			c.visit(&d, parent, depth, &leaf)
			continue
		}
		if n == cap(stack) {
			stack = append(stack, frame{})
			if n > 0 {
				parent = &stack[n-1] // moved
			}
		} else {
			stack = stack[:n+1]
		}
		f := &stack[n]
		*f = frame{depth: depth}
		c.visit(&d, parent, depth, f)
	}
	for len(stack) > 0 {
		c.close(&stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	c.resolveGNUAnnotations()
	return lang, clang, nil
}

// visit handles one DIE given its parent's frame and sets f, which holds
// only the DIE's depth, to the frame its children are to be read in.
func (c *cuTypes) visit(d *digest, parent *frame, depth int, f *frame) {
	feats := &c.opts.Features
	c.curOff = d.off
	if d.tag == dwarf.TagVariable && depth == 1 {
		c.variable(d)
		f.kind, f.rec = frameVar, len(c.vars)-1
		return
	}
	if parent != nil {
		switch parent.kind {
		case frameStruct:
			switch d.tag {
			case dwarf.TagMember:
				// Filled in place, as the frame is (see walk).
				c.memberStack = append(c.memberStack, memberRec{})
				m := &c.memberStack[len(c.memberStack)-1]
				m.name, m.ref, m.byteSize, m.bitSize = c.nameStr(d), d.typ, foldByteSize(d.byteSize), uint8(d.bitSize)
				m.bitOffset, m.loc, m.hasDataBitOff = uint8(d.bitOffset), uint32(d.memberLoc), d.hasDataBitOffset
				if d.hasDataBitOffset {
					m.loc = uint32(d.dataBitOffset)
				}
				c.countMember(parent, d)
				if d.children { // annotations, read as the member's frame's
					f.kind, f.component, f.target = frameMember, int32(parent.members-1), c.recs[parent.rec].off
				}
				return
			case dwarf.TagInheritance:
				parent.members++
				return
			case dwarf.TagLLVMAnnotation:
				c.declTag(d, c.recs[parent.rec].off, -1)
				return
			}
		case frameMember:
			if d.tag == dwarf.TagLLVMAnnotation {
				c.declTag(d, parent.target, parent.component)
			}
			return
		case frameEnum:
			if d.tag == dwarf.TagEnumerator {
				c.enumStack = append(c.enumStack, enumRec{name: c.nameStr(d), val: d.constValue})
				return
			}
		case frameArray:
			if d.tag == dwarf.TagSubrangeType {
				// pahole reads a constant upper bound (plus one) or else a
				// constant count; a bound it cannot read as a constant
				// (a VLA's) counts as 0 without looking at the count.
				var n uint64
				switch {
				case d.upperBoundNotConst:
				case d.hasUpperBound:
					n = d.upperBound + 1
				case d.hasCount:
					n = d.count
				}
				c.mulElems(d, &c.recs[parent.rec], n)
				return
			}
		case frameProto:
			switch d.tag {
			case dwarf.TagFormalParameter:
				c.paramStack = append(c.paramStack, paramRec{name: c.nameStr(d), ref: d.typ})
				return
			case dwarf.TagUnspecifiedParameters:
				c.recs[parent.rec].vararg = true
				return
			}
		case framePointer:
			if d.tag == dwarf.TagLLVMAnnotation {
				if feats.TypeTag && d.nm() == "btf_type_tag" {
					i := c.add(d, btf.KindTypeTag)
					c.recs[i].name = c.str(d.constString)
					c.tagStack = append(c.tagStack, i)
				}
				return
			}
		case frameVar:
			if d.tag == dwarf.TagLLVMAnnotation && feats.DeclTag && d.nm() == "btf_decl_tag" {
				v := &c.vars[parent.rec]
				v.tags = append(v.tags, c.str(d.constString))
			}
			return
		case frameTypedef:
			if d.tag == dwarf.TagLLVMAnnotation {
				c.declTag(d, c.recs[parent.rec].off, -1)
				return
			}
		}
	}
	c.visitType(d, f)
}

// visitType records a type DIE met anywhere in the unit (at top level, or
// nested in a struct, a function or a lexical block) and sets f to the frame
// for its children. DIEs that are not types get a plain frame, so the types
// defined inside functions are found too, as pahole finds them.
func (c *cuTypes) visitType(d *digest, f *frame) {
	if d.signature != 0 {
		// A stub standing for a type unit's type (see typeunits.go):
		// references see through it, to the type.
		d.typ = d.signature
		c.add(d, recSkip)
		return
	}
	switch d.tag {
	case dwarf.TagBaseType:
		c.baseType(d)
	case dwarf.TagPointerType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType:
		// BTF has no reference kind; at the ABI level a C++ reference is
		// a pointer. (pahole stops with "Unsupported" on these.)
		if !d.children {
			c.addPointer(d)
			return
		}
		i := c.addUnordered(d, btf.KindPtr) // numbered after its TYPE_TAGs, at close
		f.kind, f.rec, f.start = framePointer, i, len(c.tagStack)
	case dwarf.TagConstType:
		c.add(d, btf.KindConst)
	case dwarf.TagVolatileType:
		c.add(d, btf.KindVolatile)
	case dwarf.TagRestrictType:
		c.add(d, btf.KindRestrict)
	case dwarf.TagAtomicType:
		c.add(d, recSkip)
	case dwarf.TagUnspecifiedType:
		c.add(d, recVoid)
	case dwarf.TagPtrToMemberType, dwarf.TagStringType:
		c.add(d, recIgnored)
	case dwarf.TagTypedef:
		i := c.add(d, btf.KindTypedef)
		c.recs[i].name = c.nameStr(d)
		f.kind, f.rec = frameTypedef, i
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType:
		name := c.nameStr(d)
		if name == 0 && d.specification != 0 {
			if j, ok := c.find(d.specification); ok {
				name = c.recs[j].name
			}
		}
		if d.declaration {
			i := c.add(d, btf.KindFwd)
			c.recs[i].name = name
			c.recs[i].kflag = d.tag == dwarf.TagUnionType
			return
		}
		k := btf.KindStruct
		if d.tag == dwarf.TagUnionType {
			k = btf.KindUnion
		}
		var i int
		if d.children {
			i = c.addUnordered(d, k) // numbered after its nested types, at close
		} else {
			i = c.addChildless(d, k)
		}
		c.recs[i].name = name
		c.recs[i].size = uint32(d.byteSize)
		f.kind, f.rec, f.start, f.annot = frameStruct, i, len(c.memberStack), d.gnuAnnot
	case dwarf.TagEnumerationType:
		i := c.enumType(d, false)
		f.kind, f.rec, f.start = frameEnum, i, len(c.enumStack)
	case dwarf.TagArrayType:
		i := c.add(d, btf.KindArray)
		c.recs[i].nelems = 1
		c.hasArray = true
		f.kind, f.rec = frameArray, i
	case dwarf.TagSubroutineType:
		i := c.add(d, btf.KindFuncProto)
		f.kind, f.rec, f.start = frameProto, i, len(c.paramStack)
	case dwarf.TagGNUAnnotation:
		// gcc writes them among the unit's top-level entries.
		c.gnu.addAnnotation(d)
	}
}

// declTag records a btf_decl_tag annotation (others are ignored, as pahole
// ignores them).
func (c *cuTypes) declTag(d *digest, target uint64, component int32) {
	if !c.opts.Features.DeclTag || d.nm() != "btf_decl_tag" {
		return
	}
	c.declTags = append(c.declTags, declTagRec{target: target, component: component, value: c.str(d.constString)})
}

// close finishes a frame whose children have all been read: it moves the
// gathered children into the flat arrays, or chains a pointer's type tags.
func (c *cuTypes) close(f *frame) {
	switch f.kind {
	case frameStruct:
		c.order = append(grow(c.order, 1), int32(f.rec))
		r := &c.recs[f.rec]
		r.first, r.n = uint32(len(c.members)), uint32(len(c.memberStack)-f.start)
		c.members = append(grow(c.members, len(c.memberStack)-f.start), c.memberStack[f.start:]...)
		c.memberStack = c.memberStack[:f.start]
	case frameEnum:
		r := &c.recs[f.rec]
		r.first, r.n = uint32(len(c.enums)), uint32(len(c.enumStack)-f.start)
		c.enums = append(grow(c.enums, len(c.enumStack)-f.start), c.enumStack[f.start:]...)
		c.enumStack = c.enumStack[:f.start]
	case frameProto:
		r := &c.recs[f.rec]
		r.first, r.n = uint32(len(c.params)), uint32(len(c.paramStack)-f.start)
		c.params = append(grow(c.params, len(c.paramStack)-f.start), c.paramStack[f.start:]...)
		c.paramStack = c.paramStack[:f.start]
	case framePointer:
		c.order = append(grow(c.order, 1), int32(f.rec))
		// Tags a, b (in DIE order) on a pointer to T become
		// PTR -> TYPE_TAG b -> TYPE_TAG a -> T: the tag written last
		// is nearest to the '*'.
		tags := c.tagStack[f.start:]
		if len(tags) > 0 {
			ptr := &c.recs[f.rec]
			c.recs[tags[0]].ref = ptr.ref
			for k := 1; k < len(tags); k++ {
				c.recs[tags[k]].ref = c.recs[tags[k-1]].off
			}
			ptr.ref = c.recs[tags[len(tags)-1]].off
		}
		c.tagStack = c.tagStack[:f.start]
	}
	if f.kind == frameStruct && (f.annot != 0 || c.gnu.members != nil) {
		c.gnu.closeStruct(c.recs[f.rec].off, f.annot) // gnuannot.go
	}
}

// enumSignedness sets each ENUM64's kind_flag from its DW_AT_type: signed
// when that DIE is a signed base type, as pahole's type__init decides.
func (c *cuTypes) enumSignedness() {
	for i := range c.recs {
		r := &c.recs[i]
		if r.kind != btf.KindEnum64 || r.ref == 0 {
			continue
		}
		if j, ok := c.find(r.ref); ok && c.recs[j].kind == btf.KindInt {
			r.kflag = c.recs[j].enc&btf.IntSigned != 0
		}
	}
}

// grow returns s with room for n more elements, doubling its capacity when
// it must grow past doubleFrom elements, so that each record is copied at
// most about twice however large the unit (the one unit of a merged
// conversion, an LTO kernel's, has a million types): append grows a large
// slice by about a quarter at a time, which is fine for a converter's
// buffers, reused from unit to unit at the size of the largest. Below
// doubleFrom, append's own growth keeps the per-unit buffers tight, where
// doubling would add to the peak memory of every conversion.
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n || cap(s) < doubleFrom {
		return s
	}
	ns := make([]T, len(s), max(2*cap(s), len(s)+n))
	copy(ns, s)
	return ns
}

// doubleFrom is the capacity from which grow doubles: more than any unit of
// a kernel built the usual way needs.
const doubleFrom = 1 << 17
