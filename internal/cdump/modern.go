package cdump

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
)

// What bpftool 7.6 (Options.Bpftool76) adds to the header: macros for the
// kfunc prototypes after the pragma, the prototypes themselves at the end,
// and, unless asked for "unsorted", an order of the top-level types that
// does not depend on type IDs.

// kfuncMacros follows the preserve_access_index pragma in bpftool 7.6.
const kfuncMacros = "#ifndef __ksym\n#define __ksym __attribute__((section(\".ksyms\")))\n#endif\n\n" +
	"#ifndef __weak\n#define __weak __attribute__((weak))\n#endif\n\n" +
	"#ifndef __bpf_fastcall\n#if __has_attribute(bpf_fastcall)\n" +
	"#define __bpf_fastcall __attribute__((bpf_fastcall))\n#else\n#define __bpf_fastcall\n#endif\n#endif\n\n"

// The declaration tags that mark a FUNC as a kfunc, and as one the
// compiler may call without saving caller-saved registers.
const (
	kfuncTag    = "bpf_kfunc"
	fastcallTag = "bpf_fastcall"
)

// emitKfuncs writes bpftool 7.6's "BPF kfuncs" block: an extern prototype
// of every FUNC a bpf_kfunc declaration tag marks, sorted by name.
func (p *printer) emitKfuncs() {
	var kfuncs []btf.TypeID
	fast := map[btf.TypeID]bool{}
	for id := btf.TypeID(1); id <= p.last; id++ {
		t := p.typ(id)
		if t.Kind() != btf.KindDeclTag || t.ComponentIdx() != -1 || p.kind(t.Ref()) != btf.KindFunc {
			continue
		}
		switch p.str(t.NameOff()) {
		case kfuncTag:
			kfuncs = append(kfuncs, t.Ref())
		case fastcallTag:
			fast[t.Ref()] = true
		}
	}
	slices.SortStableFunc(kfuncs, func(a, b btf.TypeID) int {
		return strings.Compare(p.str(p.typ(a).NameOff()), p.str(p.typ(b).NameOff()))
	})
	p.buf = append(p.buf, "\n/* BPF kfuncs */\n#ifndef BPF_NO_KFUNC_PROTOTYPES\n"...)
	for _, fn := range kfuncs {
		p.buf = append(p.buf, "extern "...)
		if fast[fn] {
			p.buf = append(p.buf, "__bpf_fastcall "...)
		}
		f := p.typ(fn)
		p.emitTypeDecl(f.Ref(), p.str(f.NameOff()), 0)
		p.buf = append(p.buf, " __weak __ksym;\n"...)
	}
	p.buf = append(p.buf, "#endif\n\n"...)
}

// sortKey is what bpftool 7.6 orders the top-level types by: a rank by kind
// (named enums before scalars before structs before function prototypes,
// anonymous types last), the name of the type or of what it refers to, its
// own name, a hash of its names and its members' names, and its ID.
type sortKey struct {
	rank     int
	sortName string
	ownName  string
	hash     uint64
	id       btf.TypeID
}

// maxRank is the rank of anonymous and unranked types.
const maxRank = 10

// sortedOrder returns the IDs in bpftool 7.6's order. Like bpftool, it
// sorts void with the types and then leaves out whatever sorts first.
func (p *printer) sortedOrder() ([]btf.TypeID, error) {
	keys := make([]sortKey, p.last+1)
	for id := range keys {
		tid := btf.TypeID(id)
		keys[id] = sortKey{
			rank:     p.rank(tid, false, 0),
			sortName: p.sortName(tid, false, 0),
			hash:     p.disambigHash(tid, true, 0),
			id:       tid,
		}
		if tid != 0 {
			keys[id].ownName = p.str(p.typ(tid).NameOff())
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.sortName, b.sortName),
			strings.Compare(a.ownName, b.ownName), cmp.Compare(a.hash, b.hash), cmp.Compare(a.id, b.id))
	})
	order := make([]btf.TypeID, 0, len(keys)-1)
	for _, k := range keys[1:] {
		order = append(order, k.id)
	}
	return order, nil
}

// tooLong reports a reference chain longer than there are types (a loop),
// setting the printer's error.
func (p *printer) tooLong(id btf.TypeID, chain int) bool {
	if chain <= int(p.last) {
		return false
	}
	if p.err == nil {
		p.err = loopErr(id, p.kind(id))
	}
	return true
}

