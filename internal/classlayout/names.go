package classlayout

import "strconv"

// tagName is pahole's tag__name into a buffer of n bytes: the C spelling of
// type t without a declarator ("const char *", "struct foo", "int (*)(void)").
func (p *Printer) tagName(t *Type, n int) string {
	return trunc(p.tagName1(t, n, 0), n)
}

// tagNameAt is tagName inside the printing of another type, depth levels
// down, so that reference cycles through function types end.
func (p *Printer) tagNameAt(t *Type, n, depth int) string {
	return trunc(p.tagName1(t, n, depth), n)
}

func (p *Printer) tagName1(t *Type, n, depth int) string {
	if t == nil {
		return "void"
	}
	if depth > maxDepth {
		return "<ERROR: type loop>"
	}
	switch t.Kind {
	case KindBase:
		if t.Name == "" {
			return "nameless base type!"
		}
		if t.Flags&FlagFloat != 0 {
			return trunc("single "+t.Name, 64)
		}
		if t.Flags&FlagBool != 0 {
			return trunc("bool "+t.Name, 64)
		}
		return t.Name
	case KindPointer:
		return p.ptrName(t, n, "*", depth)
	case KindConst, KindVolatile, KindRestrict, KindAtomic:
		ref := p.m.Type(t.Ref)
		if ref != nil && ref.Ref == t.Ref && ref.Kind != KindBase {
			return trunc(loopError(t), n)
		}
		inner := trunc(p.tagName1(ref, 128, depth+1), 128)
		prefix, suffix := "", ""
		if !p.opt.SkipModifiers {
			switch t.Kind {
			case KindVolatile:
				prefix = "volatile "
			case KindConst:
				prefix = "const "
			case KindRestrict:
				suffix = " restrict"
			case KindAtomic:
				prefix = "_Atomic "
			}
		}
		return trunc(prefix+inner+suffix+" ", n)
	case KindArray, KindAnnotation:
		return p.tagName1(p.m.Type(t.Ref), n, depth+1)
	case KindFuncProto:
		s := p.capture(func() { p.ftype(t, null, false, false, 0, true, depth+1) })
		if len(s) > n {
			s = s[:n]
		}
		return s
	case KindStruct:
		return trunc("struct "+t.Name, n)
	case KindUnion:
		return trunc("union "+t.Name, n)
	case KindEnum:
		return trunc("enum "+t.Name, n)
	}
	return trunc(t.Name, n)
}

// ptrName is tag__ptr_name: the pointed-to type's name, then suffix ("*"),
// with a const pointer's const after the star's type.
func (p *Printer) ptrName(t *Type, n int, suffix string, depth int) string {
	if t.Ref == 0 {
		return trunc("void "+suffix, n)
	}
	ref := p.m.Type(t.Ref)
	if ref == nil {
		return trunc(notFoundID(t.Ref)+" "+suffix, n)
	}
	if ref.Ref == t.Ref && ref.Kind != KindBase {
		return trunc(loopError(t), n)
	}
	constPtr := ""
	if ref.Kind == KindConst {
		if next := p.m.Type(ref.Ref); next != nil && next.Kind == KindPointer {
			if !p.opt.SkipModifiers {
				constPtr = "const "
			}
			ref = next
		}
	}
	return trunc(trunc(p.tagName1(ref, 1024, depth+1), 1024)+" "+constPtr+suffix, n)
}

func notFoundID(id uint32) string {
	return "<ERROR: " + strconv.FormatUint(uint64(id), 16) + " not found!>"
}

func loopError(t *Type) string {
	return "<ERROR: detected type loop: type=" + strconv.FormatUint(uint64(t.Ref), 10) + ">"
}
