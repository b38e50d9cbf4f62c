package classlayout

import "strings"

// conf is the part of pahole's conf_fprintf that changes while printing
// nested types; the options that do not change are in Printer.opt.
type conf struct {
	prefix, suffix           string // null when absent
	indent                   int
	typeSpacing, nameSpacing int
	cachelinep               *uint32 // the cacheline the outermost type's printing is in
	baseOffset               uint32
	relOffset                bool
	unionMember              bool
	firstMember, lastMember  bool
	emitStats                bool
	suppressOffsetComment    bool
	noSemicolon              bool
}

// typeNotFound is pahole's out_type_not_found.
func (p *Printer) typeNotFound(c *conf, name string) {
	p.padRight("<ERROR", c.typeSpacing)
	p.str("> ")
	p.str(orEmpty(name))
}

// typeFprintf is pahole's type__fprintf: a member's or variable's type and
// name, expanding anonymous structs, unions and enums inline.
func (p *Printer) typeFprintf(t *Type, name string, c *conf, depth int) {
	if t == nil || depth > maxDepth {
		p.typeNotFound(c, name)
		return
	}
	expand := p.opt.ExpandTypes
	suppressOffset := c.suppressOffsetComment
	if p.opt.ExpandPointers {
		n := 0
		for t.Kind == KindPointer && t.Ref != 0 {
			next := p.m.Type(t.Ref)
			if next == nil || n > maxDepth {
				p.typeNotFound(c, name)
				return
			}
			t = next
			n++
		}
		if n > 0 {
			name = strings.Repeat("*", n) + orEmpty(name)
			suppressOffset = true
		}
		// pahole expands what a member points to, once: not inside itself.
		expand = n > 0
		id := p.m.idOf(t)
		if p.recursion[id] != 0 {
			expand = false
		}
		p.recursion[id]++
		defer func() { p.recursion[id]-- }()
	}
	if expand {
		expanded := false
		for t.Kind == KindTypedef {
			if expanded {
				p.str(" -> ")
			} else {
				p.str("/* typedef ")
				expanded = true
			}
			p.str(t.Name)
			next := p.m.Type(t.Ref)
			if depth++; next == nil || depth > maxDepth {
				p.typeNotFound(c, name)
				return
			}
			t = next
		}
		if expanded {
			p.str(" */ ")
		}
	}
	tc := *c
	if t.Kind == KindStruct || t.Kind == KindUnion || t.Kind == KindEnum {
		tc.prefix, tc.suffix, tc.emitStats = null, name, false
		tc.suppressOffsetComment = suppressOffset
	}
	for {
		switch t.Kind {
		case KindPointer:
			if pid := p.skipAnnotations(t.Ref); pid != 0 {
				pt := p.m.Type(pid)
				if pt == nil {
					p.typeNotFound(&tc, name)
					return
				}
				if pt.Kind == KindFuncProto {
					p.ftype(pt, name, false, true, tc.typeSpacing, true, depth+1)
					return
				}
				if (pt.Kind == KindStruct || pt.Kind == KindUnion || pt.Kind == KindEnum) && pt.Name == "" {
					name = "* " + orEmpty(name)
					tc.relOffset = true
					t = pt
					tc.typeSpacing -= 8
					tc.prefix, tc.suffix, tc.emitStats = null, name, false
					tc.suppressOffsetComment = suppressOffset
					continue
				}
			}
			p.printDefault(t, name, &tc, depth)
		case KindFuncProto:
			p.ftype(t, name, false, false, tc.typeSpacing, true, depth+1)
		case KindAtomic, KindConst:
			if !p.opt.SkipModifiers {
				mod := "const "
				if t.Kind == KindAtomic {
					mod = "_Atomic "
				}
				p.str(mod)
				tc.typeSpacing -= len(mod)
			}
			if next := p.m.Type(t.Ref); next != nil {
				t = next
				depth++
				if depth > maxDepth {
					p.typeNotFound(&tc, name)
					return
				}
				continue
			}
			p.printDefault(t, name, &tc, depth)
		case KindArray:
			p.arrayFprintf(t, name, &tc, depth+1)
		case KindStruct:
			if t.Name != "" && !expand {
				p.str("struct ")
				p.padRight(t.Name, tc.typeSpacing-7)
				p.byte1(' ')
				p.str(orEmpty(name))
			} else {
				if !p.opt.SuppressComments {
					p.findHoles(t)
				}
				tc.typeSpacing -= 8
				p.classFprintf(t, &tc, depth+1)
			}
		case KindUnion:
			p.unionDecl(t, name, &tc, depth+1)
		case KindEnum:
			if t.Name != "" && !expand {
				p.str("enum ")
				p.padRight(t.Name, tc.typeSpacing-5)
				p.byte1(' ')
				p.str(orEmpty(name))
			} else {
				p.enumFprintf(t, &tc)
			}
		case KindAnnotation:
			next := p.m.Type(t.Ref)
			if next == nil {
				p.typeNotFound(&tc, name)
				return
			}
			t = next
			depth++
			if depth > maxDepth {
				p.typeNotFound(&tc, name)
				return
			}
			continue
		default:
			p.printDefault(t, name, &tc, depth)
		}
		return
	}
}

