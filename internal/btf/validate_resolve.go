package btf

import (
	"errors"
	"fmt"
	"math"
)

// Pass 3 of the validator: reference resolution, as the kernel's verifier
// does it, and pass 4, the modifier-chain check.
//
// The kernel resolves every type that refers to others (modifiers, PTR,
// STRUCT/UNION, ARRAY, VAR, FUNC, DECL_TAG, DATASEC) in ID order, by a
// depth-first walk on an explicit stack of at most 32 entries. A type is
// pushed when a referrer needs it settled first; it is popped when it is
// resolved, recording the ID of the first sized type it stands for and, for
// an array, its total size. Meeting a type already on the stack is a loop;
// needing a 33rd entry is "too deep". Which referenced types must be settled
// first depends on a mode fixed by the first PTR, STRUCT/UNION or ARRAY
// pushed: behind a pointer any non-modifier, non-pointer type is final (that
// is how "struct A { struct A *next; }" is legal), inside a struct or array
// pointers are final. Emulating this walk exactly, rather than checking an
// equivalent property, makes the validator reject the same blobs as the
// kernel, including the depth limit that depends on ID order. Each type is
// resolved once and the stack is bounded, so the pass is linear and never
// recurses.

// Visit states of a type during resolution.
const (
	notVisited uint8 = iota
	visiting
	resolvedState
	failedState // an earlier walk through it failed (AllFaults)
)

// resolveMode is the kernel's resolve_mode: which referenced types count as
// final during one walk.
type resolveMode uint8

const (
	modeUndecided resolveMode = iota
	modePtr
	modeStructOrArray
)

// vertex is one stack entry: a type being resolved and, for STRUCT/UNION
// and DATASEC, the member to continue with.
type vertex struct {
	id   TypeID
	next int
}

// Stack outcomes that the walk reports against the type it started from.
var (
	errTooDeep = errors.New("resolution deeper than the kernel's stack")
	errLoop    = errors.New("reference loop")
	errSkip    = errors.New("reaches a type an earlier fault involves")
)

func isModifier(k Kind) bool {
	switch k {
	case KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		return true
	}
	return false
}

// needsResolve: the kinds whose references the kernel resolves.
func needsResolve(k Kind) bool {
	switch k {
	case KindPtr, KindStruct, KindUnion, KindArray, KindVar, KindFunc, KindDeclTag, KindDatasec:
		return true
	}
	return isModifier(k)
}

// sourceOnly: kinds nothing may refer to, except a DATASEC to a VAR.
func sourceOnly(k Kind) bool { return k == KindVar || k == KindDeclTag || k == KindDatasec }

// noSize: void and the kinds without a size.
func noSize(t Type) bool {
	switch t.Kind() {
	case KindUnknown, KindFwd, KindFunc, KindFuncProto, KindDeclTag:
		return true
	}
	return false
}

// hasSize: the kinds whose size word is their size.
func hasSize(k Kind) bool {
	switch k {
	case KindInt, KindStruct, KindUnion, KindEnum, KindDatasec, KindFloat, KindEnum64:
		return true
	}
	return false
}

func isStructKind(k Kind) bool { return k == KindStruct || k == KindUnion }

// intRegular reports whether an INT is a whole 1, 2, 4, 8 or 16-byte
// integer with no bit offset: what arrays, array indexes and kind_flag
// bitfields must use.
func intRegular(t Type) bool {
	_, off, bits := t.IntData()
	n := bits / 8
	return bits%8 == 0 && off == 0 && n != 0 && n <= 16 && n&(n-1) == 0
}

func (v *validator) isResolved(id TypeID) bool { return id <= v.n && v.state[id] == resolvedState }

// final reports whether the walk may stop at t in the current mode (the
// kernel's "resolve sink").
func (v *validator) final(t Type) bool {
	k := t.Kind()
	switch v.mode {
	case modePtr:
		return !isModifier(k) && k != KindPtr
	case modeStructOrArray:
		return !isModifier(k) && k != KindArray && !isStructKind(k)
	}
	return !needsResolve(k)
}

