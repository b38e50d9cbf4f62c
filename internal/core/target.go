package core

import (
	"errors"
	"sync"

	"github.com/gobtf/gobtf/internal/btf"
)

// Target is a BTF that relocations search for candidates: a kernel's
// vmlinux BTF, or a module's split BTF on it.
//
// A Target is safe for use by several goroutines. Its name index aliases
// the Spec's strings, so the Spec must not change while the Target is used.
type Target struct {
	// Name names the target in messages ("vmlinux", a file name).
	Name  string
	Types Types

	once  sync.Once
	first map[string]btf.TypeID // essential name -> lowest own type ID with it
	next  []btf.TypeID          // own type i (0-based) -> next own type with its essential name, 0 at the end
}

// NewTarget returns a target searching the own types of spec (a split
// spec's base is not searched: libbpf searches a module's BTF from its
// first own type), where a pointer has ptrSize bytes.
func NewTarget(name string, spec *btf.Spec, ptrSize uint32) *Target {
	return &Target{Name: name, Types: Types{Spec: spec, PtrSize: ptrSize}}
}

// CheckStandalone returns an error when spec is not BTF that libbpf reads
// on its own (btf__parse without a base): its string section must start
// with the empty string and end with a NUL. Split BTF (a module's) fails
// the first test.
func CheckStandalone(spec *btf.Spec) error {
	if spec.Base() != nil {
		return nil
	}
	strs := spec.Strings().Bytes()
	switch {
	case len(strs) == 0:
		return errors.New("the string section is empty")
	case strs[0] != 0:
		return errors.New("the string section does not start with the empty string: split BTF (a module's) cannot be read without its base")
	case strs[len(strs)-1] != 0:
		return errors.New("the string section does not end with a NUL")
	}
	return nil
}

// unindexed reports whether types of kind k are left out of the name
// index: no relocation of any kind can match a FUNC, VAR, DATASEC or
// DECL_TAG candidate, and a vmlinux holds tens of thousands of FUNCs. A
// local type of such a kind is searched for by a scan.
func unindexed(k btf.Kind) bool {
	return k == btf.KindFunc || k == btf.KindVar || k == btf.KindDatasec || k == btf.KindDeclTag
}

// index builds the essential-name index of the target's own types, once.
func (t *Target) index() {
	t.once.Do(func() {
		s := t.Types.Spec
		n := s.NumTypes()
		t.next = make([]btf.TypeID, n)
		named := 0
		for i := range n {
			if ty := s.Own(i); !unindexed(ty.Kind()) && ty.NameOff() != 0 {
				named++
			}
		}
		t.first = make(map[string]btf.TypeID, named)
		strs := s.Strings()
		for i := n - 1; i >= 0; i-- {
			ty := s.Own(i)
			if unindexed(ty.Kind()) || ty.NameOff() == 0 {
				continue
			}
			name, ok := strs.Lookup(ty.NameOff())
			if !ok || name == "" {
				continue
			}
			key := essentialName(name)
			id := s.FirstID() + btf.TypeID(i)
			t.next[i] = t.first[key]
			t.first[key] = id
		}
	})
}

// Candidate is a target type a relocation may resolve to.
type Candidate struct {
	Target *Target
	ID     btf.TypeID
}

// addCandidates appends to cands the own types of t that libbpf's
// bpf_core_add_cands takes as candidates for local type l named name: a
// compatible kind (the same, or enums of either width) and the same
// essential name, in ID order.
func (t *Target) addCandidates(cands []Candidate, l btf.Type, name string) []Candidate {
	key := essentialName(name)
	s := t.Types.Spec
	if unindexed(l.Kind()) {
		for i := range s.NumTypes() {
			ty := s.Own(i)
			if !kindsCompatible(ty.Kind(), l.Kind()) {
				continue
			}
			if tn, ok := s.Strings().Lookup(ty.NameOff()); ok && tn != "" && essentialName(tn) == key {
				cands = append(cands, Candidate{t, s.FirstID() + btf.TypeID(i)})
			}
		}
		return cands
	}
	t.index()
	for id := t.first[key]; id != 0; id = t.next[id-s.FirstID()] {
		if kindsCompatible(s.Type(id).Kind(), l.Kind()) {
			cands = append(cands, Candidate{t, id})
		}
	}
	return cands
}

// findCandidates searches targets as libbpf searches a running kernel's
// BTF: the first target alone, and only when it has no candidate, all
// the others, in order. It returns the candidates and the targets it
// searched.
func findCandidates(targets []*Target, l btf.Type, name string) ([]Candidate, []*Target) {
	if len(targets) == 0 {
		return nil, nil
	}
	cands := targets[0].addCandidates(nil, l, name)
	if len(cands) > 0 {
		return cands, targets[:1]
	}
	for _, t := range targets[1:] {
		cands = t.addCandidates(cands, l, name)
	}
	return cands, targets
}