func (p *Printer) printDefault(t *Type, name string, c *conf, depth int) {
	p.padRight(p.tagNameAt(t, 128, depth), c.typeSpacing)
	p.byte1(' ')
	p.str(orEmpty(name))
}

// skipAnnotations follows type tags from id.
func (p *Printer) skipAnnotations(id uint32) uint32 {
	for d := 0; id != 0 && d < maxDepth; d++ {
		t := p.m.Type(id)
		if t == nil || t.Kind != KindAnnotation || t.Ref == id {
			break
		}
		id = t.Ref
	}
	return id
}

// arrayFprintf is array_type__fprintf: the element type and name, then the
// dimensions; a last member's zero-length array is printed "[]".
func (p *Printer) arrayFprintf(t *Type, name string, c *conf, depth int) {
	elem := p.m.Type(t.Ref)
	if elem == nil {
		p.str(notFoundID(t.Ref))
		return
	}
	dims := p.m.Dims[t.First : t.First+t.N]
	if len(dims) >= 1 && dims[0] == 0 && elem.Kind == KindConst {
		elem = p.m.Type(elem.Ref)
	}
	p.typeFprintf(elem, name, c, depth)
	vector := t.Flags&FlagVector != 0
	var flat uint64
	single := c.lastMember && c.firstMember
	for i, d := range dims {
		if p.opt.FlatArrays || vector {
			if d == 0 && i == 0 {
				break
			}
			if flat == 0 {
				flat = uint64(d)
			} else {
				flat *= uint64(d)
			}
			continue
		}
		if d != 0 || !c.lastMember || single || c.unionMember {
			p.byte1('[')
			p.uint(uint64(d))
			p.byte1(']')
		} else {
			p.str("[]")
		}
	}
	if vector {
		if flat == 0 {
			flat = 1
		}
		p.str(" __attribute__ ((__vector_size__ (")
		p.uint(flat * uint64(p.m.tagSize(p.m.Type(t.Ref), 0)))
		p.str(")))")
	} else if p.opt.FlatArrays {
		if flat != 0 || !c.lastMember || single || c.unionMember {
			p.byte1('[')
			p.uint(flat)
			p.byte1(']')
		} else {
			p.str("[]")
		}
	}
}

// ftype is ftype__fprintf: a function type with its return type padded to
// spacing, then "(*name)" for a pointer, then the parameters.
func (p *Printer) ftype(t *Type, name string, inlined, isPointer bool, spacing int, isProto bool, depth int) {
	id := p.m.idOf(t)
	if p.expanding[id] || depth > maxDepth {
		p.str("<ERROR: type loop>")
		return
	}
	if p.members++; p.members > memberBudget && !p.overflow {
		p.overflow, p.overflowErr = true, errTooBig{t.Name}
	}
	if p.overflow {
		return
	}
	p.expanding[id] = true
	defer func() { p.expanding[id] = false }()
	if inlined {
		p.str("inline ")
	}
	p.padRight(p.tagNameAt(p.m.Type(t.Ref), 128, depth), spacing)
	p.byte1(' ')
	if isProto {
		p.byte1('(')
	}
	if isPointer {
		p.byte1('*')
	}
	p.str(orEmpty(name))
	if isProto {
		p.byte1(')')
	}
	p.params(t, depth)
}

// params is ftype__fprintf_parms.
func (p *Printer) params(t *Type, depth int) {
	p.byte1('(')
	first := true
	for _, prm := range p.m.Params[t.First : t.First+t.N] {
		if !first {
			p.str(", ")
		}
		first = false
		name := orNull(prm.Name)
		if p.opt.NoParmNames {
			name = null
		}
		typ := p.m.Type(prm.Type)
		if typ == nil {
			p.str("void")
			if name != null {
				p.byte1(' ')
				p.str(name)
			}
			continue
		}
		if typ.Kind == KindPointer && typ.Ref != 0 {
			pt := p.m.Type(typ.Ref)
			if pt != nil && pt.Kind == KindFuncProto && depth < maxDepth {
				p.ftype(pt, name, false, true, 0, true, depth+1)
				continue
			}
		} else if typ.Kind == KindFuncProto && depth < maxDepth {
			p.ftype(typ, name, true, false, 0, false, depth+1)
			continue
		}
		p.str(p.tagNameAt(typ, 128, depth))
		if name != null {
			p.byte1(' ')
			p.str(name)
		}
	}
	switch {
	case first:
		p.str("void)")
	case t.Flags&FlagVarargs != 0:
		p.str(", ...)")
	default:
		p.byte1(')')
	}
}
