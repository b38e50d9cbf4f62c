package cdump

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
)

// markReferenced flags every type some other type refers to (an anonymous
// enum nobody refers to is emitted on its own, a referenced one only
// inline), and rejects what libbpf refuses to load: a type of an unknown
// kind or a reference past the last type.
//
// It also counts the names of each name space, for names.init.
func (p *printer) markReferenced() error {
	tags, idents := 0, 0
	for id := btf.TypeID(1); id <= p.last; id++ {
		t := p.typ(id)
		k := t.Kind()
		switch k {
		case btf.KindStruct, btf.KindUnion:
			tags++
		case btf.KindTypedef:
			idents++
		case btf.KindInt:
			tags++
			continue
		case btf.KindEnum, btf.KindEnum64:
			tags++
			idents += t.Vlen()
			continue
		case btf.KindFwd, btf.KindFloat:
			continue
		case btf.KindUnknown:
			return fmt.Errorf("cdump: type [%d]: unknown kind %d", id, k)
		}
		if k > btf.MaxKind {
			return fmt.Errorf("cdump: type [%d]: unknown kind %d", id, k)
		}
		if bad := p.markRefs(t); bad != 0 {
			return fmt.Errorf("cdump: type [%d] %s: refers to type %d, past the last type %d", id, k, bad, p.last)
		}
	}
	p.names.init(p.s.Strings(), tags, idents, int(p.last)+1)
	return nil
}

// markRefs flags the types t refers to and returns a reference past the
// last type, or 0.
func (p *printer) markRefs(t btf.Type) btf.TypeID {
	var bad btf.TypeID
	mark := func(r btf.TypeID) {
		if r > p.last {
			bad = r
		} else {
			p.states[r].referenced = true
		}
	}
	switch t.Kind() {
	case btf.KindArray:
		elem, index, _ := t.Array()
		mark(elem)
		mark(index)
	case btf.KindStruct, btf.KindUnion:
		for i := range t.Vlen() {
			mark(t.Member(i).Type)
		}
	case btf.KindFuncProto:
		mark(t.Ref())
		for i := range t.Vlen() {
			_, typ := t.Param(i)
			mark(typ)
		}
	case btf.KindDatasec:
		for i := range t.Vlen() {
			typ, _, _ := t.SecInfo(i)
			mark(typ)
		}
	default:
		mark(t.Ref())
	}
	return bad
}

// loopErr reports a loop that passes through no struct or union: a pointer,
// typedef, modifier, array or prototype chain longer than there are types.
// Only a struct or union reached through a pointer can legally close a loop,
// so every walk counts the links it follows since the last struct (chain)
// and stops when the count exceeds the number of types.
func loopErr(id btf.TypeID, k btf.Kind) error {
	return fmt.Errorf("cdump: type [%d] %s: reference loop through no struct or union", id, k)
}

// orderType is libbpf's topological walk. It appends to the queue every named
// type id needs defined before it (and id itself when it is a named type),
// each after the types it holds by value. throughPtr says a pointer led here:
// a named struct or union behind one needs only a forward declaration, so
// the walk stops there, which is what lets self-referential structs order.
//
// The result is 1 when the type is "strong" (a typedef of it must be defined
// before use even behind a pointer, because it names a definition that got
// queued) and 0 otherwise. A struct met again while its members are being
// ordered, other than behind a pointer by name, is an unsatisfiable cycle.
// Structs and unions are marked while in progress, and chain (see loopErr)
// stops loops through other kinds, so the walk ends.
func (p *printer) orderType(id btf.TypeID, throughPtr bool, chain int) (int, error) {
	st := &p.states[id]
	if st.order == ordered {
		return 1, nil
	}
	if !p.step() {
		return 0, p.err
	}
	t := p.typ(id)
	k := t.Kind()
	if chain > int(p.last) {
		return 0, loopErr(id, k)
	}
	chain++
	if st.order == ordering {
		if (k == btf.KindStruct || k == btf.KindUnion) && throughPtr && t.NameOff() != 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("cdump: type [%d]: unsatisfiable type cycle", id)
	}
	switch k {
	case btf.KindInt, btf.KindFloat:
		st.order = ordered
		return 0, nil
	case btf.KindPtr:
		r, err := p.orderType(t.Ref(), true, chain)
		p.states[id].order = ordered
		return r, err
	case btf.KindArray:
		elem, _, _ := t.Array()
		return p.orderType(elem, false, chain)
	case btf.KindStruct, btf.KindUnion:
		if throughPtr && t.NameOff() != 0 {
			return 0, nil
		}
		st.order = ordering
		for i := range t.Vlen() {
			if _, err := p.orderType(t.Member(i).Type, false, 0); err != nil {
				return 0, err
			}
		}
		if t.NameOff() != 0 {
			p.queue = append(p.queue, id)
		}
		p.states[id].order = ordered
		return 1, nil
	case btf.KindEnum, btf.KindEnum64, btf.KindFwd:
		if t.NameOff() != 0 || !st.referenced {
			p.queue = append(p.queue, id)
		}
		st.order = ordered
		return 1, nil
	case btf.KindTypedef:
		strong, err := p.orderType(t.Ref(), throughPtr, chain)
		if err != nil {
			return 0, err
		}
		if throughPtr && strong == 0 {
			return 0, nil
		}
		p.queue = append(p.queue, id)
		p.states[id].order = ordered
		return 1, nil
	case btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		return p.orderType(t.Ref(), throughPtr, chain)
	case btf.KindFuncProto:
		strong, err := p.orderType(t.Ref(), throughPtr, chain)
		if err != nil {
			return 0, err
		}
		for i := range t.Vlen() {
			_, typ := t.Param(i)
			r, err := p.orderType(typ, throughPtr, chain)
			if err != nil {
				return 0, err
			}
			strong |= r
		}
		return strong, nil
	case btf.KindFunc, btf.KindVar, btf.KindDatasec, btf.KindDeclTag:
		st.order = ordered
		return 0, nil
	}
	return 0, fmt.Errorf("cdump: type [%d]: unexpected kind %s", id, k)
}
