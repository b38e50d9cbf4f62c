package core

import (
	"errors"
	"fmt"

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
	// Marks holds what this object's relocations keep of the target.
	Marks *Marks
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
// of one target, and builds the minimized BTF from it: bpftool's gen
// min_core_btf. Objects are relocated in turn, each with its own candidate
// cache, as bpftool and libbpf relocate them.
//
// A Minimizer is not safe for concurrent use, but Minimizers of different
// targets may run on different goroutines and share the objects (which
// they only read) and targets.
type Minimizer struct {
	Target  *Target
	Marks   *Marks
	Objects []*ObjectResult
	// Log, when set, receives libbpf's debug lines of every relocation
	// Add computes (see Relocator.Log).
	Log func(line string)
}

// NewMinimizer returns a Minimizer for target.
func NewMinimizer(target *Target) *Minimizer {
	return &Minimizer{Target: target, Marks: NewMarks(target)}
}

// Add relocates every CO-RE relocation of obj against the target and marks
// what each needs: the spec of the candidate a relocation resolves to (the
// first that matches, as bpftool marks), or, when the relocation is
// ambiguous or fails on a candidate, the spec of every candidate that
// matched before the decision (and the path into the candidate on which
// matching failed), so that the minimized BTF reproduces the failure. Relocations that find nothing mark nothing. The error is an
// *ObjectError, or a marking error on an inconsistent target.
func (mz *Minimizer) Add(obj *btfext.Object) (*ObjectResult, error) {
	res := &ObjectResult{Object: obj, Marks: NewMarks(mz.Target)}
	rl := NewRelocator(&Types{Spec: obj.BTF, PtrSize: obj.PointerSize}, []*Target{mz.Target})
	rl.Log = mz.Log
	for _, sec := range obj.Ext.Relocs {
		secName := obj.SectionName(&sec)
		for i, r := range sec.Relocs {
			out, err := rl.Relocate(secName, i, r)
			if err != nil {
				return nil, &ObjectError{Object: obj.Name, Section: secName, Index: i, Offset: r.Offset, Err: err}
			}
			res.Relocs = append(res.Relocs, RelocReport{Section: secName, Program: obj.Program(secName, r.InsnOff), Index: i, Result: out})
			if err := res.Marks.addResult(out); err != nil {
				return nil, fmt.Errorf("%s: relocation #%d of section %s: %w", obj.Name, i, secName, err)
			}
		}
	}
	mz.Marks.Merge(res.Marks)
	mz.Objects = append(mz.Objects, res)
	return res, nil
}

// addResult marks what a relocation's outcome needs (see Minimizer.Add).
func (m *Marks) addResult(r *Result) error {
	switch r.Outcome {
	case Resolved:
		return m.Add(r.Matches[0].Spec)
	case Ambiguous, Failed:
		for _, mt := range r.Matches {
			if err := m.Add(mt.Spec); err != nil {
				return err
			}
		}
		if r.Partial != nil && r.Partial.Kind.IsField() {
			m.addPartial(r.Partial)
		}
	}
	return nil
}

// Output is the minimized BTF and how it came about.
type Output struct {
	Spec *btf.Spec
	// IDs maps the target's type IDs to the output's (0: not kept).
	IDs []btf.TypeID
	// Widened lists the relocations for which more than bpftool keeps had
	// to be kept (see Minimizer.Build).
	Widened []Mismatch
	// Mismatches lists the relocations the output still resolves
	// otherwise than the target does, after widening (none is expected).
	Mismatches []Mismatch
}

// Mismatch is a relocation that resolves otherwise against the output than
// against the target.
type Mismatch struct {
	Object *ObjectResult
	Reloc  *RelocReport
	Got    *Result // against the output
}

// maxWidenRounds bounds Build's rounds of widening: each round keeps more,
// and keeping every match of every relocation reproduces them all.
const maxWidenRounds = 16

// Build builds the minimized BTF (see Build) and checks it: every object
// is relocated again against it, and each relocation must give what it
// gave against the target: the same outcome, value and load size (a
// target type ID mapped to the output's).
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
func (mz *Minimizer) Build() (*Output, error) {
	var widened []Mismatch
	for round := 0; ; round++ {
		spec, ids, err := Build(mz.Marks)
		if err != nil {
			return nil, err
		}
		mism, err := mz.check(spec, ids)
		if err != nil {
			return nil, err
		}
		out := &Output{Spec: spec, IDs: ids, Widened: widened}
		if len(mism) == 0 || round == maxWidenRounds {
			out.Mismatches = mism
			return out, nil
		}
		before := mz.Marks.Changes()
		for _, mm := range mism {
			o := mm.Object
			for i := range o.Relocs {
				rr := &o.Relocs[i]
				if rr.Reloc.TypeID != mm.Reloc.Reloc.TypeID {
					continue
				}
				for _, m := range rr.Matches {
					if err := o.Marks.Add(m.Spec); err != nil {
						return nil, err
					}
				}
				if rr == mm.Reloc {
					break
				}
			}
			mz.Marks.Merge(o.Marks)
		}
		if mz.Marks.Changes() == before {
			out.Mismatches = mism
			return out, nil
		}
		widened = append(widened, mism...)
	}
}

// check relocates every object against the built output and returns, per
// object, the first relocation that resolves otherwise than against the
// target (the ones after it may follow from it).
func (mz *Minimizer) check(spec *btf.Spec, ids []btf.TypeID) ([]Mismatch, error) {
	target := NewTarget("output", spec, mz.Target.Types.PtrSize)
	var out []Mismatch
	for _, o := range mz.Objects {
		obj := o.Object
		rl := NewRelocator(&Types{Spec: obj.BTF, PtrSize: obj.PointerSize}, []*Target{target})
		for i := range o.Relocs {
			rr := &o.Relocs[i]
			got, err := rl.Relocate(rr.Section, rr.Index, rr.Reloc)
			if err != nil {
				return nil, fmt.Errorf("%s: relocation #%d of section %s against the output: %w", obj.Name, rr.Index, rr.Section, err)
			}
			if !sameResult(rr.Result, got, ids) {
				out = append(out, Mismatch{Object: o, Reloc: rr, Got: got})
				break
			}
		}
	}
	return out, nil
}

// sameResult reports whether a relocation resolves against the output
// (got) as it did against the target (want), whose type IDs ids maps to
// the output's: what libbpf writes into the instruction. The outcome
// counts as far as it decides that (no candidate and no match both give
// the no-target value; an ambiguity or failure rejects the object), then
// the value, whether it poisons the instruction, the load size and whether
// the load may be resized.
func sameResult(want, got *Result, ids []btf.TypeID) bool {
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
		if wv.Val >= uint64(len(ids)) {
			return false
		}
		wv.Val = uint64(ids[wv.Val])
	}
	wv.TypeID, gv.TypeID = 0, 0 // compared through FailMemszAdjust
	return wv == gv && want.FailMemszAdjust == got.FailMemszAdjust
}

// IsObjectError reports whether err is an object's own fault.
func IsObjectError(err error) bool {
	var oe *ObjectError
	return errors.As(err, &oe)
}