func (v *validator) push(t Type, id TypeID) error {
	if v.top == maxResolveDepth {
		return errTooDeep
	}
	if v.state[id] == failedState {
		return errSkip
	}
	if v.state[id] != notVisited {
		return errLoop
	}
	v.state[id] = visiting
	v.stack[v.top] = vertex{id: id}
	v.top++
	if v.mode == modeUndecided {
		switch k := t.Kind(); {
		case k == KindPtr:
			v.mode = modePtr
		case isStructKind(k) || k == KindArray:
			v.mode = modeStructOrArray
		}
	}
	return nil
}

func (v *validator) popResolved(resID TypeID, size uint32) {
	v.top--
	id := v.stack[v.top].id
	v.resID[id] = resID
	v.resSize[id] = size
	v.state[id] = resolvedState
}

// sizeOf is the kernel's btf_type_id_size: the first type with a size that
// id stands for (following one resolved modifier or VAR), its ID and size.
// ok is false for void, FWD, FUNC, FUNC_PROTO and anything resolving to them.
func (v *validator) sizeOf(id TypeID) (rid TypeID, size uint32, rt Type, ok bool) {
	t := v.typ(id)
	if t == nil || noSize(t) {
		return 0, 0, nil, false
	}
	k := t.Kind()
	switch {
	case hasSize(k):
		return id, t[2], t, true
	case k == KindArray:
		return id, v.resSize[id], t, true
	case k == KindPtr:
		return id, kernelPtrSize, t, true
	case !isModifier(k) && k != KindVar:
		return 0, 0, nil, false
	}
	id = v.resID[id]
	t = v.typ(id)
	if t == nil || noSize(t) {
		return 0, 0, nil, false
	}
	switch k := t.Kind(); {
	case hasSize(k):
		return id, t[2], t, true
	case k == KindArray:
		return id, v.resSize[id], t, true
	case k == KindPtr:
		return id, kernelPtrSize, t, true
	}
	return 0, 0, nil, false
}

// runResolve resolves every type in ID order and checks every FUNC_PROTO,
// as the kernel's second pass does. Faults go to add as in runMetas. After
// a fault the walk's unfinished types are marked failed, so that later
// walks that reach them end silently rather than report it again.
func (v *validator) runResolve(add func(error) bool) bool {
	n := int(v.n) + 1
	v.state = make([]uint8, n)
	v.resID = make([]uint32, n)
	v.resSize = make([]uint32, n)
	for _, id := range v.failed {
		v.state[id] = failedState
	}
	layers := v.layers
	if v.own {
		layers = layers[len(layers)-1:]
	}
	for _, l := range layers {
		for i := range l.spec.NumTypes() {
			id := l.firstID + TypeID(i)
			t := l.spec.typeAt(i)
			k := t.Kind()
			if v.state[id] == failedState {
				continue
			}
			if needsResolve(k) && v.state[id] != resolvedState {
				if err := v.resolve(t, id); err != nil && err != errSkip && !add(err) {
					return false
				}
			}
			if k == KindFuncProto {
				if err := v.checkFuncProto(id, t); err != nil && err != errSkip && !add(err) {
					return false
				}
			}
		}
	}
	return true
}

