package core

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
)

// RelocReport is one relocation of an object and what it resolved to.
type RelocReport struct {
	Section string // the ELF section of the instruction
	Program string // the function holding the instruction, "" when unknown
	Index   int    // the relocation's index in its section (libbpf's "relo #N")
	*Result
}

// ObjectResult is what minimizing did with one object.
type ObjectResult struct {
	Object *btfext.Object
	Relocs []RelocReport // in .BTF.ext order
	// Marks holds what this object's relocations keep of the target,
	// the target's types that kept module types refer to included.
	Marks *Marks
	// ModuleMarks holds, per module of the Minimizer, what they keep of
	// the module's own types.
	ModuleMarks []*Marks
}

// marksOf returns the object's marks on target t, one of the Minimizer's.
func (o *ObjectResult) marksOf(t *Target) *Marks {
	for _, m := range o.ModuleMarks {
		if m.Target == t {
			return m
		}
	}
	return o.Marks
}

// settle adds to the object's marks on the target those its module marks
// set on the target's types (a module's base).
func (o *ObjectResult) settle() {
	for _, m := range o.ModuleMarks {
		o.Marks.mergeBelow(m, m.Target.Types.Spec.FirstID())
	}
}

// ObjectError is a relocation the object itself gets wrong (see
// ParseError): the object is unusable whatever the target.
type ObjectError struct {
	Object  string
	Section string // the ELF section of the relocation's instruction
	Index   int
	Offset  int // of the record in .BTF.ext
	Err     error
}

func (e *ObjectError) Error() string {
	return fmt.Sprintf("%s: section .BTF.ext: offset %#x: relocation #%d of section %s: %v", e.Object, e.Offset, e.Index, e.Section, e.Err)
}

func (e *ObjectError) Unwrap() error { return e.Err }

// Minimizer collects, object after object, what CO-RE relocations need
// of a kernel's BTF, and builds the minimized BTF from it: bpftool's gen
// min_core_btf, extended to kernel modules. Objects are relocated in turn,
// each with its own candidate cache, as bpftool and libbpf relocate them;
// candidates are searched as libbpf searches a running kernel: in the
// Target (the vmlinux) first, and in the Modules only for a local type of
// which the Target has no candidate.
//
// A Minimizer is not safe for concurrent use, but Minimizers of different
// targets may run on different goroutines and share the objects (which
// they only read) and targets.
type Minimizer struct {
	Target *Target
	// Modules are the kernel modules searched after Target, in order;
	// each is split BTF on Target's Spec.
	Modules []*Target
	Marks   *Marks
	// ModuleMarks are the marks on each module's own types.
	ModuleMarks []*Marks
	Objects     []*ObjectResult
	// Log, when set, receives libbpf's debug lines of every relocation
	// Add computes (see Relocator.Log).
	Log func(line string)
}

// NewMinimizer returns a Minimizer for target and, searched after it,
// modules, each of which must be split on target's Spec.
func NewMinimizer(target *Target, modules ...*Target) *Minimizer {
	mz := &Minimizer{Target: target, Modules: modules, Marks: NewMarks(target)}
	for _, m := range modules {
		mz.ModuleMarks = append(mz.ModuleMarks, NewMarks(m))
	}
	return mz
}

// targets returns the targets in the order they are searched.
func (mz *Minimizer) targets() []*Target {
	return append([]*Target{mz.Target}, mz.Modules...)
}

// merge adds an object's marks to the Minimizer's.
func (mz *Minimizer) merge(o *ObjectResult) {
	o.settle()
	mz.Marks.Merge(o.Marks)
	for i, m := range o.ModuleMarks {
		mz.ModuleMarks[i].Merge(m)
	}
}

// changes counts the marks set on every target.
func (mz *Minimizer) changes() int {
	n := mz.Marks.Changes()
	for _, m := range mz.ModuleMarks {
		n += m.Changes()
	}
	return n
}

