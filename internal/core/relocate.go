package core

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
)

// Match is a candidate whose spec matched a relocation's local spec.
type Match struct {
	Candidate
	Spec  *Spec
	Value Value
}

// Result is what one relocation makes of the targets.
type Result struct {
	Reloc btfext.Reloc
	Local *Spec
	// Candidates is how many candidates were tried (after earlier
	// relocations of the same local type narrowed the list, as libbpf
	// narrows it).
	Candidates int
	// Matches are the candidates that matched, in candidate order, up to
	// the one that decided an Ambiguous or Failed outcome.
	Matches []Match
	Outcome Outcome
	// Orig and New are the local and the target value (New is the
	// no-target value when nothing matched).
	Orig, New Value
	// FailMemszAdjust is libbpf's flag that a load or store of the field
	// cannot be resized from the local to the target size (both differ and
	// they are not both pointers or both unsigned INTs).
	FailMemszAdjust bool
	// Err says why the outcome is Ambiguous or Failed.
	Err error
	// Partial is, when matching a candidate failed (Failed without a
	// match of that candidate), its spec as far as matching got.
	Partial *Spec
	// Searched are the targets whose types the candidate search went
	// through: the first alone when it has a candidate, else all.
	Searched []*Target
}

// Target returns the spec the relocation resolved to (the first match,
// which libbpf uses), or nil.
func (r *Result) Target() *Spec {
	if r.Outcome != Resolved || len(r.Matches) == 0 {
		return nil
	}
	return r.Matches[0].Spec
}

// Relocator computes the CO-RE relocations of one BPF object against
// targets, as libbpf's bpf_core_calc_relo_insn does for each in turn. It
// keeps libbpf's per-object candidate cache: the candidates of a local type
// are searched once, and each relocation that matches some of them
// narrows the list to those for the relocations after it, so the order of
// the calls matters as it does in libbpf (the order of .BTF.ext).
//
// A Relocator does no I/O and is not safe for concurrent use; Relocators
// of different objects may share targets.
type Relocator struct {
	local   *Types
	targets []*Target
	cands   map[btf.TypeID]candList

	// Log, when set, receives libbpf's debug and warning lines for each
	// relocation (without libbpf's "libbpf: " prefix and the newline),
	// worded and ordered as libbpf prints them, for comparison with
	// "bpftool -d gen min_core_btf".
	Log func(line string)
}

// NewRelocator returns a Relocator of an object whose BTF is local, with
// candidates searched in targets: the first alone, and only when it has no
// candidate for a type, the others together (a kernel's vmlinux, then its
// modules).
func NewRelocator(local *Types, targets []*Target) *Relocator {
	return &Relocator{local: local, targets: targets, cands: map[btf.TypeID]candList{}}
}

// candList is a local type's entry of the candidate cache: its candidates
// (narrowed by the relocations so far) and the targets searched for them.
type candList struct {
	cands    []Candidate
	searched []*Target
}