// resolve runs one depth-first walk from type id (the kernel's btf_resolve).
// It returns errSkip when the walk reached a type an earlier walk failed on.
func (v *validator) resolve(t Type, id TypeID) error {
	v.mode = modeUndecided
	v.top = 0
	err := v.push(t, id)
	for err == nil && v.top > 0 {
		err = v.resolveTop()
	}
	if err != nil {
		for _, vx := range v.stack[:v.top] {
			v.state[vx.id] = failedState
		}
		if err == errSkip && v.state[id] != failedState {
			v.state[id] = failedState
		}
	}
	switch err {
	case nil:
	case errTooDeep:
		e := v.errorf(id, t, fmt.Sprintf("Exceeded max resolving depth:%d", maxResolveDepth), "resolving needs more than %d nested types (the kernel's MAX_RESOLVE_DEPTH)", maxResolveDepth)
		e.Errno = errnoE2BIG
		return e
	case errLoop:
		e := v.errorf(id, t, "Loop detected", "reference loop: a type contains or aliases itself without a pointer in between")
		e.Errno = errnoEEXIST
		return e
	default:
		return err
	}
	if !v.resolveValid(t, id) {
		v.state[id] = failedState
		return v.errorf(id, t, "Invalid resolve state", "type does not resolve to a sized type")
	}
	return nil
}

// resolveTop advances the walk at the top of the stack: it either pushes a
// referenced type that must be settled first, or checks the type and pops
// it.
func (v *validator) resolveTop() error {
	vx := &v.stack[v.top-1]
	t := v.typ(vx.id)
	switch k := t.Kind(); k {
	case KindPtr, KindVar, KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		return v.resolveRef(vx.id, t)
	case KindArray:
		return v.resolveArray(vx.id, t)
	case KindStruct, KindUnion:
		return v.resolveStruct(vx, t)
	case KindDatasec:
		return v.resolveDatasec(vx, t)
	case KindFunc:
		if err := v.checkFunc(vx.id, t); err != nil {
			return err
		}
		v.popResolved(t[2], 0)
		return nil
	case KindDeclTag:
		return v.resolveDeclTag(vx.id, t)
	}
	return v.formErrorf(FormBasic, vx.id, t, "Unsupported resolve", "kind %s cannot be resolved", t.Kind())
}

// argErr is the kernel's reason for a bad parameter, numbered from 1.
func argErr(n int) string { return fmt.Sprintf("Invalid arg#%d", n) }

// vsiErr builds the error about entry i of DATASEC id found while
// resolving.
func (v *validator) vsiErr(id TypeID, t Type, i int, kernel, format string, args ...any) error {
	e := v.entryErr(FormVsi, id, t, i, kernel, format, args...)
	e.Resolve = true
	return e
}

// describeRef names what a bad reference points at, for error messages.
func describeRef(t Type) string {
	if t == nil {
		return "no type (ID out of range)"
	}
	if t.Kind() == KindUnknown {
		return "void"
	}
	switch k := t.Kind(); k {
	case KindInt, KindArray, KindEnum, KindEnum64:
		return "an " + k.String()
	default:
		return "a " + k.String()
	}
}

// resolveRef resolves PTR, VAR, TYPEDEF, the modifiers and TYPE_TAG.
// All need an existing, referable target; a VAR needs a sized one, the
// others also accept void, FWD and FUNC_PROTO.
func (v *validator) resolveRef(id TypeID, t Type) error {
	k := t.Kind()
	next := t[2]
	nt := v.typ(next)
	if nt == nil || sourceOnly(nt.Kind()) {
		return v.errorf(id, t, "Invalid type_id", "refers to type ID %d, %s", next, describeRef(nt))
	}
	if !v.final(nt) && !v.isResolved(next) {
		return v.push(nt, next)
	}
	if (k == KindPtr || k == KindVar) && isModifier(nt.Kind()) {
		// The modifier may have been resolved inside a struct walk,
		// stopping at a pointer; continue from that pointer so that a
		// pointer loop through it is still seen.
		rid := v.resID[next]
		rt := v.typ(rid)
		if rt.Kind() == KindPtr && !v.final(rt) && !v.isResolved(rid) {
			return v.push(rt, rid)
		}
	}
	rid, _, _, ok := v.sizeOf(next)
	if !ok {
		if k == KindVar {
			return v.errorf(id, t, "Invalid type_id", "variable type ID %d (%s) has no size", next, describeRef(nt))
		}
		rid = next
		if v.isResolved(next) {
			rid = v.resID[next]
			nt = v.typ(rid)
		}
		if nk := nt.Kind(); nk != KindUnknown && nk != KindFwd && nk != KindFuncProto {
			return v.errorf(id, t, "Invalid type_id", "refers to type ID %d, %s, which is neither sized nor void, FWD or FUNC_PROTO", next, describeRef(nt))
		}
	}
	v.popResolved(rid, 0)
	return nil
}