// Add relocates every CO-RE relocation of obj against the targets and marks
// what each needs: the spec of the candidate a relocation resolves to (the
// first that matches, as bpftool marks), or, when the relocation is
// ambiguous or fails on a candidate, the spec of every candidate that
// matched before the decision (and the path into the candidate on which
// matching failed), so that the minimized BTF reproduces the failure.
// Relocations that find nothing mark nothing. The error is an
// *ObjectError, or a marking error on an inconsistent target.
func (mz *Minimizer) Add(obj *btfext.Object) (*ObjectResult, error) {
	res := &ObjectResult{Object: obj, Marks: NewMarks(mz.Target)}
	for _, m := range mz.Modules {
		res.ModuleMarks = append(res.ModuleMarks, NewMarks(m))
	}
	rl := NewRelocator(&Types{Spec: obj.BTF, PtrSize: obj.PointerSize}, mz.targets())
	rl.Log = mz.Log
	for _, sec := range obj.Ext.Relocs {
		secName := obj.SectionName(&sec)
		for i, r := range sec.Relocs {
			out, err := rl.Relocate(secName, i, r)
			if err != nil {
				return nil, &ObjectError{Object: obj.Name, Section: secName, Index: i, Offset: r.Offset, Err: err}
			}
			res.Relocs = append(res.Relocs, RelocReport{Section: secName, Program: obj.Program(secName, r.InsnOff), Index: i, Result: out})
			if err := res.addResult(out); err != nil {
				return nil, fmt.Errorf("%s: relocation #%d of section %s: %w", obj.Name, i, secName, err)
			}
			if len(mz.Modules) > 0 && out.Outcome == NoMatch && len(out.Searched) == 1 {
				mz.keepStop(res, obj, r.TypeID)
			}
		}
	}
	mz.merge(res)
	mz.Objects = append(mz.Objects, res)
	return res, nil
}

// keepStop marks, for a local type whose candidates are in the target but
// none of which matched, and which a module has candidates for too, the
// first target candidate without its members: the output's search for
// that type must stop at the target as the kernel's does, also where no
// other relocation keeps a candidate (else a kept module type of its name
// would be searched, in a split output). A candidate without members
// matches no access the candidates did not match.
func (mz *Minimizer) keepStop(res *ObjectResult, obj *btfext.Object, id btf.TypeID) {
	lt := &Types{Spec: obj.BTF, PtrSize: obj.PointerSize}
	t, ok := lt.typ(id)
	if !ok {
		return
	}
	name, _ := lt.name(t.NameOff())
	for _, m := range mz.Modules {
		if len(m.addCandidates(nil, t, name)) == 0 {
			continue // the output's modules offer nothing to find either
		}
		if c := mz.Target.addCandidates(nil, t, name); len(c) > 0 {
			res.Marks.markType(c[0].ID, false)
		}
		return
	}
}

// addResult marks what a relocation's outcome needs (see Minimizer.Add),
// each spec on the marks of the target it is in.
func (o *ObjectResult) addResult(r *Result) error {
	switch r.Outcome {
	case Resolved:
		return o.marksOf(r.Matches[0].Target).Add(r.Matches[0].Spec)
	case Ambiguous, Failed:
		for _, mt := range r.Matches {
			if err := o.marksOf(mt.Target).Add(mt.Spec); err != nil {
				return err
			}
		}
		if p := r.Partial; p != nil && p.Kind.IsField() {
			for _, m := range append([]*Marks{o.Marks}, o.ModuleMarks...) {
				if &m.Target.Types == p.Types {
					m.addPartial(p)
				}
			}
		}
	}
	return nil
}

