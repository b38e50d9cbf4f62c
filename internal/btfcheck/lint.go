package btfcheck

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
)

// Lint looks for what the kernel accepts but is wrong. The kernel's module
// and boot checks never resolve references, so BTF whose references are
// wrong passes them; the commonest case is a module whose split BTF was
// made on another vmlinux BTF than the one it is loaded on: its type IDs and
// string offsets still fall inside the base, so the kernel takes it, and
// every type it shares with the base then means something else.

// Finding is one lint finding.
type Finding struct {
	// Check names the finding: "base-mismatch", "unresolved",
	// "duplicate" or "base-copy".
	Check string
	// Certain says how sure it is: "certain" (the evidence admits no
	// other reading), "likely" or "possible".
	Certain string
	Msg     string
}

// lint runs the checks on a file's accepted BTF (s; split on its base for a
// module).
func lint(in *input, s *btf.Spec, opts Options) []Finding {
	var out []Finding
	mismatch := false
	if s.Base() != nil {
		if f, ok := baseMismatch(s, opts); ok {
			out = append(out, f)
			mismatch = true
		}
	}
	if mismatch {
		return out
	}
	if err := s.ValidateWith(btf.ValidateOptions{Path: btf.PathLoad, OwnTypes: true, Rules: opts.Kernel.Rules}); err != nil {
		// Deduplication needs references that resolve.
		return append(out, Finding{Check: "unresolved", Certain: "certain",
			Msg: fmt.Sprintf("the kernel's load check (BPF_BTF_LOAD) would refuse these types: %s", lintFault(err))})
	}
	return append(out, duplicates(in, s, in.file.Base != nil && opts.Kernel.DistilledBase)...)
}

// lintFault renders a fault for a finding.
func lintFault(err error) string {
	if f, ok := err.(*btf.ValidationError); ok {
		return Line(f)
	}
	return err.Error()
}

// baseMismatch looks for a module made on another vmlinux BTF than its
// base. Two kinds of evidence: names that point into the middle of a base
// string (a module made on its base names base strings only by their
// start), and references the load check refuses (types of the wrong kind
// where the module expects, say, a struct).
func baseMismatch(s *btf.Spec, opts Options) (Finding, bool) {
	base := s.Base()
	bstrs := base.Strings().Bytes()
	blen := uint32(len(bstrs))
	var refs, inside int
	example := ""
	for i := range s.NumTypes() {
		t := s.Own(i)
		t.ForEachStrRef(func(w *uint32) {
			off := *w
			if off == 0 || off >= blen {
				return
			}
			refs++
			if bstrs[off-1] != 0 {
				inside++
				if example == "" {
					example = fmt.Sprintf("[%d] %s names %q, the tail of a base string", s.FirstID()+btf.TypeID(i), t.Kind(), base.Strings().String(off))
				}
			}
		})
	}
	err := s.ValidateWith(btf.ValidateOptions{Path: btf.PathLoad, OwnTypes: true, Rules: opts.Kernel.Rules})
	var certain string
	switch {
	case inside >= 3 || inside > 0 && err != nil:
		certain = "certain"
	case inside > 0:
		certain = "likely"
	default:
		return Finding{}, false
	}
	msg := fmt.Sprintf("made on another vmlinux BTF than its base: %d of its %d names in the base's strings start inside a base string (%s)", inside, refs, example)
	if err != nil {
		msg += "; and the load check refuses its references: " + lintFault(err)
	}
	return Finding{Check: "base-mismatch", Certain: certain, Msg: msg}, true
}

// duplicates deduplicates the BTF again, as libbpf would, and reports the
// types that merge: module types equal to a base type (the module carries
// a copy of it) and types equal to another of the file's own (an
// incomplete deduplication left both). A module relocated from a distilled
// base carries copies of base types by design (distilling copies the
// anonymous types its base types need), so distilled says not to report
// copies.
func duplicates(in *input, s *btf.Spec, distilled bool) []Finding {
	var opts dedup.Options
	if s.Base() != nil && in.base != nil && in.base.spec == s.Base() {
		bi, err := in.base.index()
		if err != nil {
			return nil
		}
		opts.Base = bi
	}
	reps, err := dedup.Representatives(s, opts)
	if err != nil {
		return []Finding{{Check: "duplicate", Certain: "possible", Msg: "deduplicating again failed: " + err.Error()}}
	}
	var copies, dups []string
	var nCopies, nDups int
	first := s.FirstID()
	for i, r := range reps {
		id := first + btf.TypeID(i)
		if r == id {
			continue
		}
		t := s.Own(i)
		desc := fmt.Sprintf("[%d] %s %s = [%d]", id, t.Kind(), logNameOf(s, t), r)
		if r < first {
			nCopies++
			if len(copies) < 5 {
				copies = append(copies, desc)
			}
		} else {
			nDups++
			if len(dups) < 5 {
				dups = append(dups, desc)
			}
		}
	}
	var out []Finding
	if nCopies > 0 && !distilled {
		out = append(out, Finding{Check: "base-copy", Certain: "certain",
			Msg: fmt.Sprintf("%d types are copies of base types (libbpf's deduplication merges them): %s%s", nCopies, strings.Join(copies, ", "), more(nCopies, len(copies)))})
	}
	if nDups > 0 {
		out = append(out, Finding{Check: "duplicate", Certain: "certain",
			Msg: fmt.Sprintf("%d types duplicate other types of the file (an incomplete deduplication): %s%s", nDups, strings.Join(dups, ", "), more(nDups, len(dups)))})
	}
	return out
}

func more(n, shown int) string {
	if n > shown {
		return fmt.Sprintf(", ... (%d more)", n-shown)
	}
	return ""
}

func logNameOf(s *btf.Spec, t btf.Type) string {
	if t.NameOff() == 0 {
		return "(anon)"
	}
	return s.Name(t)
}

// index prepares the base for deduplication, once.
func (b *baseBTF) index() (*dedup.BaseIndex, error) {
	b.once.Do(func() { b.idx, b.idxErr = dedup.PrepareBase(b.spec, dedup.Options{Workers: 1}) })
	return b.idx, b.idxErr
}

// baseIndex is a base's deduplication index, made on first use.
type baseIndex struct {
	once   sync.Once
	idx    *dedup.BaseIndex
	idxErr error
}
