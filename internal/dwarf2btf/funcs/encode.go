package funcs

import (
	"fmt"
	"sync"

	"github.com/gobtf/gobtf/internal/btf"
)

// Encode appends the FUNCs of all units to dst, which holds the joined
// types of the units (unit k's type IDs shifted by shift[k]). After each
// name it calls progress, when set, with the number of names done: the
// types appended before a call are final. It follows pahole's
// btf_encoder__add_saved_funcs:
//
//   - candidates are ordered by name (stably, so units keep their order and
//     a unit its function order) and those of one name are merged: each
//     reason to skip found in one (unexpected register, reordered or
//     uncertainly placed parameters) applies to all, and prototypes that
//     do not match by types__match make the name inconsistent;
//   - with true_signature, the first candidate of the name that sits at a
//     '.'-suffixed symbol and has trustworthy registers is encoded under
//     that symbol's full name, and nothing else of the name;
//   - otherwise the name is skipped for an unexpected register, an
//     inconsistent prototype (only with consistent_func), an uncertain
//     parameter location, reordered parameters, an ambiguous address, or
//     optimized-out parameters of a canonical candidate whose calling
//     convention changed (a clang DW_CC_nocall or a .isra/.constprop
//     symbol) unless true_signature;
//   - else one FUNC is added for the canonical candidate: the first one at
//     a symbol's address whose optimized parameters do not disqualify it,
//     else the first at a symbol's address, else the first of all. Its
//     FUNC_PROTO comes first, then the FUNC (static linkage, as pahole
//     writes every function), then its DECL_TAGs; kfuncs get the bpf_kfunc
//     (and bpf_fastcall) DECL_TAG after those with decl_tag_kfuncs.
func Encode(dst *btf.Spec, perCU [][]Candidate, shift []btf.TypeID, ef *Table, opts *Options, progress func(names int)) error {
	if len(perCU) != len(shift) {
		return fmt.Errorf("functions: %d units but %d shifts", len(perCU), len(shift))
	}
	total := 0
	for _, cs := range perCU {
		total += len(cs)
	}
	if total == 0 {
		return nil
	}
	// ELF function indexes follow name order, so ordering by index orders
	// by name. The indexes are dense and below len(ef.funcs): a counting
	// sort places the candidates, stably, in one pass.
	start := make([]int, len(ef.funcs)+1)
	for _, cs := range perCU {
		for i := range cs {
			start[cs[i].elf+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	states := make([]funcState, total)
	for k, cs := range perCU {
		for i := range cs {
			at := &start[cs[i].elf]
			states[*at] = funcState{c: &cs[i], shift: shift[k], flags: cs[i].flags}
			*at++
		}
	}
	e := funcEncoder{dst: dst, elf: ef, opts: opts, log: opts.Log}
	e.combineAll(states, max(1, opts.Jobs))
	names := 0
	for i, j := 0, 0; i < len(states); i = j {
		j = i + 1
		for j < len(states) && states[j].c.elf == states[i].c.elf {
			j++
		}
		if e.log != nil {
			e.logMismatch(states, i)
		}
		if err := e.encodeName(states[i:j]); err != nil {
			return err
		}
		if names++; progress != nil {
			progress(names)
		}
	}
	return nil
}

// combineAll merges the candidates of each name (states, in name order)
// into the first of the name, on up to jobs goroutines. The names are
// independent of each other and the merging only reads dst, to which
// nothing is appended meanwhile; it runs at the end of the conversion,
// while nothing else does.
func (e *funcEncoder) combineAll(states []funcState, jobs int) {
	// Pieces of about equal size, each cut at the start of a name.
	var cuts []int
	for k := 0; k <= jobs; k++ {
		i := k * len(states) / jobs
		for i > 0 && i < len(states) && states[i].c.elf == states[i-1].c.elf {
			i++
		}
		cuts = append(cuts, i)
	}
	// Each piece records its prototype mismatches apart, in name order,
	// so that the pieces' records, concatenated, are in name order too.
	var found [][]protoMismatch
	if e.log != nil {
		found = make([][]protoMismatch, jobs)
	}
	var wg sync.WaitGroup
	for k := 0; k < jobs; k++ {
		lo, hi := cuts[k], cuts[k+1]
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, j := lo, lo; i < hi; i = j {
				j = i + 1
				for j < hi && states[j].c.elf == states[i].c.elf {
					if m := e.combine(&states[i], &states[j]); m.kind != matched && found != nil {
						m.a, m.b = int32(i), int32(j)
						found[k] = append(found[k], m)
					}
					j++
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range found {
		e.mismatches = append(e.mismatches, f...)
	}
}

// funcState is a candidate during encoding, with its unit's ID shift and
// the flags it has after merging.
type funcState struct {
	c     *Candidate
	shift btf.TypeID
	flags funcFlags
}

func (s *funcState) id(local btf.TypeID) btf.TypeID {
	if local == 0 {
		return 0
	}
	return local + s.shift
}

type funcEncoder struct {
	dst  *btf.Spec
	elf  *Table
	opts *Options
	w    []uint32

	// log, Options.Log, is told of each function left out; mismatches are
	// then the prototype mismatches combineAll found, in name order, and
	// nextMismatch the first not yet logged.
	log          Log
	mismatches   []protoMismatch
	nextMismatch int
}

// combine merges b into a, the first candidate of the name, as pahole's
// saved_functions_combine: b leaves with everything known so far. It
// returns the mismatch that made the name inconsistent, if it compared
// the prototypes and they differ.
func (e *funcEncoder) combine(a, b *funcState) protoMismatch {
	const shared = flagUnexpectedReg | flagInconsistent | flagUncertainLoc | flagReordered
	f := (a.flags | b.flags) & shared
	var m protoMismatch
	if f&(flagUnexpectedReg|flagInconsistent|flagReordered) == 0 {
		if m = e.protosMatch(a, b); m.kind != matched {
			f |= flagInconsistent
		}
	}
	a.flags = a.flags&^shared | f
	b.flags = b.flags&^shared | f
	return m
}

// protoMismatch says how two prototypes of one name differ: kind is the
// first difference found (matched if none) and param, for a parameter
// type, the parameter's index. a and b are the two candidates' indexes in
// the name-ordered states, set when the mismatch is recorded for -V.
type protoMismatch struct {
	kind  mismatchKind
	param int32
	a, b  int32
}

type mismatchKind uint8

const (
	matched mismatchKind = iota
	countMismatch
	returnMismatch
	paramMismatch
)

// protosMatch is pahole's funcs__match: same parameter count, and return
// and parameter types matching by typesMatch, checked in this order.
func (e *funcEncoder) protosMatch(a, b *funcState) protoMismatch {
	pa, pb := a.c.params, b.c.params
	if len(pa) != len(pb) {
		return protoMismatch{kind: countMismatch}
	}
	if !typesMatch(e.dst, a.id(a.c.ret), b.id(b.c.ret)) {
		return protoMismatch{kind: returnMismatch}
	}
	for i := range pa {
		if !typesMatch(e.dst, a.id(pa[i].typ), b.id(pb[i].typ)) {
			return protoMismatch{kind: paramMismatch, param: int32(i)}
		}
	}
	return protoMismatch{}
}

// typesMatch is pahole's loose type comparison across units: names decide
// for named types (a FWD matching its struct or union), references are
// followed, a CONST on one side only is looked through, arrays must have
// the same length, and function prototypes match member-wise.
func typesMatch(s *btf.Spec, a, b btf.TypeID) bool {
	for hops := 0; hops < 1024; hops++ {
		if a == b {
			return true
		}
		if a == 0 || b == 0 {
			return false
		}
		ta, tb := s.Type(a), s.Type(b)
		if ta == nil || tb == nil {
			return false
		}
		ka, kb := fwdKind(ta), fwdKind(tb)
		if ka != kb {
			switch {
			case ka == btf.KindConst:
				a = ta.Ref()
				continue
			case kb == btf.KindConst:
				b = tb.Ref()
				continue
			}
			return false
		}
		switch ka {
		case btf.KindInt:
			return ta.Size() == tb.Size() && ta[3] == tb[3] && s.Name(ta) == s.Name(tb)
		case btf.KindFloat:
			return ta.Size() == tb.Size() && s.Name(ta) == s.Name(tb)
		case btf.KindTypedef, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
			return s.Name(ta) == s.Name(tb)
		case btf.KindPtr, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
			a, b = ta.Ref(), tb.Ref()
		case btf.KindArray:
			ea, _, na := ta.Array()
			eb, _, nb := tb.Array()
			if na != nb {
				return false
			}
			a, b = ea, eb
		case btf.KindFuncProto:
			if ta.Vlen() != tb.Vlen() || !typesMatch(s, ta.Ref(), tb.Ref()) {
				return false
			}
			for i := 0; i < ta.Vlen(); i++ {
				_, pa := ta.Param(i)
				_, pb := tb.Param(i)
				if !typesMatch(s, pa, pb) {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
	return false
}

// fwdKind is a type's kind with a FWD standing for the kind it declares.
func fwdKind(t btf.Type) btf.Kind {
	if t.Kind() == btf.KindFwd {
		if t.KindFlag() {
			return btf.KindUnion
		}
		return btf.KindStruct
	}
	return t.Kind()
}

// skipOptimized reports a candidate whose optimized-out parameters changed
// its calling convention, which BTF cannot describe without true_signature.
func (e *funcEncoder) skipOptimized(s *funcState) bool {
	return !e.opts.TrueSignature && s.c.flags&flagOptimizedParms != 0 &&
		s.c.flags&(flagSignatureChanged|flagOptimizedSymbol) != 0
}

// encodeName decides and encodes the merged candidates of one name.
func (e *funcEncoder) encodeName(group []funcState) error {
	ef := &e.elf.funcs[group[0].c.elf]
	if e.opts.TrueSignature {
		for k := range group {
			s := &group[k]
			if s.c.sym < 0 || s.flags&(flagUnexpectedReg|flagUncertainLoc) != 0 {
				continue
			}
			_, err := e.addFunc(s, e.elf.syms[s.c.sym].name, s.id(s.c.ret), nil)
			return err
		}
	}
	canon := &group[0]
	if len(group) > 1 {
		canon = e.canonical(group, ef)
	}
	if r := e.skipReason(&group[0], canon, ef); r != Encoded {
		if e.log != nil {
			e.log.Skipped(ef.name, Skip{Reason: r})
		}
		return nil
	}
	if ef.kfunc {
		return e.addKfunc(canon, ef)
	}
	_, err := e.addFunc(canon, ef.name, canon.id(canon.c.ret), nil)
	return err
}

// skipReason decides whether the name of first, its first candidate
// after merging, is left out, and returns why (Encoded to encode it). When
// several reasons hold, the one pahole reports wins: they are checked from
// the most to the least important.
func (e *funcEncoder) skipReason(first, canon *funcState, ef *elfFunc) SkipReason {
	f := first.flags
	switch {
	case ef.ambiguous:
		return AmbiguousAddress
	case e.skipOptimized(canon):
		return OptimizedParameters
	case f&flagReordered != 0:
		return ReorderedParameters
	case f&flagUncertainLoc != 0:
		return UncertainLocation
	case e.opts.ConsistentFunc && f&flagInconsistent != 0:
		return InconsistentPrototype
	case f&flagUnexpectedReg != 0:
		return UnexpectedRegister
	}
	return Encoded
}

// canonical picks the candidate to encode among those of one name.
func (e *funcEncoder) canonical(group []funcState, ef *elfFunc) *funcState {
	var first *funcState
	for k := range group {
		s := &group[k]
		for _, sym := range e.elf.symsOf(ef) {
			if s.c.addr != sym.addr {
				continue
			}
			if first == nil {
				first = s
			}
			if !e.skipOptimized(s) {
				return s
			}
		}
	}
	if first != nil {
		return first
	}
	return &group[0]
}

// addFunc appends s's FUNC_PROTO, its FUNC named name and its DECL_TAGs,
// and returns the FUNC's ID. ret is the return type to use; argTypes, when
// not nil, replaces the parameter types.
func (e *funcEncoder) addFunc(s *funcState, name string, ret btf.TypeID, argTypes []btf.TypeID) (btf.TypeID, error) {
	ps := s.c.params
	if len(ps) > btf.MaxEncodedVlen {
		return 0, fmt.Errorf("function %s: %d parameters, more than BTF's limit of %d", name, len(ps), btf.MaxEncodedVlen)
	}
	w := append(e.w[:0], 0, btf.Info(btf.KindFuncProto, false, len(ps)), ret)
	for i, p := range ps {
		typ := s.id(p.typ)
		if argTypes != nil {
			typ = argTypes[i]
		}
		w = append(w, e.strOff(s.c, p.name), typ)
	}
	e.w = w
	proto, err := e.dst.Append(w)
	if err != nil {
		return 0, fmt.Errorf("function %s: %w", name, err)
	}
	// name is the ELF symbol's, which is the DWARF name the candidate was
	// found by unless it is a true_signature clone's suffixed name.
	var nameOff uint32
	if name == s.c.str(s.c.name) {
		nameOff = e.strOff(s.c, s.c.name)
	} else {
		nameOff = e.dst.AddString(name)
	}
	fn := e.dst.MustAppend(nameOff, btf.Info(btf.KindFunc, false, int(btf.LinkageStatic)), proto)
	for _, t := range s.c.tags {
		e.dst.MustAppend(e.dst.AddString(s.c.str(t.value)), btf.Info(btf.KindDeclTag, false, 0), fn, uint32(t.component))
	}
	return fn, nil
}

// strOff returns the output's offset of r, a string of candidate c: its
// offset in the shared .debug_str part when it has one (see strRef),
// else the offset AddString gives it.
func (e *funcEncoder) strOff(c *Candidate, r strRef) uint32 {
	if r.shared != 0 {
		return r.shared
	}
	return e.dst.AddString(c.str(r))
}

// addKfunc encodes a kfunc: with decl_tag_kfuncs and attributes, pointers
// its flags put in the BPF arena get an address_space(1) type attribute
// first; after the FUNC come the bpf_kfunc and bpf_fastcall DECL_TAGs (with
// decl_tag_kfuncs and decl_tag).
func (e *funcEncoder) addKfunc(s *funcState, ef *elfFunc) error {
	feats := e.opts
	ret := s.id(s.c.ret)
	var args []btf.TypeID
	if feats.DeclTagKfuncs && feats.Attributes && ef.kfuncFlags&(kfArenaRet|kfArenaArg1|kfArenaArg2) != 0 {
		var err error
		if ef.kfuncFlags&kfArenaRet != 0 {
			if ret, err = e.arenaPtr(ret); err != nil {
				return fmt.Errorf("kfunc %s return type: %w", ef.name, err)
			}
		}
		args = make([]btf.TypeID, len(s.c.params))
		for i, p := range s.c.params {
			args[i] = s.id(p.typ)
		}
		for i, bit := range [2]uint32{kfArenaArg1, kfArenaArg2} {
			if ef.kfuncFlags&bit == 0 {
				continue
			}
			if i >= len(args) {
				return fmt.Errorf("kfunc %s: arena argument %d of %d", ef.name, i+1, len(args))
			}
			if args[i], err = e.arenaPtr(args[i]); err != nil {
				return fmt.Errorf("kfunc %s argument %d: %w", ef.name, i+1, err)
			}
		}
	}
	fn, err := e.addFunc(s, ef.name, ret, args)
	if err != nil {
		return err
	}
	if feats.DeclTagKfuncs && feats.DeclTag {
		e.dst.AddDeclTag(kfuncTag, fn, -1, false)
		if ef.kfuncFlags&kfFastcall != 0 {
			e.dst.AddDeclTag(fastcallTag, fn, -1, false)
		}
	}
	return nil
}

// arenaPtr returns a new pointer to id's target tagged address_space(1);
// id must be a pointer.
func (e *funcEncoder) arenaPtr(id btf.TypeID) (btf.TypeID, error) {
	t := e.dst.Type(id)
	if t == nil || t.Kind() != btf.KindPtr {
		return 0, fmt.Errorf("type %d is not a pointer", id)
	}
	tag := e.dst.AddTypeTag(arenaAttr, t.Ref(), true)
	return e.dst.AddRef(btf.KindPtr, "", tag), nil
}
