package cdump

import (
	"strconv"

	"github.com/gobtf/gobtf/internal/btf"
)

// A C declarator reads inside out, so a declaration is printed from a stack:
// emitTypeDecl pushes the chain of types from the declared one down to its
// base (a named type, a struct, void), and emitChain pops them, printing the
// base type first, then pointers and qualifiers, then the name, with
// parentheses where an array or function would otherwise bind tighter than a
// pointer before it.

// declStack is a window of p.stack: cnt entries from start, top last.
type declStack struct{ start, cnt int }

func (p *printer) top(ds *declStack) btf.TypeID { return p.stack[ds.start+ds.cnt-1] }

// emitTypeDecl writes the declaration of name with type id at nesting level
// lvl (name may be empty: an abstract declarator).
func (p *printer) emitTypeDecl(id btf.TypeID, name string, lvl int) {
	start := len(p.stack)
	for {
		if len(p.stack)-start > int(p.last) {
			p.err = loopErr(id, p.kind(id))
			break
		}
		p.stack = append(p.stack, id)
		if id == 0 {
			break
		}
		t := p.typ(id)
		switch t.Kind() {
		case btf.KindPtr, btf.KindVolatile, btf.KindConst, btf.KindRestrict,
			btf.KindFuncProto, btf.KindTypeTag:
			id = t.Ref()
			continue
		case btf.KindArray:
			id, _, _ = t.Array()
			continue
		}
		break // a base type, or a kind that has no place in a declarator
	}
	ds := declStack{start, len(p.stack) - start}
	p.emitChain(&ds, name, lvl)
	p.stack = p.stack[:start]
}

// emitMods pops and writes the qualifiers on top of the stack ("const " ...),
// which C puts before the base type they qualify.
func (p *printer) emitMods(ds *declStack) {
	for ds.cnt > 0 {
		switch p.kind(p.top(ds)) {
		case btf.KindVolatile:
			p.buf = append(p.buf, "volatile "...)
		case btf.KindConst:
			p.buf = append(p.buf, "const "...)
		case btf.KindRestrict:
			p.buf = append(p.buf, "restrict "...)
		default:
			return
		}
		ds.cnt--
	}
}

// dropMods pops the qualifiers and type tags on top of the stack: C has no
// place for them on an array or function.
func (p *printer) dropMods(ds *declStack) {
	for ds.cnt > 0 {
		switch p.kind(p.top(ds)) {
		case btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
			ds.cnt--
		default:
			return
		}
	}
}

// emitName writes the declared name, after a space unless it follows a '*'.
func (p *printer) emitName(name string, lastWasPtr bool) {
	if name != "" && !lastWasPtr {
		p.buf = append(p.buf, ' ')
	}
	p.buf = append(p.buf, name...)
}

