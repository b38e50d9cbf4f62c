package dedup

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// The properties below are checked on generated inputs without an external
// oracle (FuzzDedupVsLibbpf compares with libbpf itself):
//
//  1. Idempotence: deduplicating the result again gives the same types in
//     the same order. (Not the same bytes: the string section keeps the
//     order in which strings were first used by any input type, kept or
//     not, as libbpf's does, so a second pass may order it differently.)
//  2. Nothing left to merge: no two output types are structurally equal
//     (bisimilar: same kind, names, sizes and values, and references to
//     types that are themselves structurally equal). VAR and DATASEC are
//     exempt: libbpf never merges them.
//  3. Nothing lost: every input type's mapped output type has the input
//     type's structure (followed through all references), up to the one
//     difference libbpf's equivalence allows on purpose: a forward
//     declaration (FWD, or an ENUM without values) standing for a
//     definition of the same name, at any depth. Which definition is not
//     checked: with two conflicting definitions of a name, libbpf may map
//     one FWD to either.
//
// The properties hold when every name stands for one definition (a clean
// universe in gen_test.go), as in a well-formed C program, and libbpf's
// deduplication guarantees no more: with two definitions of one name, FWDs
// of that name are ambiguous and libbpf's single pass is neither exact nor
// faithful. On genInput(73, 3, 11), for one, libbpf 1.x keeps 65 types of
// which 4 pairs are identical, and a second pass leaves 61; on
// genInputIn(734, 7, 19, false) it maps the union s11 to a union s11 whose
// members point elsewhere. gobtf does what libbpf does there (the fuzzer
// found these; FuzzDedupVsLibbpf checks that agreement), so such inputs are
// left to that oracle and these properties are checked on clean inputs.

// shape returns type id of s with every type reference zeroed and every
// string offset replaced by the string, as a comparable key, and the
// references in layout order.
func shape(s *btf.Spec, id btf.TypeID) (string, []uint32) {
	w := btf.Type(append([]uint32(nil), s.Type(id)...))
	var names []string
	w.ForEachStrRef(func(p *uint32) {
		names = append(names, s.Strings().String(*p))
		*p = 0
	})
	var refs []uint32
	w.ForEachTypeRef(func(p *uint32) {
		refs = append(refs, *p)
		*p = 0
	})
	return fmt.Sprint([]uint32(w), names), refs
}

// family groups the kinds a forward declaration can stand for.
func family(t btf.Type) string {
	switch t.Kind() {
	case btf.KindFwd:
		if t.KindFlag() {
			return "union"
		}
		return "struct"
	case btf.KindStruct:
		return "struct"
	case btf.KindUnion:
		return "union"
	case btf.KindEnum, btf.KindEnum64:
		return "enum"
	}
	return ""
}

// fwdLike reports whether t is a forward declaration: a FWD, or an enum
// without values.
func fwdLike(t btf.Type) bool {
	k := t.Kind()
	return k == btf.KindFwd || (k == btf.KindEnum || k == btf.KindEnum64) && t.Vlen() == 0
}

// sameUpToDecls reports whether type a of spec x and type b of spec y have
// the same structure when a forward declaration is taken as equal to any
// definition of its name and family, at any depth: the equivalence libbpf's
// check applies. Void and base types equal only themselves. Pairs under
// comparison are assumed equal (the greatest fixed point, so cycles compare
// equal). No result is ever chosen among alternatives, so one failing pair
// fails the caller's whole check, which keeps the assumptions sound even
// when assumed is shared between checks.
func sameUpToDecls(x *btf.Spec, a btf.TypeID, y *btf.Spec, b btf.TypeID, assumed map[[2]btf.TypeID]bool) bool {
	if a < x.FirstID() || b < y.FirstID() {
		return a == b
	}
	if assumed[[2]btf.TypeID{a, b}] {
		return true
	}
	ta, tb := x.Type(a), y.Type(b)
	if ta == nil || tb == nil {
		return false
	}
	// Names may be empty: libbpf matches an anonymous FWD with an anonymous
	// definition too.
	if x.Name(ta) == y.Name(tb) && (fwdLike(ta) || fwdLike(tb)) && family(ta) != "" && family(ta) == family(tb) {
		return true
	}
	ka, ra := shape(x, a)
	kb, rb := shape(y, b)
	if ka != kb {
		return false
	}
	assumed[[2]btf.TypeID{a, b}] = true
	for j := range ra {
		if !sameUpToDecls(x, btf.TypeID(ra[j]), y, btf.TypeID(rb[j]), assumed) {
			return false
		}
	}
	return true
}