// Output is the minimized BTF and how it came about.
type Output struct {
	// Spec is the standalone output: the target's kept types, then, from
	// Build, each module's; from BuildSplit, the target's alone.
	Spec *btf.Spec
	// IDs maps the target's type IDs to the output's (0: not kept).
	IDs []btf.TypeID
	// Modules are, from BuildSplit, each module's kept types as split BTF
	// on Spec.
	Modules []*btf.Spec
	// ModuleIDs maps, per module, its type IDs (its base's and its own) to
	// the output's: Spec's, or from BuildSplit Modules[i]'s for its own.
	ModuleIDs [][]btf.TypeID
	// Renamed lists the module types Build renamed (see Build).
	Renamed []Renamed
	// Widened lists the relocations for which more than bpftool keeps had
	// to be kept (see Minimizer.Build).
	Widened []Mismatch
	// Mismatches lists the relocations the output still resolves
	// otherwise than the target does, after widening (none is expected).
	Mismatches []Mismatch

	// targets are the output's targets, searched as the Minimizer's are:
	// one for Build's output, the target and each module for BuildSplit's.
	targets []*Target
	// origin maps, per output target, the ID of each own type to the
	// candidate of the Minimizer's targets it was copied from.
	origin [][]Candidate
}

// Renamed is a module type that Build's output holds under another name.
type Renamed struct {
	Module  *Target
	ID      btf.TypeID // in the module
	Name    string
	NewName string
}

// outID returns the output's ID of a type of the Minimizer's targets.
func (out *Output) outID(mz *Minimizer, c Candidate) btf.TypeID {
	ids := out.IDs
	for i, m := range mz.Modules {
		if m == c.Target {
			ids = out.ModuleIDs[i]
		}
	}
	if int(c.ID) >= len(ids) {
		return 0
	}
	return ids[c.ID]
}

// Mismatch is a relocation that resolves otherwise against the output than
// against the target.
type Mismatch struct {
	Object *ObjectResult
	Reloc  *RelocReport
	Got    *Result // against the output
	// Extra, when not empty, are the output's candidates of the
	// relocation's local type that the targets' search would not have
	// found (the types they were copied from), whatever the result.
	Extra []Candidate
}

// maxWidenRounds bounds Build's rounds of widening: each round keeps more,
// and keeping every match of every relocation reproduces them all.
const maxWidenRounds = 16

// Build builds the minimized BTF (see Build) and checks it: every object
// is relocated again against it, and each relocation must give what it
// gave against the targets: the same outcome, value and load size (a
// target type ID mapped to the output's).
//
// With modules, the output is one standalone BTF: the kept types of the
// target, then those of each module, in order, as libbpf reads one
// btf_custom_path file. libbpf searches such a file alone, so a module
// type in it would be a candidate for a local type of its name even where
// the running kernel's search stops at the vmlinux: Build renames each
// kept module type whose essential name and kind are those of a local
// type the target has a candidate for, to "<module>__<name>" (with
// leading underscores until no local type has that essential name), and
// its check fails any relocation whose local type has a candidate in the
// output that is not a copy of one the targets' search finds.
//
// bpftool keeps only the first match of a relocation. When a relocation
// matched several candidates and a later relocation of the same local
// type narrows them otherwise than against the target (libbpf keeps only
// the candidates that matched, for the relocations after), the output can
// relocate that later one differently. For the first relocation of an
// object that the output gets wrong, Build keeps every match of it and of
// each relocation of the same local type before it in the object, and
// builds again, until the output relocates every object as the target
// does. With every match of every relocation kept, the output's candidates
// match exactly where the target's did, so the rounds end.
func (mz *Minimizer) Build() (*Output, error) { return mz.build(false) }

// BuildSplit is Build with the modules' kept types as split BTF, one Spec
// per module on the minimized target (Output.Modules), searched as the
// Minimizer's targets are: no type is renamed.
func (mz *Minimizer) BuildSplit() (*Output, error) { return mz.build(true) }