// emitChain pops the stack and writes the declaration.
func (p *printer) emitChain(ds *declStack, name string, lvl int) {
	lastWasPtr := true
	for ds.cnt > 0 {
		if !p.step() {
			return
		}
		ds.cnt--
		id := p.stack[ds.start+ds.cnt]
		if id == 0 {
			p.emitMods(ds)
			p.buf = append(p.buf, "void"...)
			lastWasPtr = false
			continue
		}
		t := p.typ(id)
		k := t.Kind()
		switch k {
		case btf.KindInt, btf.KindFloat:
			p.emitMods(ds)
			p.buf = append(p.buf, p.str(t.NameOff())...)
		case btf.KindStruct, btf.KindUnion:
			p.emitMods(ds)
			if t.NameOff() == 0 {
				p.emitStructDef(id, t, lvl)
			} else {
				p.emitStructFwd(id, t)
			}
		case btf.KindEnum, btf.KindEnum64:
			p.emitMods(ds)
			if t.NameOff() == 0 {
				p.emitEnumDef(id, t, lvl)
			} else {
				p.emitEnumFwd(id)
			}
		case btf.KindFwd:
			p.emitMods(ds)
			p.emitFwdDef(id, t)
		case btf.KindTypedef:
			p.emitMods(ds)
			p.buf = p.appendIdentName(p.buf, id)
		case btf.KindPtr:
			if lastWasPtr {
				p.buf = append(p.buf, '*')
			} else {
				p.buf = append(p.buf, " *"...)
			}
		case btf.KindVolatile:
			p.buf = append(p.buf, " volatile"...)
		case btf.KindConst:
			p.buf = append(p.buf, " const"...)
		case btf.KindRestrict:
			p.buf = append(p.buf, " restrict"...)
		case btf.KindTypeTag:
			p.emitMods(ds)
			if p.modern && t.KindFlag() {
				p.buf = append(p.buf, " __attribute__(("...)
				p.buf = append(p.buf, p.str(t.NameOff())...)
				p.buf = append(p.buf, "))"...)
			} else {
				p.buf = append(p.buf, ` __attribute__((btf_type_tag("`...)
				p.buf = append(p.buf, p.str(t.NameOff())...)
				p.buf = append(p.buf, `")))`...)
			}
		case btf.KindArray:
			p.emitArray(ds, t, name, lvl, lastWasPtr)
			return
		case btf.KindFuncProto:
			p.emitFuncProto(ds, t, name, lvl, lastWasPtr)
			return
		default:
			return // libbpf warns about the kind and writes nothing more
		}
		lastWasPtr = k == btf.KindPtr
	}
	p.emitName(name, lastWasPtr)
}

// emitArray writes the rest of the stack, then "[N]": an array of pointers
// needs the parentheses of "(*name)[N]", an array of arrays does not.
func (p *printer) emitArray(ds *declStack, t btf.Type, name string, lvl int, lastWasPtr bool) {
	_, _, n := t.Array()
	p.dropMods(ds)
	if ds.cnt == 0 {
		p.emitName(name, lastWasPtr)
	} else {
		multi := p.kind(p.top(ds)) == btf.KindArray
		if name != "" && !lastWasPtr {
			p.buf = append(p.buf, ' ')
		}
		if !multi {
			p.buf = append(p.buf, '(')
		}
		p.emitChain(ds, name, lvl)
		if !multi {
			p.buf = append(p.buf, ')')
		}
	}
	p.buf = append(p.buf, '[')
	p.buf = strconv.AppendUint(p.buf, uint64(n), 10)
	p.buf = append(p.buf, ']')
}

// emitFuncProto writes the rest of the stack in parentheses (the "(*name)"
// of a function pointer), then the parameter list: "(void)" for none (no
// parameters, or the single void one clang writes), "..." for a trailing
// unnamed void parameter. The "(void)" is libbpf's fix of 2024, which the
// Linux 6.1 stable tree, whose libbpf Debian's bpftool 7.1 is built with,
// carries; libbpf 1.1.0 itself printed "()".
func (p *printer) emitFuncProto(ds *declStack, t btf.Type, name string, lvl int, lastWasPtr bool) {
	p.dropMods(ds)
	if ds.cnt > 0 {
		p.buf = append(p.buf, " ("...)
		p.emitChain(ds, name, lvl)
		p.buf = append(p.buf, ')')
	} else {
		p.emitName(name, lastWasPtr)
	}
	p.buf = append(p.buf, '(')
	vlen := t.Vlen()
	if vlen == 0 {
		p.buf = append(p.buf, "void)"...)
		return
	}
	if vlen == 1 {
		if _, typ := t.Param(0); typ == 0 {
			p.buf = append(p.buf, "void)"...)
			return
		}
	}
	for i := range vlen {
		if i > 0 {
			p.buf = append(p.buf, ", "...)
		}
		nameOff, typ := t.Param(i)
		if i == vlen-1 && typ == 0 {
			p.buf = append(p.buf, "..."...)
			break
		}
		p.emitTypeDecl(typ, p.str(nameOff), lvl)
	}
	p.buf = append(p.buf, ')')
}