// rank is bpftool's type rank; a named type passes hasName down the types
// it refers to.
func (p *printer) rank(id btf.TypeID, hasName bool, chain int) int {
	if p.tooLong(id, chain) {
		return maxRank
	}
	t := p.typ(id)
	if len(t) != 0 && t.NameOff() != 0 {
		hasName = true
	}
	switch t.Kind() {
	case btf.KindEnum, btf.KindEnum64:
		if hasName {
			return 1
		}
		return 0
	case btf.KindInt, btf.KindFloat:
		return 2
	case btf.KindStruct, btf.KindUnion:
		if hasName {
			return 3
		}
	case btf.KindFuncProto:
		if hasName {
			return 4
		}
	case btf.KindArray:
		if hasName {
			elem, _, _ := t.Array()
			return p.rank(elem, true, chain+1)
		}
	case btf.KindTypeTag, btf.KindConst, btf.KindPtr, btf.KindVolatile,
		btf.KindRestrict, btf.KindTypedef, btf.KindDeclTag:
		if hasName {
			return p.rank(t.Ref(), true, chain+1)
		}
	}
	return maxRank
}

// sortName is the name a type sorts under: an anonymous enum's first
// value's (when not reached through a reference), a reference's target's,
// and otherwise the type's own.
func (p *printer) sortName(id btf.TypeID, fromRef bool, chain int) string {
	if p.tooLong(id, chain) {
		return ""
	}
	t := p.typ(id)
	switch t.Kind() {
	case btf.KindUnknown:
		return ""
	case btf.KindEnum, btf.KindEnum64:
		off := t.NameOff()
		if !fromRef && off == 0 && t.Vlen() > 0 {
			if t.Kind() == btf.KindEnum64 {
				off, _ = t.Enum64Value(0)
			} else {
				off, _ = t.EnumValue(0)
			}
		}
		return p.str(off)
	case btf.KindArray:
		elem, _, _ := t.Array()
		return p.sortName(elem, true, chain+1)
	case btf.KindTypeTag, btf.KindConst, btf.KindPtr, btf.KindVolatile,
		btf.KindRestrict, btf.KindTypedef, btf.KindDeclTag:
		return p.sortName(t.Ref(), true, chain+1)
	}
	return p.str(t.NameOff())
}

// strHash is libbpf's string hash (characters are signed, as C's char on
// x86).
func strHash(s string) uint64 {
	var h uint64
	for i := 0; i < len(s); i++ {
		h = h*31 + uint64(int64(int8(s[i])))
	}
	return h
}

// hashName mixes the name at off (none for 0) into h.
func (p *printer) hashName(h uint64, off uint32) uint64 {
	if off == 0 {
		return h
	}
	return h*31 + strHash(p.str(off))
}

// disambigHash tells apart types that sort alike: it hashes the names of a
// type, of its enum values, of its members and their types (withMembers,
// one level deep), and of what it refers to.
func (p *printer) disambigHash(id btf.TypeID, withMembers bool, chain int) uint64 {
	if p.tooLong(id, chain) {
		return 0
	}
	t := p.typ(id)
	if len(t) == 0 {
		return 0
	}
	h := p.hashName(0, t.NameOff())
	switch t.Kind() {
	case btf.KindEnum:
		for i := range t.Vlen() {
			off, _ := t.EnumValue(i)
			h = p.hashName(h, off)
		}
	case btf.KindEnum64:
		for i := range t.Vlen() {
			off, _ := t.Enum64Value(i)
			h = p.hashName(h, off)
		}
	case btf.KindStruct, btf.KindUnion:
		if withMembers {
			for i := range t.Vlen() {
				m := t.Member(i)
				h = p.hashName(h, m.NameOff)
				h = h*31 + p.disambigHash(m.Type, false, chain+1)
			}
		}
	case btf.KindTypeTag, btf.KindConst, btf.KindPtr, btf.KindVolatile,
		btf.KindRestrict, btf.KindTypedef, btf.KindDeclTag:
		h = h*31 + p.disambigHash(t.Ref(), withMembers, chain+1)
	case btf.KindArray:
		elem, _, n := t.Array()
		h = h*31 + uint64(n)
		h = h*31 + p.disambigHash(elem, withMembers, chain+1)
	}
	return h
}
