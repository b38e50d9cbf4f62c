package funcs

import (
	"math/bits"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// analyze is step 4 for subprogram fi: pahole's
// function__analyze_parameter_locations followed by the flag summary of
// cu__resolve_func_ret_types_optimized.
//
// Parameters are matched with the ABI's argument registers in order; a
// parameter wider than a register takes as many register slots as its size
// needs (when the ABI passes such aggregates in registers), and one passed in
// memory takes one slot, as pahole counts. For gcc, or a clang function whose
// signature changed (DW_CC_nocall):
//
//   - a parameter with a location but no known register is optimized out,
//     unless registers are exhausted;
//   - a known register other than the expected one is an unexpected
//     register;
//   - a parameter without location but with a constant value (gcc only) is
//     optimized out.
//
// For clang with an unchanged signature, each parameter's register only has
// to fall inside the slots it is expected to occupy; parameters passed in
// memory take no slot.
//
// true_signature adds the rules for rewriting signatures: constant and
// missing parameters are optimized out (and take no register), stack
// locations are unexpected for register-sized parameters, and a parameter
// with no location keeps its slots when the next parameter sits where it
// would be expected, and a struct of which a single member arrives in a
// register takes one slot and is encoded as that member (trueSigMember).
//
// Afterwards the function has optimized parameters when any parameter was
// optimized out or has no location at all, and an unexpected register when
// any parameter has one, unless some parameter is a struct (through
// typedefs and const): structs may be spread over registers in ways the
// slot count does not model.
func (s *Collector) analyze(u *unit, abi *abiRegs, fi int32) {
	sp := &s.subs[fi]
	if u.producerClang && !sp.inlined {
		nocall := sp.ccNocall
		if sp.hasOrigin {
			nocall = false
			if j := s.findSub(sp.origin); j >= 0 {
				nocall = s.subs[j].ccNocall
			}
		}
		if nocall {
			sp.flags |= flagSignatureChanged
		}
	}
	params := s.params[sp.first : sp.first+sp.n]
	changed := sp.flags&flagSignatureChanged != 0
	trueSig := u.opts.TrueSignature && changed
	addrSize := u.addrSize()
	slotsOf := func(p *fparam) int {
		if !abi.twoRegs || p.typeSize <= addrSize {
			return 1
		}
		return max((p.typeSize+addrSize-1)/addrSize, 1)
	}
	// nextInPlace reports whether the parameter after k arrives in the
	// register expected after k's slots.
	nextInPlace := func(k, reg, slots int) bool {
		if k+1 >= len(params) || params[k+1].loc.reg == regUnknown {
			return false
		}
		next := reg + slots
		return next < abi.n && params[k+1].loc.reg == abi.regs[next]
	}
	if u.producerClang && !changed {
		reg := 0
		for k := range params {
			p := &params[k]
			slots := slotsOf(p)
			if p.inMemory {
				continue
			}
			if reg >= abi.n {
				break
			}
			if p.loc.reg != regUnknown {
				in := false
				for i := 0; i < slots && reg+i < abi.n; i++ {
					if p.loc.reg == abi.regs[reg+i] {
						in = true
						break
					}
				}
				if !in {
					p.unexpected = true
				}
			}
			reg += slots
		}
	} else {
		reg := 0
		for k := range params {
			p := &params[k]
			avail := reg < abi.n
			slots := slotsOf(p)
			expected := int16(-1)
			if avail {
				expected = abi.regs[reg]
			}
			regSlots := slots
			if p.inMemory {
				regSlots = 1
			}
			consumes := true
			switch {
			case p.hasLoc:
				switch {
				case trueSig && p.loc.constVal:
					p.optimized, consumes = true, false
				case !avail:
					consumes = false
				case trueSig && p.loc.stack:
					if p.inMemory {
						consumes = false
					} else {
						p.unexpected = true
					}
				case p.loc.reg == regUnknown:
					if trueSig {
						p.unexpected = true
					} else {
						p.optimized = true
					}
				case expected >= 0 && expected != p.loc.reg:
					p.unexpected = true
				case trueSig && (p.loc.first != 0 || p.loc.second != 0):
					if p.loc.first != 0 && p.loc.second != 0 || nextInPlace(k, reg, slots) {
						reg += slots
						continue
					}
					if p.member, p.memberTyp, p.hasMember = trueSigMember(u, p); p.hasMember {
						reg++
						continue
					}
				}
			case p.hasConst && !u.producerClang:
				p.optimized = true
			case trueSig:
				if avail && nextInPlace(k, reg, slots) {
					reg += slots
					continue
				}
				p.optimized, consumes = true, false
			}
			if consumes {
				reg += regSlots
			}
		}
	}
	unexpected := false
	for k := range params {
		if params[k].optimized || !params[k].hasLoc {
			sp.flags |= flagOptimizedParms
		}
		if params[k].unexpected {
			unexpected = true
		}
	}
	if unexpected {
		anyStruct := false
		for k := range params {
			if isStructParam(u, u.typeID(params[k].typ)) {
				anyStruct = true
				break
			}
		}
		if !anyStruct {
			sp.flags |= flagUnexpectedReg
		}
	}
}

// trueSigMember finds, for an aggregate parameter of which a single member
// arrives in a register (one byte offset marked in one register's half of
// the location pieces), that member, which true_signature encodes in the
// parameter's place as "<parameter>__<member>" with the member's type, as
// pahole's parameter__finish_piece_decode and get_member_with_offset do:
// only through the parameter DIE's own DW_AT_type, past the types without a
// size (typedefs and qualifiers), to a struct (not a union) with a named
// member at exactly that offset.
func trueSigMember(u *unit, p *fparam) (string, btf.TypeID, bool) {
	first, second := p.loc.first, p.loc.second
	if !p.hasType || first != 0 && second != 0 || bits.OnesCount64(first) > 1 || bits.OnesCount64(second) > 1 {
		return "", 0, false
	}
	off := bits.TrailingZeros64(first)
	if first == 0 {
		off = u.addrSize() + bits.TrailingZeros64(second)
	}
	_, t := u.spec.SkipQualifiers(u.typeID(p.typ))
	if t.Kind() != btf.KindStruct {
		return "", 0, false
	}
	for k := 0; k < t.Vlen(); k++ {
		m := t.Member(k)
		if btf.MemberBitOffset(t.KindFlag(), m.Offset) == uint32(off)*8 {
			if n := u.spec.Strings().String(m.NameOff); n != "" {
				return n, m.Type, true
			}
			return "", 0, false
		}
	}
	return "", 0, false
}

// isStructParam reports a struct type, seen through typedefs and const (a
// forward-declared struct counts, as its DWARF is a structure type too).
func isStructParam(u *unit, id btf.TypeID) bool {
	for hops := 0; id != 0 && hops < 64; hops++ {
		t := u.spec.Type(id)
		if t == nil {
			return false
		}
		switch t.Kind() {
		case btf.KindStruct:
			return true
		case btf.KindFwd:
			return !t.KindFlag()
		case btf.KindConst, btf.KindTypedef:
			id = t.Ref()
		default:
			return false
		}
	}
	return false
}

// candidates is step 5: it saves the functions pahole would encode and
// copies what encoding needs into fresh per-unit arrays.
func (s *Collector) candidates(u *unit, abi *abiRegs) []Candidate {
	if u.elf == nil || len(u.elf.funcs) == 0 {
		return nil
	}
	var out []Candidate
	var params []funcParam
	var tags []funcTag
	type span struct{ p0, p1, t0, t1 int }
	var spans []span
	strs := s.outStrs[:0]
	intern := func(v string) strRef {
		r := strRef{off: uint32(len(strs)), n: uint32(len(v))}
		strs = append(strs, v...)
		return r
	}
	shared := u.spec.Strings().Base()
	if shared != nil && shared.ByOffset() {
		shared = nil // its offsets do not carry over to the output
	}
	// internName interns the string of a name attribute, with its offset
	// in the shared .debug_str part when it has one (strRef.shared). A
	// shared table is only made without --kabi_prefix, so kabiName
	// changes nothing then.
	internName := func(f *die.Field) strRef {
		r := intern(kabiName(u.opts, f.Str()))
		if shared != nil {
			off, ok := f.StrOffset()
			r.shared = shared.SectionOffset(off, ok)
		}
		return r
	}
	trueSig := u.opts.TrueSignature
	for _, fi := range s.order {
		sp := &s.subs[fi]
		if sp.decl {
			continue
		}
		ps := s.params[sp.first : sp.first+sp.n]
		allNamed := true
		for k := range ps {
			if !named(&ps[k].name) {
				allNamed = false
				break
			}
		}
		if !allNamed {
			continue
		}
		nameField := s.funcName(sp)
		if nameField == nil {
			continue
		}
		name := kabiName(u.opts, nameField.Str())
		ei := u.elf.find(name)
		if ei < 0 {
			if u.opts.Log != nil {
				s.notFound = append(s.notFound, name)
			}
			continue
		}
		ef := &u.elf.funcs[ei]
		c := Candidate{addr: sp.lowPC, elf: ei, sym: -1, flags: sp.flags}
		if uncertainArgLoc(u, abi, ps) {
			c.flags |= flagUncertainLoc
		}
		if c.addr != 0 {
			for k, sym := range u.elf.symsOf(ef) {
				if sym.addr != c.addr {
					continue
				}
				if trueSig && c.sym < 0 && strings.IndexByte(sym.name, '.') >= 0 {
					c.sym = ef.first + int32(k)
				}
				if hasOptimizedSuffix(sym.name) {
					c.flags |= flagOptimizedSymbol
				}
			}
		}
		ret := sp.typ
		if ret == 0 && sp.hasOrigin {
			if j := s.findSub(sp.origin); j >= 0 {
				ret = s.subs[j].typ
			}
		}
		if ret != 0 {
			c.ret = u.typeID(ret)
		}
		c.name = internName(nameField)
		sp0 := span{p0: len(params), t0: len(tags)}
		reordered := sp.flags&flagReordered != 0
		changed := sp.flags&flagSignatureChanged != 0
		for k := range ps {
			p := &ps[k]
			if reordered && (!p.hasLoc || p.optimized) {
				continue
			}
			if trueSig && changed && p.optimized {
				continue
			}
			fp := funcParam{name: internName(&p.name)}
			if p.typ != 0 {
				fp.typ = u.typeID(p.typ)
			}
			if trueSig && changed && p.hasMember {
				fp = funcParam{name: intern(kabiName(u.opts, p.name.Str()) + "__" + p.member), typ: p.memberTyp}
			}
			params = append(params, fp)
		}
		if sp.unspec {
			params = append(params, funcParam{})
		}
		if sp.nAnnots > 0 {
			for _, a := range s.annots {
				if a.fn == fi {
					tags = append(tags, funcTag{value: intern(a.value), component: a.component})
				}
			}
		}
		sp0.p1, sp0.t1 = len(params), len(tags)
		spans = append(spans, sp0)
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil
	}
	all := string(strs)
	s.outStrs = strs
	params = params[:len(params):len(params)]
	tags = tags[:len(tags):len(tags)]
	for i := range out {
		sp := spans[i]
		out[i].strs = all
		out[i].params = params[sp.p0:sp.p1:sp.p1]
		if sp.t1 > sp.t0 {
			out[i].tags = tags[sp.t0:sp.t1:sp.t1]
		}
	}
	return out
}

// uncertainArgLoc is pahole's ftype__has_uncertain_arg_loc: a named struct
// passed by value after the register parameters whose layout is packed sits
// on the stack at an offset pahole cannot vouch for.
func uncertainArgLoc(u *unit, abi *abiRegs, ps []fparam) bool {
	if len(ps) < abi.n {
		return false
	}
	for k := abi.n; k < len(ps); k++ {
		if ps[k].typ == 0 {
			continue
		}
		id := u.typeID(ps[k].typ)
		t := u.spec.Type(id)
		if t == nil || t.Kind() != btf.KindStruct || t.NameOff() == 0 {
			continue
		}
		if structPacked(u, t) {
			return true
		}
	}
	return false
}