// resolveArray checks an ARRAY's index (a regular INT) and element (a
// sized type, a regular INT if an INT) and records its total size.
func (v *validator) resolveArray(id TypeID, t Type) error {
	elem, index, nelems := t.Array()
	it := v.typ(index)
	if it == nil || noSize(it) || sourceOnly(it.Kind()) {
		return v.errorf(id, t, "Invalid index", "index type ID %d is %s", index, describeRef(it))
	}
	if !v.final(it) && !v.isResolved(index) {
		return v.push(it, index)
	}
	if _, _, rt, ok := v.sizeOf(index); !ok || rt.Kind() != KindInt || !intRegular(rt) {
		return v.errorf(id, t, "Invalid index", "index type ID %d is not a whole 1, 2, 4, 8 or 16-byte INT", index)
	}
	et := v.typ(elem)
	if et == nil || noSize(et) || sourceOnly(et.Kind()) {
		return v.errorf(id, t, "Invalid elem", "element type ID %d is %s", elem, describeRef(et))
	}
	if !v.final(et) && !v.isResolved(elem) {
		return v.push(et, elem)
	}
	eid, esize, ert, ok := v.sizeOf(elem)
	if !ok {
		return v.errorf(id, t, "Invalid elem", "element type ID %d has no size", elem)
	}
	if ert.Kind() == KindInt && !intRegular(ert) {
		return v.errorf(id, t, "Invalid array of int", "element INT [%d] is a bitfield-like INT, not a whole 1, 2, 4, 8 or 16-byte one", eid)
	}
	if nelems != 0 && esize > math.MaxUint32/nelems {
		return v.errorf(id, t, "Array size overflows U32_MAX", "%d elements of %d bytes overflow 32 bits", nelems, esize)
	}
	v.popResolved(eid, esize*nelems)
	return nil
}

// resolveStruct checks each member's type and that the member fits,
// settling member types first where the mode requires it.
func (v *validator) resolveStruct(vx *vertex, t Type) error {
	id := vx.id
	if vx.next > 0 {
		m := t.Member(vx.next - 1)
		if err := v.checkMember(id, t, m, vx.next-1, v.typ(m.Type)); err != nil {
			return err
		}
	}
	for i := vx.next; i < t.Vlen(); i++ {
		m := t.Member(i)
		mt := v.typ(m.Type)
		if mt == nil || noSize(mt) || sourceOnly(mt.Kind()) {
			e := v.entryErr(FormMember, id, t, i, "Invalid member", "member '%s' type ID %d is %s, which cannot be a member", v.strs.String(m.NameOff), m.Type, describeRef(mt))
			e.Resolve = true
			return e
		}
		if !v.final(mt) && !v.isResolved(m.Type) {
			vx.next = i + 1
			return v.push(mt, m.Type)
		}
		if err := v.checkMember(id, t, m, i, mt); err != nil {
			return err
		}
	}
	v.popResolved(0, 0)
	return nil
}