func (mz *Minimizer) build(split bool) (*Output, error) {
	var widened []Mismatch
	for round := 0; ; round++ {
		out, err := mz.assemble(split)
		if err != nil {
			return nil, err
		}
		mism, err := mz.check(out)
		if err != nil {
			return nil, err
		}
		out.Widened = widened
		if len(mism) == 0 || round == maxWidenRounds {
			out.Mismatches = mism
			return out, nil
		}
		before := mz.changes()
		for _, mm := range mism {
			o := mm.Object
			for i := range o.Relocs {
				rr := &o.Relocs[i]
				if rr.Reloc.TypeID != mm.Reloc.Reloc.TypeID {
					continue
				}
				for _, m := range rr.Matches {
					if err := o.marksOf(m.Target).Add(m.Spec); err != nil {
						return nil, err
					}
				}
				if rr == mm.Reloc {
					break
				}
			}
			mz.merge(o)
		}
		if mz.changes() == before {
			out.Mismatches = mism
			return out, nil
		}
		widened = append(widened, mism...)
	}
}

// assemble copies the marked types into the output (see Build and
// BuildSplit).
func (mz *Minimizer) assemble(split bool) (*Output, error) {
	spec, ids, err := Build(mz.Marks)
	if err != nil {
		return nil, err
	}
	ptr := mz.Target.Types.PtrSize
	out := &Output{Spec: spec, IDs: ids}
	origin := make([]Candidate, spec.TypeCount()+1)
	for id, n := range ids {
		if n != 0 {
			origin[n] = Candidate{mz.Target, btf.TypeID(id)}
		}
	}
	out.targets = []*Target{NewTarget("output", spec, ptr)}
	out.origin = [][]Candidate{origin}
	var rename func(m *Target) func(id btf.TypeID, t btf.Type) string
	if !split && len(mz.Modules) > 0 {
		rename = mz.renamer(out)
	}
	for i, m := range mz.Modules {
		dst := spec
		if split {
			dst = btf.NewSpec(spec)
			out.Modules = append(out.Modules, dst)
		}
		mids := make([]btf.TypeID, m.Types.Spec.TypeCount()+1)
		copy(mids, ids)
		var rn func(btf.TypeID, btf.Type) string
		if rename != nil {
			rn = rename(m)
		}
		if err := appendMarked(dst, mz.ModuleMarks[i], mids, m.Types.Spec.FirstID(), rn); err != nil {
			return nil, err
		}
		out.ModuleIDs = append(out.ModuleIDs, mids)
		if split {
			out.targets = append(out.targets, NewTarget(m.Name, dst, ptr))
			origin = make([]Candidate, dst.TypeCount()+1)
			out.origin = append(out.origin, origin)
		} else {
			origin = append(origin, make([]Candidate, int(dst.TypeCount())+1-len(origin))...)
			out.origin[0] = origin
		}
		for id := m.Types.Spec.FirstID(); int(id) < len(mids); id++ {
			if n := mids[id]; n != 0 {
				origin[n] = Candidate{m, id}
			}
		}
	}
	return out, nil
}

// check relocates every object against the built output and returns, per
// object, the first relocation that resolves otherwise than against the
// targets (the ones after it may follow from it), or, with modules, whose
// local type has an output candidate the targets' search does not find.
func (mz *Minimizer) check(out *Output) ([]Mismatch, error) {
	var res []Mismatch
	for _, o := range mz.Objects {
		obj := o.Object
		local := &Types{Spec: obj.BTF, PtrSize: obj.PointerSize}
		rl := NewRelocator(local, out.targets)
		seen := map[btf.TypeID]bool{}
		for i := range o.Relocs {
			rr := &o.Relocs[i]
			got, err := rl.Relocate(rr.Section, rr.Index, rr.Reloc)
			if err != nil {
				return nil, fmt.Errorf("%s: relocation #%d of section %s against the output: %w", obj.Name, rr.Index, rr.Section, err)
			}
			if !mz.sameResult(rr.Result, got, out) {
				res = append(res, Mismatch{Object: o, Reloc: rr, Got: got})
				break
			}
			if len(mz.Modules) == 0 || rr.Reloc.Kind == btfext.TypeIDLocal || seen[rr.Reloc.TypeID] {
				continue
			}
			seen[rr.Reloc.TypeID] = true
			if extra := mz.extraCandidates(local, rr.Reloc.TypeID, out); len(extra) > 0 {
				res = append(res, Mismatch{Object: o, Reloc: rr, Got: got, Extra: extra})
				break
			}
		}
	}
	return res, nil
}

