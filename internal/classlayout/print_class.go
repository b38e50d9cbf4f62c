package classlayout

// cachelineBoundary prints pahole's "--- cacheline N boundary ---" comment
// when offset is past the cacheline the printing is in.
func (p *Printer) cachelineBoundary(c *conf, offset uint32) {
	size := p.opt.CachelineSize
	cl := offset / size
	if cl <= *c.cachelinep {
		return
	}
	pos := offset % size
	p.str("/* --- cacheline ")
	p.uint(uint64(cl))
	p.str(" boundary (")
	p.uint(uint64(offset - pos))
	if pos == 0 {
		p.str(" bytes) --- */\n")
	} else {
		p.str(" bytes) was ")
		p.uint(uint64(pos))
		p.str(" byte")
		p.str(plural(int64(pos), "s"))
		p.str(" ago --- */\n")
	}
	p.tabs(c.indent)
	*c.cachelinep = cl
}

func isInline(t *Type) bool {
	return t.Kind == KindStruct || t.Kind == KindUnion || t.Kind == KindEnum
}

// member is class_member__fprintf: one member line, with its offset and
// size comment ("/* offset size */", "/* offset:bit size */").
func (p *Printer) member(mi uint32, unionMember bool, t *Type, c *conf, depth int) {
	mb := &p.m.Members[mi]
	if p.members++; (p.members > memberBudget || len(p.buf)-p.typeStart > outputBudget) && !p.overflow {
		p.overflow, p.overflowErr = true, errTooBig{mb.Name}
	}
	size := mb.ByteSize
	sc := *c
	offset := mb.ByteOffset
	if !sc.relOffset {
		offset += sc.baseOffset
		if !unionMember {
			sc.baseOffset = offset
		}
	}
	if mb.BitfieldOffset < 0 {
		offset += mb.ByteSize
	}
	if !p.opt.SuppressComments {
		p.cachelineBoundary(c, offset)
	}
	start := len(p.buf)
	name := orNull(mb.Name)
	if isInline(t) {
		p.typeFprintf(t, null, &sc, depth)
		if name != null {
			if t.Name == "" || p.opt.ExpandTypes {
				p.byte1(' ')
			}
			p.str(name)
		}
	} else {
		p.typeFprintf(t, name, &sc, depth)
	}
	if mb.BitfieldSize != 0 {
		p.byte1(':')
		p.uint(uint64(mb.BitfieldSize))
	}
	alignPrinted := 0
	if !p.opt.SuppressAlignedAttribute && mb.Align != 0 {
		s := len(p.buf)
		p.str(" __attribute__((__aligned__(")
		p.uint(uint64(mb.Align))
		p.str(")))")
		alignPrinted = len(p.buf) - s
	}
	p.byte1(';')
	if sc.suppressOffsetComment {
		return
	}
	var spacing int
	if isInline(t) && t.Name == "" {
		slen := alignPrinted - 1
		if name != null {
			slen = alignPrinted + len(name)
		}
		if t.Kind == KindStruct && p.state(t).packed && !p.opt.SuppressPacked {
			slen += len("__attribute__((__packed__))") + 1
		}
		spacing = sc.typeSpacing + sc.nameSpacing - slen - 3
	} else {
		spacing = max(sc.typeSpacing+sc.nameSpacing-(len(p.buf)-start), 0)
	}
	p.padLeft(" ", spacing)
	p.offsetComment(uint64(offset), mb, uint64(size))
}

// offsetComment prints "/* offset[:bit] size */".
func (p *Printer) offsetComment(offset uint64, mb *Member, size uint64) {
	hex := p.opt.Hex
	p.str("/* ")
	p.numW(offset, 5, hex)
	sizeSpacing := 5
	if mb.BitfieldSize != 0 {
		bo := int64(int8(mb.BitfieldOffset))
		if bo < 0 {
			bo = int64(mb.ByteSize*8) + bo
		}
		p.byte1(':')
		p.numW(uint64(uint32(bo)), 2, hex)
		sizeSpacing -= 3
	}
	p.byte1(' ')
	p.numW(size, sizeSpacing, hex)
	p.str(" */")
}

// unionDecl is union_decl__fprintf: a named union by name, an anonymous
// one (or any with -E) expanded inline.
func (p *Printer) unionDecl(t *Type, name string, c *conf, depth int) {
	if t.Name != "" && !p.opt.ExpandTypes {
		p.str("union ")
		p.padRight(t.Name, c.typeSpacing-6)
		p.byte1(' ')
		p.str(orEmpty(name))
		return
	}
	tc := *c
	tc.typeSpacing -= 8
	tc.suffix = name
	p.unionFprintf(t, &tc, depth)
}