// Relocate computes relocation r, the idx-th of the program (section)
// prog, which name it in log lines. A relocation the object itself gets
// wrong (an access string that does not parse or fit the local types, a
// type ID or string outside the object's BTF, an anonymous type, an
// unknown kind, a local field no load can read) is a *ParseError, and
// libbpf rejects the object whatever the target; anything the target
// decides is in the Result.
func (rl *Relocator) Relocate(prog string, idx int, r btfext.Reloc) (*Result, error) {
	lt := rl.local
	local, ok := lt.typ(r.TypeID)
	if !ok || r.TypeID == 0 {
		return nil, parseErr("type [%d] is not in the object's BTF", r.TypeID)
	}
	lname, ok := lt.name(local.NameOff())
	if !ok {
		return nil, parseErr("type [%d] has an invalid name offset %#x", r.TypeID, local.NameOff())
	}
	// bpftool searches the candidates before it parses the access.
	cl, cached := rl.cands[r.TypeID]
	cands := cl.cands
	if !cached && r.Kind != btfext.TypeIDLocal {
		cands, cl.searched = findCandidates(rl.targets, local, lname)
		cl.cands = cands
		rl.cands[r.TypeID] = cl
		if rl.Log != nil {
			for _, c := range cands {
				t := c.Target.Types.Spec.Type(c.ID)
				rl.logf("CO-RE relocating [%d] %s %s: found target candidate [%d] %s %s in [%s]",
					r.TypeID, kindName(local), lname, c.ID, kindName(t), c.Target.Types.nameOf(t), c.Target.Name)
			}
		}
	}
	ls, err := ParseSpec(lt, r)
	if err != nil {
		if rl.Log != nil {
			str, ok := lt.name(r.AccessStrOff)
			if !ok {
				str = "<?>"
			}
			rl.logf("prog '%s': relo #%d: parsing [%d] %s %s + %s failed: %v", prog, idx, r.TypeID, kindName(local), anonName(lname), str, err)
		}
		return nil, err
	}
	rl.logf("prog '%s': relo #%d: %s", prog, idx, ls)
	res := &Result{Reloc: r, Local: ls}
	if r.Kind == btfext.TypeIDLocal {
		res.Outcome = LocalOnly
		res.Orig = Value{Val: uint64(ls.Root)}
		res.New = res.Orig
		return res, nil
	}
	if lname == "" {
		return nil, parseErr("%s relocation on anonymous type [%d]: libbpf searches no candidates for anonymous types", r.Kind, r.TypeID)
	}
	if res.Orig, err = sideValue(r.Kind, ls); err != nil {
		return nil, parseErr("%s relocation on %s (local side): %v", r.Kind, ls, err)
	}
	res.Candidates = len(cands)
	res.Searched = cl.searched
	var kept []Candidate
	for i, c := range cands {
		spec, ok, err := matchSpec(ls, &c.Target.Types, c.ID)
		if err != nil {
			rl.logf("prog '%s': relo #%d: error matching candidate #%d %s: %v", prog, idx, i, spec, err)
			res.Outcome, res.Err = Failed, fmt.Errorf("matching candidate #%d [%d] in %s: %w", i, c.ID, c.Target.Name, err)
			res.Partial = spec
			return res, nil
		}
		if !ok {
			rl.logf("prog '%s': relo #%d: non-matching candidate #%d %s", prog, idx, i, spec)
			continue
		}
		rl.logf("prog '%s': relo #%d: matching candidate #%d %s", prog, idx, i, spec)
		v, err := sideValue(r.Kind, spec)
		res.Matches = append(res.Matches, Match{Candidate: c, Spec: spec, Value: v})
		if err != nil {
			res.Outcome, res.Err = Failed, fmt.Errorf("candidate [%d] %s in %s: %w", c.ID, spec, c.Target.Name, err)
			return res, nil
		}
		if len(kept) == 0 {
			res.New = v
		} else if first := res.Matches[0].Spec; spec.BitOffset != first.BitOffset {
			rl.logf("prog '%s': relo #%d: field offset ambiguity: %d != %d", prog, idx, spec.BitOffset, first.BitOffset)
			res.Outcome, res.Err = Ambiguous, fmt.Errorf("field offset ambiguity: %d != %d (candidates [%d] and [%d] in %s)",
				spec.BitOffset, first.BitOffset, res.Matches[0].ID, c.ID, c.Target.Name)
			return res, nil
		} else if v.Poison != res.New.Poison || v.Val != res.New.Val {
			rl.logf("prog '%s': relo #%d: relocation decision ambiguity: %s != %s", prog, idx, v.describe(), res.New.describe())
			res.Outcome, res.Err = Ambiguous, fmt.Errorf("relocation decision ambiguity: %s != %s (candidates [%d] and [%d] in %s)",
				v.describe(), res.New.describe(), res.Matches[0].ID, c.ID, c.Target.Name)
			return res, nil
		}
		kept = append(kept, c)
	}
	switch {
	case len(kept) > 0:
		rl.cands[r.TypeID] = candList{kept, cl.searched}
		res.Outcome = Resolved
		res.FailMemszAdjust = failMemszAdjust(r.Kind, res.Orig, res.New, lt, &res.Matches[0].Target.Types)
	default:
		rl.logf("prog '%s': relo #%d: no matching targets found", prog, idx)
		res.Outcome = NoMatch
		if len(cands) == 0 {
			res.Outcome = NoCandidate
		}
		if res.New, err = sideValue(r.Kind, nil); err != nil {
			return nil, parseErr("%s relocation: %v", r.Kind, err)
		}
	}
	return res, nil
}

// logf sends a line to Log, if set.
func (rl *Relocator) logf(format string, args ...any) {
	if rl.Log != nil {
		rl.Log(fmt.Sprintf(format, args...))
	}
}

// anonName is libbpf's "<anon>" for an empty name.
func anonName(n string) string {
	if n == "" {
		return "<anon>"
	}
	return n
}

// describe formats a value as libbpf's ambiguity message does.
func (v Value) describe() string {
	if v.Poison {
		return fmt.Sprintf("failure %d", v.Val)
	}
	return fmt.Sprintf("success %d", v.Val)
}

// failMemszAdjust is libbpf's check of a field offset relocation whose
// local and target fields differ in size: a load or store may only be
// resized between two pointers or two unsigned INTs.
func failMemszAdjust(kind btfext.RelocKind, orig, new Value, lt, tt *Types) bool {
	if !kind.IsField() || orig.Size == new.Size {
		return false
	}
	ot, _ := lt.typ(orig.TypeID)
	nt, _ := tt.typ(new.TypeID)
	if ot.Kind() == btf.KindPtr && nt.Kind() == btf.KindPtr {
		return false
	}
	if ot.Kind() == btf.KindInt && nt.Kind() == btf.KindInt && !intIsSignedOnly(ot) && !intIsSignedOnly(nt) {
		return false
	}
	return true
}

// intIsSignedOnly reports whether an INT's encoding is exactly "signed",
// libbpf's test for a load it must not resize (a signed char or bool is
// not caught by it, as in libbpf).
func intIsSignedOnly(t btf.Type) bool {
	enc, _, _ := t.IntData()
	return enc == btf.IntSigned
}