// extraCandidates returns the candidates of local type id in the output
// (as the types they were copied from) that the targets' search does not
// find.
func (mz *Minimizer) extraCandidates(local *Types, id btf.TypeID, out *Output) []Candidate {
	lt, ok := local.typ(id)
	if !ok {
		return nil
	}
	name, _ := local.name(lt.NameOff())
	live, _ := findCandidates(mz.targets(), lt, name)
	found := map[Candidate]bool{}
	for _, c := range live {
		found[c] = true
	}
	got, _ := findCandidates(out.targets, lt, name)
	var extra []Candidate
	for _, c := range got {
		for j, t := range out.targets {
			if t == c.Target {
				if src := out.origin[j][c.ID]; !found[src] {
					extra = append(extra, src)
				}
			}
		}
	}
	return extra
}

// renamer returns, per module, the rename function of Build (see Build):
// it records each rename in out.
func (mz *Minimizer) renamer(out *Output) func(m *Target) func(id btf.TypeID, t btf.Type) string {
	searched := map[string][]btf.Kind{} // essential names the target has candidates for, with the local kinds
	locals := map[string]bool{}         // every local type's essential name
	for _, o := range mz.Objects {
		lt := &Types{Spec: o.Object.BTF}
		for i := range o.Relocs {
			r := o.Relocs[i].Result
			t, ok := lt.typ(r.Reloc.TypeID)
			if !ok || r.Reloc.Kind == btfext.TypeIDLocal {
				continue
			}
			name, _ := lt.name(t.NameOff())
			key := essentialName(name)
			locals[key] = true
			if len(r.Searched) == 1 && len(r.Searched[0].addCandidates(nil, t, name)) > 0 {
				searched[key] = append(searched[key], t.Kind())
			}
		}
	}
	return func(m *Target) func(id btf.TypeID, t btf.Type) string {
		return func(id btf.TypeID, t btf.Type) string {
			name := m.Types.Spec.Name(t)
			kinds := searched[essentialName(name)]
			if name == "" || !slices.ContainsFunc(kinds, func(k btf.Kind) bool { return kindsCompatible(t.Kind(), k) }) {
				return ""
			}
			nn := identifier(m.Name) + "__" + name
			for locals[essentialName(nn)] {
				nn = "_" + nn
			}
			out.Renamed = append(out.Renamed, Renamed{Module: m, ID: id, Name: name, NewName: nn})
			return nn
		}
	}
}

// identifier makes s a C identifier: every other byte becomes '_'.
func identifier(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && i > 0) {
			b[i] = '_'
		}
	}
	return string(b)
}

// sameResult reports whether a relocation resolves against the output
// (got) as it did against the targets (want), whose type IDs out maps to
// the output's: what libbpf writes into the instruction. The outcome
// counts as far as it decides that (no candidate and no match both give
// the no-target value; an ambiguity or failure rejects the object), then
// the value, whether it poisons the instruction, the load size and whether
// the load may be resized.
func (mz *Minimizer) sameResult(want, got *Result, out *Output) bool {
	class := func(o Outcome) Outcome {
		if o == NoCandidate {
			return NoMatch
		}
		return o
	}
	if class(want.Outcome) != class(got.Outcome) {
		return false
	}
	wv, gv := want.New, got.New
	if want.Reloc.Kind == btfext.TypeIDTarget && want.Outcome == Resolved {
		m := want.Matches[0]
		if wv.Val != uint64(m.ID) {
			return false
		}
		wv.Val = uint64(out.outID(mz, m.Candidate))
	}
	wv.TypeID, gv.TypeID = 0, 0 // compared through FailMemszAdjust
	return wv == gv && want.FailMemszAdjust == got.FailMemszAdjust
}

// IsObjectError reports whether err is an object's own fault.
func IsObjectError(err error) bool {
	var oe *ObjectError
	return errors.As(err, &oe)
}