// structuralDuplicates returns the classes of more than one own type of s
// that are bisimilar, by partition refinement: start from the shapes, then
// split classes by the classes of the references until nothing changes.
func structuralDuplicates(s *btf.Spec) [][]btf.TypeID {
	n := s.NumTypes()
	first := s.FirstID()
	class := make([]int, n)
	refs := make([][]uint32, n)
	ids := map[string]int{}
	for i := range n {
		key, r := shape(s, first+btf.TypeID(i))
		refs[i] = r
		class[i] = intern(ids, key)
	}
	classes := len(ids)
	for {
		ids = map[string]int{}
		next := make([]int, n)
		var b strings.Builder
		for i := range n {
			b.Reset()
			fmt.Fprint(&b, class[i])
			for _, r := range refs[i] {
				if r < uint32(first) {
					fmt.Fprintf(&b, " b%d", r) // void and base types are their own class
				} else {
					fmt.Fprintf(&b, " %d", class[r-uint32(first)])
				}
			}
			next[i] = intern(ids, b.String())
		}
		class = next
		if len(ids) == classes {
			break
		}
		classes = len(ids)
	}
	members := map[int][]btf.TypeID{}
	for i := range n {
		if k := s.Own(i).Kind(); k == btf.KindVar || k == btf.KindDatasec {
			continue
		}
		members[class[i]] = append(members[class[i]], first+btf.TypeID(i))
	}
	var dups [][]btf.TypeID
	for c := range classes {
		if len(members[c]) > 1 {
			dups = append(dups, members[c])
		}
	}
	return dups
}

func intern(ids map[string]int, key string) int {
	c, ok := ids[key]
	if !ok {
		c = len(ids)
		ids[key] = c
	}
	return c
}

// checkDedupProperties deduplicates in with opts and checks the three
// properties.
func checkDedupProperties(t *testing.T, in *btf.Spec, opts Options) {
	t.Helper()
	d, out, _, err := run(in, opts)
	if err != nil {
		t.Fatalf("dedup: %v", err)
	}
	// Work on the re-decoded bytes: that is what gets written.
	outBytes := out.Marshal(binary.LittleEndian)
	out, err = btf.Parse(outBytes, in.Base())
	if err != nil {
		t.Fatalf("result does not decode: %v", err)
	}

	checkExact(t, out, opts)
	checkNothingLost(t, d, in, out)
}

// checkExact checks properties 1 and 2 on a deduplicated Spec.
func checkExact(t *testing.T, out *btf.Spec, opts Options) {
	t.Helper()
	again, _, err := Dedup(out, opts)
	if err != nil {
		t.Fatalf("second dedup: %v", err)
	}
	if a, b := dump(t, out), dump(t, again); a != b {
		t.Errorf("not idempotent: %d types after one pass, %d after two\n%s",
			out.NumTypes(), again.NumTypes(), testutil.FirstDiff(a, b))
	}

	if dups := structuralDuplicates(out); len(dups) > 0 {
		var b strings.Builder
		for _, c := range dups {
			for _, id := range c {
				b.Write(out.AppendDump(nil, id))
			}
			b.WriteString("--\n")
		}
		t.Errorf("%d classes of structurally equal types left:\n%s", len(dups), b.String())
	}

}

// checkNothingLost checks property 3: d deduplicated in into out.
func checkNothingLost(t *testing.T, d *deduper, in, out *btf.Spec) {
	t.Helper()
	assumed := map[[2]btf.TypeID]bool{}
	for i := range in.NumTypes() {
		id := in.FirstID() + btf.TypeID(i)
		m := btf.TypeID(d.mappedID(uint32(id)))
		if m > out.TypeCount() {
			t.Fatalf("type %d maps to %d, out of range", id, m)
		}
		if !sameUpToDecls(in, id, out, m, assumed) {
			t.Fatalf("type %d maps to %d of another structure:\n  in:  %s  out: %s",
				id, m, in.AppendDump(nil, id), out.AppendDump(nil, m))
		}
	}
}

// TestDedupProperties checks the properties on a range of generated inputs
// in both libbpf modes; FuzzDedupProperties explores further.
func TestDedupProperties(t *testing.T) {
	n := uint64(300)
	if testing.Short() {
		n = 30
	}
	for seed := range n {
		in := reparse(t, genInputIn(seed, 1+int(seed%8), 1+int(seed*7%40), true), nil)
		for _, legacy := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed%d-legacy=%v", seed, legacy), func(t *testing.T) {
				checkDedupProperties(t, in, Options{Libbpf112: legacy})
			})
		}
	}
}

// FuzzDedupProperties checks the properties on generated type graphs of
// fuzzer-chosen seed and size.
func FuzzDedupProperties(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(6), false)
	f.Add(uint64(7), uint8(6), uint8(20), true)
	f.Fuzz(func(t *testing.T, seed uint64, units, structs uint8, legacy bool) {
		in := reparse(t, genInputIn(seed, 1+int(units%8), 1+int(structs%40), true), nil)
		checkDedupProperties(t, in, Options{Libbpf112: legacy})
	})
}
