package dwarf2btf

import (
	"debug/dwarf"
)

// stdStream reads one unit through the standard library's debug/dwarf. It is
// slow (an allocation per DIE) but independent of gobtf's own decoder, which
// makes it a reference to test that decoder's digests against.
type stdStream struct {
	r     *dwarf.Reader
	depth int
	done  bool
}

// newStdStream positions a reader on the unit at off.
func newStdStream(d *dwarf.Data, off dwarf.Offset) *stdStream {
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
		fillDigest(d, e)
		return depth, true, nil
	}
	return 0, false, nil
}

// fillDigest copies the attributes the converter reads from a debug/dwarf
// entry.
func fillDigest(d *digest, e *dwarf.Entry) {
	d.off = uint64(e.Offset)
	d.tag = uint32(e.Tag)
	d.children = e.Children
	for _, f := range e.Field {
		switch f.Attr {
		case dwarf.AttrName:
			d.name, _ = f.Val.(string)
		case dwarf.AttrType:
			if o, ok := f.Val.(dwarf.Offset); ok {
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
				d.memberLoc, d.hasMemberLoc = plusUconst(v), true
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
			if o, ok := f.Val.(dwarf.Offset); ok {
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
		case atGNUAnnotation:
			if o, ok := f.Val.(dwarf.Offset); ok {
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

// plusUconst evaluates the location expressions compilers use for member
// offsets: DW_OP_plus_uconst N or DW_OP_constu N. Anything else gives 0, as
// in pahole (which also prints a warning).
func plusUconst(expr []byte) uint64 {
	const opConstu, opPlusUconst = 0x10, 0x23
	if len(expr) == 0 || (expr[0] != opPlusUconst && expr[0] != opConstu) {
		return 0
	}
	var v uint64
	var shift uint
	for _, b := range expr[1:] {
		v |= uint64(b&0x7f) << shift
		if b&0x80 == 0 {
			break
		}
		shift += 7
	}
	return v
}
