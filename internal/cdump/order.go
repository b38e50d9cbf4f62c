package cdump

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
)

// check rejects what libbpf refuses to load or could not walk: a type of an
// unknown kind, a reference past the last type, and a loop of pointers,
// arrays, typedefs, modifiers or function prototypes that passes through no
// struct or union (only a struct or union, reached through a pointer, can
// legally close a loop; the ordering walk handles those).
func (p *printer) check() error {
	for id := btf.TypeID(1); id <= p.last; id++ {
		t := p.types[id]
		if k := t.Kind(); k == btf.KindUnknown || k > btf.MaxKind {
			return fmt.Errorf("cdump: type [%d]: unknown kind %d", id, k)
		}
		var bad btf.TypeID
		t.ForEachTypeRef(func(r *uint32) {
			if *r > p.last && bad == 0 {
				bad = *r
			}
		})
		if bad != 0 {
			return fmt.Errorf("cdump: type [%d] %s: refers to type %d, past the last type %d", id, t.Kind(), bad, p.last)
		}
	}
	return p.checkLoops()
}

// chained reports whether the walks follow type t's references without a
// state that stops them: everything but structs, unions and the leaf kinds.
func chained(k btf.Kind) bool {
	switch k {
	case btf.KindPtr, btf.KindTypedef, btf.KindVolatile, btf.KindConst,
		btf.KindRestrict, btf.KindTypeTag, btf.KindArray, btf.KindFuncProto:
		return true
	}
	return false
}

// chainRef returns reference i of a chained type (the pointee, element,
// return type, then parameters) and false past the last.
func chainRef(t btf.Type, i int) (btf.TypeID, bool) {
	switch t.Kind() {
	case btf.KindArray:
		elem, _, _ := t.Array()
		return elem, i == 0
	case btf.KindFuncProto:
		if i == 0 {
			return t.Ref(), true
		}
		if i-1 < t.Vlen() {
			_, typ := t.Param(i - 1)
			return typ, true
		}
		return 0, false
	}
	return t.Ref(), i == 0
}

// checkLoops finds a loop among chained types by an iterative depth-first
// search (grey = on the current path).
func (p *printer) checkLoops() error {
	const white, grey, black = 0, 1, 2
	color := make([]uint8, p.last+1)
	type frame struct {
		id   btf.TypeID
		next int
	}
	var path []frame
	for root := btf.TypeID(1); root <= p.last; root++ {
		if color[root] != white || !chained(p.kind(root)) {
			continue
		}
		color[root] = grey
		path = append(path[:0], frame{root, 0})
		for len(path) > 0 {
			f := &path[len(path)-1]
			ref, ok := chainRef(p.types[f.id], f.next)
			if !ok {
				color[f.id] = black
				path = path[:len(path)-1]
				continue
			}
			f.next++
			if !chained(p.kind(ref)) || color[ref] == black {
				continue
			}
			if color[ref] == grey {
				return fmt.Errorf("cdump: type [%d] %s: reference loop through no struct or union", ref, p.kind(ref))
			}
			color[ref] = grey
			path = append(path, frame{ref, 0})
		}
	}
	return nil
}

// markReferenced flags every type some other type refers to: an anonymous
// enum nobody refers to is emitted on its own, a referenced one only inline.
func (p *printer) markReferenced() {
	for id := btf.TypeID(1); id <= p.last; id++ {
		t := p.types[id]
		switch t.Kind() {
		case btf.KindInt, btf.KindEnum, btf.KindEnum64, btf.KindFwd, btf.KindFloat:
		default:
			t.ForEachTypeRef(func(r *uint32) { p.states[*r].referenced = true })
		}
	}
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
// Structs and unions are marked while in progress, and check has ruled out
// loops through other kinds, so the walk ends.
func (p *printer) orderType(id btf.TypeID, throughPtr bool) (int, error) {
	st := &p.states[id]
	if st.order == ordered {
		return 1, nil
	}
	if !p.step() {
		return 0, p.err
	}
	t := p.types[id]
	k := t.Kind()
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
		r, err := p.orderType(t.Ref(), true)
		p.states[id].order = ordered
		return r, err
	case btf.KindArray:
		elem, _, _ := t.Array()
		return p.orderType(elem, false)
	case btf.KindStruct, btf.KindUnion:
		if throughPtr && t.NameOff() != 0 {
			return 0, nil
		}
		st.order = ordering
		for i := range t.Vlen() {
			if _, err := p.orderType(t.Member(i).Type, false); err != nil {
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
		strong, err := p.orderType(t.Ref(), throughPtr)
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
		return p.orderType(t.Ref(), throughPtr)
	case btf.KindFuncProto:
		strong, err := p.orderType(t.Ref(), throughPtr)
		if err != nil {
			return 0, err
		}
		for i := range t.Vlen() {
			_, typ := t.Param(i)
			r, err := p.orderType(typ, throughPtr)
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
