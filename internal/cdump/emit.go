package cdump

import (
	"strconv"

	"github.com/gobtf/gobtf/internal/btf"
)

// indent returns the prefix of nesting level lvl: one tab per level, at
// most 13, as libbpf caps it.
func indent(lvl int) string {
	const tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t"
	return tabs[:min(max(lvl, 0), len(tabs))]
}

// emitType writes the definition of id, after the definitions and forward
// declarations it needs, unless it is written already. contID is the named
// struct or union whose members are being emitted (0 at top level): only a
// top-level call defines a named struct or an enum; inside a container a
// named struct gets a forward declaration, anonymous ones are written
// inline by the container's definition. A struct or typedef met again while
// it is being emitted gets a forward declaration (a struct) or its
// definition early (a typedef), which is what breaks legal cycles. chain
// counts links since the last struct, as in orderType.
func (p *printer) emitType(id btf.TypeID, contID btf.TypeID, chain int) {
	st := &p.states[id]
	if st.emit == emitted || !p.step() {
		return
	}
	t := p.typ(id)
	k := t.Kind()
	if chain > int(p.last) {
		p.err = loopErr(id, k)
		return
	}
	chain++
	if st.emit == emitting {
		if st.fwdEmitted {
			return
		}
		switch k {
		case btf.KindStruct, btf.KindUnion:
			if id == contID || t.NameOff() == 0 {
				return // a loop of anonymous structs: libbpf warns and goes on
			}
			p.emitStructFwd(id, t)
			p.buf = append(p.buf, ";\n\n"...)
			st.fwdEmitted = true
		case btf.KindTypedef:
			if !p.isVaList(t) {
				p.emitTypedefDef(id, t, 0)
				p.buf = append(p.buf, ";\n\n"...)
			}
			st.fwdEmitted = true
		}
		return
	}
	switch k {
	case btf.KindInt:
		p.emitMissingAlias(id)
		st.emit = emitted
	case btf.KindEnum, btf.KindEnum64:
		if contID == 0 {
			p.emitEnumDef(id, t, 0)
			p.buf = append(p.buf, ";\n\n"...)
		}
		st.emit = emitted
	case btf.KindPtr, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		p.emitType(t.Ref(), contID, chain)
	case btf.KindArray:
		elem, _, _ := t.Array()
		p.emitType(elem, contID, chain)
	case btf.KindFwd:
		p.emitFwdDef(id, t)
		p.buf = append(p.buf, ";\n\n"...)
		st.emit = emitted
	case btf.KindTypedef:
		st.emit = emitting
		p.emitType(t.Ref(), id, chain)
		if !st.fwdEmitted && !p.isVaList(t) {
			p.emitTypedefDef(id, t, 0)
			p.buf = append(p.buf, ";\n\n"...)
		}
		st.emit = emitted
	case btf.KindStruct, btf.KindUnion:
		p.emitComposite(id, t, contID)
	case btf.KindFuncProto:
		p.emitType(t.Ref(), contID, chain)
		for i := range t.Vlen() {
			_, typ := t.Param(i)
			p.emitType(typ, contID, chain)
		}
	}
}

// emitComposite is emitType for a struct or union.
func (p *printer) emitComposite(id btf.TypeID, t btf.Type, contID btf.TypeID) {
	st := &p.states[id]
	st.emit = emitting
	topLevel := contID == 0
	if topLevel || t.NameOff() == 0 {
		inner := id
		if t.NameOff() == 0 {
			inner = contID
		}
		for i := range t.Vlen() {
			p.emitType(t.Member(i).Type, inner, 0)
		}
	} else if !st.fwdEmitted && id != contID {
		p.emitStructFwd(id, t)
		p.buf = append(p.buf, ";\n\n"...)
		st.fwdEmitted = true
	}
	if topLevel {
		p.emitStructDef(id, t, 0)
		p.buf = append(p.buf, ";\n\n"...)
		st.emit = emitted
	} else {
		st.emit = notEmitted
	}
}

// isVaList reports a typedef named __builtin_va_list, which the compiler
// provides and a header must not redefine.
func (p *printer) isVaList(t btf.Type) bool {
	return t.NameOff() != 0 && p.str(t.NameOff()) == "__builtin_va_list"
}

// emitStructFwd writes "struct NAME" or "union NAME".
func (p *printer) emitStructFwd(id btf.TypeID, t btf.Type) {
	p.buf = appendKeyword(p.buf, t)
	p.buf = p.appendTypeName(p.buf, id)
}