// resolveDatasec checks that every entry is a VAR with a sized type that
// fits the entry's size.
func (v *validator) resolveDatasec(vx *vertex, t Type) error {
	id := vx.id
	v.mode = modeUndecided
	for i := vx.next; i < t.Vlen(); i++ {
		typ, _, sz := t.SecInfo(i)
		vt := v.typ(typ)
		if vt.Kind() != KindVar {
			return v.vsiErr(id, t, i, "Not a VAR kind member", "entry %d refers to type ID %d, %s, not a VAR", i, typ, describeRef(vt))
		}
		if !v.final(vt) && !v.isResolved(typ) {
			vx.next = i + 1
			return v.push(vt, typ)
		}
		_, size, _, ok := v.sizeOf(vt[2])
		if !ok {
			return v.vsiErr(id, t, i, "Invalid type", "entry %d: VAR [%d] has no sized type", i, typ)
		}
		if sz < size {
			return v.vsiErr(id, t, i, "Invalid size", "entry %d size %d is smaller than VAR [%d]'s type size %d", i, sz, typ, size)
		}
	}
	v.popResolved(0, 0)
	return nil
}

// checkFunc checks that a FUNC refers to a FUNC_PROTO whose parameters are
// all named (a vararg marker excepted).
func (v *validator) checkFunc(id TypeID, t Type) error {
	p := v.typ(t[2])
	if p.Kind() != KindFuncProto {
		return v.errorf(id, t, "Invalid type_id", "refers to type ID %d, %s, not a FUNC_PROTO", t[2], describeRef(p))
	}
	for i := range p.Vlen() {
		if name, typ := p.Param(i); name == 0 && typ != 0 {
			return v.errorf(id, t, argErr(i+1), "parameter %d of FUNC_PROTO [%d] has no name", i+1, t[2])
		}
	}
	return nil
}

// resolveDeclTag checks a DECL_TAG's target (FUNC, STRUCT/UNION, VAR or
// TYPEDEF) and component index (a member of a STRUCT/UNION or a parameter
// of a FUNC's prototype; -1 for the whole).
func (v *validator) resolveDeclTag(id TypeID, t Type) error {
	next := t[2]
	nt := v.typ(next)
	nk := nt.Kind()
	if nt == nil || !(nk == KindFunc || isStructKind(nk) || nk == KindVar || nk == KindTypedef) {
		return v.errorf(id, t, "Invalid type_id", "tags type ID %d, %s; only FUNC, STRUCT, UNION, VAR and TYPEDEF can be tagged", next, describeRef(nt))
	}
	if !v.final(nt) && !v.isResolved(next) {
		return v.push(nt, next)
	}
	if c := t.ComponentIdx(); c != -1 {
		var vlen int
		switch {
		case nk == KindVar || nk == KindTypedef:
			return v.errorf(id, t, "Invalid component_idx", "component index %d on a %s, which has no components", c, nk)
		case isStructKind(nk):
			vlen = nt.Vlen()
		default:
			if p := v.typ(nt[2]); p != nil {
				vlen = p.Vlen()
			}
		}
		if uint32(c) >= uint32(vlen) {
			return v.errorf(id, t, "Invalid component_idx", "component index %d is beyond the %d members or parameters of [%d]", c, vlen, next)
		}
	}
	v.popResolved(next, 0)
	return nil
}

// resolveValid is the kernel's final sanity check of a finished walk.
func (v *validator) resolveValid(t Type, id TypeID) bool {
	if !v.isResolved(id) {
		return false
	}
	switch k := t.Kind(); {
	case isStructKind(k) || k == KindDatasec:
		return v.resID[id] == 0 && v.resSize[id] == 0
	case k == KindDeclTag || k == KindFunc:
		return v.resID[id] != 0 && v.resSize[id] == 0
	case isModifier(k) || k == KindPtr || k == KindVar:
		rk := v.typ(v.resID[id]).Kind()
		return v.typ(v.resID[id]) != nil && !isModifier(rk) && rk != KindVar && rk != KindDatasec
	case k == KindArray:
		elem, _, nelems := t.Array()
		_, esize, et, ok := v.sizeOf(elem)
		return ok && !isModifier(et.Kind()) && nelems*esize == v.resSize[id]
	}
	return false
}