// unionFprintf is union__fprintf: each member at the union's cacheline.
func (p *Printer) unionFprintf(t *Type, c *conf, depth int) {
	indent := min(c.indent, len(tabs)-1)
	if c.prefix != null {
		p.str(c.prefix)
		p.byte1(' ')
	}
	p.str("union")
	if t.Name != "" {
		p.byte1(' ')
		p.str(t.Name)
	}
	p.str(" {\n")
	uc := *c
	uc.indent = indent + 1
	p.inferUnionPacked(t)
	var cacheline uint32
	if uc.cachelinep == nil {
		uc.cachelinep = &cacheline
	}
	initial := *uc.cachelinep
	id := p.m.idOf(t)
	if p.expanding[id] && (!p.opt.ExpandPointers || p.recursion[id] > 1) {
		p.str("<ERROR: type loop>}")
		return
	}
	wasExpanding := p.expanding[id]
	p.expanding[id] = true
	defer func() { p.expanding[id] = wasExpanding }()
	for i := t.First; i < t.First+t.N && !p.overflow; i++ {
		mt := p.m.Type(p.m.Members[i].Type)
		p.tabs(uc.indent)
		if mt == nil {
			p.str(notFoundID(p.m.Members[i].Type))
			p.byte1('\n')
			continue
		}
		uc.unionMember = true
		p.member(i, true, mt, &uc, depth)
		p.byte1('\n')
		*uc.cachelinep = initial
	}
	p.tabs(indent)
	p.byte1('}')
	if c.suffix != null {
		p.byte1(' ')
		p.str(c.suffix)
	}
}

// enumFprintf is enumeration__fprintf.
func (p *Printer) enumFprintf(t *Type, c *conf) {
	p.str("enum")
	if t.Name != "" {
		p.byte1(' ')
		p.str(t.Name)
	}
	if t.N == 0 {
		return
	}
	indent := min(c.indent, len(tabs)-1)
	p.str(" {\n")
	vals := p.m.Enumerators[t.First : t.First+t.N]
	w := 0
	for _, e := range vals {
		w = max(w, len(e.Name))
	}
	for _, e := range vals {
		p.tabs(indent)
		p.byte1('\t')
		p.padRight(e.Name, w)
		p.str(" = ")
		switch {
		case p.opt.Hex:
			p.numW(e.Value, 0, true)
		case t.Flags&FlagSigned != 0:
			p.int(int64(e.Value))
		default:
			p.uint(e.Value)
		}
		p.str(",\n")
	}
	p.tabs(indent)
	p.byte1('}')
	if t.Size != 4 {
		p.str(" __attribute__((__packed__))")
	}
	if c.suffix != null {
		p.byte1(' ')
		p.str(c.suffix)
	}
}

// typedefFprintf is typedef__fprintf.
func (p *Printer) typedefFprintf(t *Type, c *conf, depth int) {
	p.str("typedef ")
	if t.Ref == 0 {
		p.str("void ")
		p.str(t.Name)
		return
	}
	tt := p.m.Type(t.Ref)
	for d := 0; tt != nil && tt.Kind == KindAtomic && d < maxDepth; d++ {
		p.str("_Atomic ")
		tt = p.m.Type(tt.Ref)
	}
	if tt == nil {
		p.str(notFoundID(t.Ref))
		p.byte1(' ')
		p.str(t.Name)
		return
	}
	switch tt.Kind {
	case KindArray:
		p.arrayFprintf(tt, t.Name, c, depth+1)
		return
	case KindPointer:
		if pt := p.m.Type(tt.Ref); pt != nil && pt.Kind == KindFuncProto {
			p.ftype(pt, t.Name, false, true, 0, true, depth+1)
			return
		}
	case KindFuncProto:
		p.ftype(tt, t.Name, false, false, 0, true, depth+1)
		return
	case KindStruct:
		if tt.Name != "" && !p.opt.ExpandTypes {
			p.str("struct ")
			p.str(tt.Name)
			p.byte1(' ')
			p.str(t.Name)
			return
		}
		tc := *c
		if !p.opt.SuppressComments {
			p.findHoles(tt)
		}
		tc.typeSpacing -= 8
		tc.suffix = t.Name
		p.classFprintf(tt, &tc, depth+1)
		return
	case KindUnion:
		p.unionDecl(tt, t.Name, c, depth+1)
		return
	case KindEnum:
		if tt.Name != "" {
			p.str("enum ")
			p.str(tt.Name)
			p.byte1(' ')
			p.str(t.Name)
			return
		}
		tc := *c
		tc.suffix = t.Name
		p.enumFprintf(tt, &tc)
		return
	}
	p.str(p.tagName(tt, 512))
	p.byte1(' ')
	p.str(t.Name)
}