// appendKeyword appends "struct" or "union", and a space if a name follows.
func appendKeyword(dst []byte, t btf.Type) []byte {
	if t.Kind() == btf.KindStruct {
		dst = append(dst, "struct"...)
	} else {
		dst = append(dst, "union"...)
	}
	if t.NameOff() != 0 {
		dst = append(dst, ' ')
	}
	return dst
}

// emitStructDef writes a struct or union's body at nesting level lvl: each
// member's declaration, padding members where the gap before a member (or
// the end) is not what natural alignment would leave, and the packed
// attribute when the layout cannot be natural.
func (p *printer) emitStructDef(id btf.TypeID, t btf.Type, lvl int) {
	isStruct := t.Kind() == btf.KindStruct
	align := p.aligns.Of(id)
	packed := isStruct && p.aligns.Packed(t)
	p.buf = appendKeyword(p.buf, t)
	p.buf = p.appendTypeName(p.buf, id)
	p.buf = append(p.buf, " {"...)

	kf := t.KindFlag()
	off := int64(0)
	prevBitfield := false
	vlen := t.Vlen()
	for i := range vlen {
		m := t.Member(i)
		bits := int64(btf.MemberBitfieldSize(kf, m.Offset))
		mOff := int64(btf.MemberBitOffset(kf, m.Offset))
		mAlign := 1
		if !packed {
			mAlign = p.aligns.Of(m.Type)
		}
		p.emitPadding(off, mOff, mAlign, prevBitfield && bits != 0, lvl+1)
		p.buf = append(p.buf, '\n')
		p.buf = append(p.buf, indent(lvl+1)...)
		p.emitTypeDecl(m.Type, p.str(m.NameOff), lvl+1)
		if bits != 0 {
			p.buf = append(p.buf, ": "...)
			p.buf = strconv.AppendInt(p.buf, bits, 10)
			off = mOff + bits
			prevBitfield = true
		} else {
			off = mOff + max(0, p.s.ResolveSize(m.Type, uint32(p.ptrSz)))*8
			prevBitfield = false
		}
		p.buf = append(p.buf, ';')
	}
	if isStruct {
		p.emitPadding(off, int64(t.Size())*8, align, false, lvl+1)
	}
	if vlen != 0 || t.Size() != 0 {
		p.buf = append(p.buf, '\n')
		p.buf = append(p.buf, indent(lvl)...)
	}
	p.buf = append(p.buf, '}')
	if packed {
		p.buf = append(p.buf, " __attribute__((packed))"...)
	}
}

// emitMissingAlias defines the ARM NEON polynomial types, which BTF has as
// INTs but C compilers for other targets lack.
func (p *printer) emitMissingAlias(id btf.TypeID) {
	var base string
	switch name := p.resolveTypeName(id); name {
	case "__Poly8_t":
		base = "unsigned char"
	case "__Poly16_t":
		base = "unsigned short"
	case "__Poly64_t":
		base = "unsigned long long"
	case "__Poly128_t":
		base = "unsigned __int128"
	default:
		return
	}
	p.buf = append(p.buf, "typedef "...)
	p.buf = append(p.buf, base...)
	p.buf = append(p.buf, ' ')
	p.buf = p.appendTypeName(p.buf, id)
	p.buf = append(p.buf, ";\n\n"...)
}

// emitFwdDef writes a FWD as "struct NAME" or "union NAME".
func (p *printer) emitFwdDef(id btf.TypeID, t btf.Type) {
	if t.KindFlag() {
		p.buf = append(p.buf, "union "...)
	} else {
		p.buf = append(p.buf, "struct "...)
	}
	p.buf = p.appendTypeName(p.buf, id)
}

// emitTypedefDef writes "typedef <declaration of NAME>". A typedef of void
// named __gnuc_va_list (old GCC writes it) becomes one of __builtin_va_list.
func (p *printer) emitTypedefDef(id btf.TypeID, t btf.Type, lvl int) {
	start := len(p.buf)
	p.buf = p.appendIdentName(p.buf, id)
	name := string(p.buf[start:])
	p.buf = p.buf[:start]
	if t.Ref() == 0 && name == "__gnuc_va_list" {
		p.buf = append(p.buf, "typedef __builtin_va_list __gnuc_va_list"...)
		return
	}
	p.buf = append(p.buf, "typedef "...)
	p.emitTypeDecl(t.Ref(), name, lvl)
}