// checkFuncProto checks a FUNC_PROTO's return type (void or sized) and
// parameters (sized, named with identifiers or anonymous; void only as the
// last, anonymous, vararg marker), resolving them first if needed.
func (v *validator) checkFuncProto(id TypeID, t Type) error {
	if ret := t[2]; ret != 0 {
		rt := v.typ(ret)
		if rt == nil || sourceOnly(rt.Kind()) {
			return v.errorf(id, t, "Invalid return type", "return type ID %d is %s", ret, describeRef(rt))
		}
		if needsResolve(rt.Kind()) && !v.isResolved(ret) {
			if err := v.resolve(rt, ret); err != nil {
				return err // errSkip too: nothing more to say about t
			}
		}
		if _, _, _, ok := v.sizeOf(ret); !ok {
			return v.errorf(id, t, "Invalid return type", "return type ID %d (%s) has no size", ret, describeRef(rt))
		}
	}
	n := t.Vlen()
	if n == 0 {
		return nil
	}
	if name, typ := t.Param(n - 1); typ == 0 {
		if name != 0 {
			return v.errorf(id, t, argErr(n), "parameter %d: the vararg marker (type void) must have no name", n)
		}
		n--
	}
	for i := range n {
		name, typ := t.Param(i)
		at := v.typ(typ)
		if at == nil || sourceOnly(at.Kind()) {
			return v.errorf(id, t, argErr(i+1), "parameter %d type ID %d is %s", i+1, typ, describeRef(at))
		}
		if name != 0 && (!v.nameOffValid(name) || !v.validIdent(name)) {
			return v.errorf(id, t, argErr(i+1), "parameter %d name is not a valid C identifier", i+1)
		}
		if needsResolve(at.Kind()) && !v.isResolved(typ) {
			if err := v.resolve(at, typ); err != nil {
				return err
			}
		}
		if _, _, _, ok := v.sizeOf(typ); !ok {
			return v.errorf(id, t, argErr(i+1), "parameter %d type ID %d (%s) has no size (void is only allowed as the last, vararg, parameter)", i+1, typ, describeRef(at))
		}
	}
	return nil
}

// runChains is the kernel's last pass over modifiers: following any chain
// of TYPEDEF/VOLATILE/CONST/RESTRICT/TYPE_TAG takes at most 32 steps, and
// TYPE_TAGs come only at the start of a chain. Chains already walked from a
// lower ID are not walked again, so the pass is linear. With v.own it
// starts at the Spec's first own type, and base types count as walked.
// Faults go to add as in runMetas.
func (v *validator) runChains(add func(error) bool) bool {
	start := TypeID(1)
	if v.own {
		start = v.s.firstID
	}
	good := start - 1
	for id := start; id <= v.n; id++ {
		t := v.typ(id)
		if !isModifier(t.Kind()) {
			continue
		}
		if err := v.checkChain(id, t, good); err != nil && !add(err) {
			return false
		}
		good = id
	}
	return true
}

// checkChain walks the modifier chain from type id; types up to good have
// been walked before.
func (v *validator) checkChain(id TypeID, t Type, good TypeID) error {
	inTags := t.Kind() == KindTypeTag
	cur := id
	for steps := 0; isModifier(t.Kind()); steps++ {
		if steps == maxModifierChain {
			e := v.formErrorf(FormBlob, id, v.typ(id), "Max chain length or cycle detected", "modifier chain longer than %d types", maxModifierChain)
			e.Errno = errnoELOOP
			return e
		}
		if t.Kind() == KindTypeTag {
			if !inTags {
				return v.formErrorf(FormBlob, id, v.typ(id), "Type tags don't precede modifiers", "TYPE_TAG [%d] follows a non-tag modifier in the chain", cur)
			}
		} else {
			inTags = false
		}
		if cur <= good {
			break
		}
		cur = t[2]
		t = v.typ(cur)
		if t == nil {
			return v.formErrorf(FormSilent, id, v.typ(id), "", "modifier chain reaches type ID %d, which does not exist", cur)
		}
	}
	return nil
}
