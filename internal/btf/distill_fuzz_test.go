package btf

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzDistillBase decodes split BTF on the distillation tests' base, distills
// its base and relocates the result back. Neither step may panic or loop on
// any input. For input the kernel's rules accept, the distilled split must be
// accepted too (unless nothing of the base is referenced), and relocation must give back every original split type:
// the same words, the same strings, and each reference either the original
// one or, for a base type copied into the split, a copy of the same kind and
// name. (Every distilled type of this base has exactly one counterpart, so
// relocation cannot fail.)
func FuzzDistillBase(f *testing.F) {
	full := distillBase()
	f.Add(distillSplit(full).Marshal(binary.LittleEndian))
	small := NewSpec(full)
	small.AddRef(KindPtr, "", 4)
	small.AddStruct(false, "s", 8, []MemberSpec{{Name: "a", Type: 23}, {Name: "e1", Type: 13, BitOffset: 32}})
	f.Add(small.Marshal(binary.LittleEndian))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, full)
		if err != nil {
			return
		}
		base, split, err := DistillBase(s)
		if err != nil {
			return
		}
		rel, relErr := Relocate(split, full)
		if s.NumTypes() == 0 || s.Validate() != nil {
			return // (no types at all: nothing the kernel would load)
		}
		// A split that references no base type at all distills to an empty
		// base, as with libbpf's btf__distill_base; the kernel's rule that
		// base BTF has types refuses that pair whoever made it. (Found by
		// this target: testdata/fuzz/FuzzDistillBase/b13688e976440744.)
		if err := split.Validate(); err != nil && base.NumTypes() > 0 {
			t.Fatalf("the input is valid, the distilled split is not: %v", err)
		}
		if _, err := Parse(base.Marshal(binary.LittleEndian), nil); err != nil {
			t.Fatalf("the distilled base does not decode: %v", err)
		}
		if relErr != nil {
			t.Fatalf("relocating: %v", relErr)
		}
		if rel.FirstID() != s.FirstID() {
			t.Fatalf("relocated split starts at [%d], the input at [%d]", rel.FirstID(), s.FirstID())
		}
		for i := range s.NumTypes() {
			checkRelocatedType(t, s, rel, full, s.FirstID()+TypeID(i))
		}
	})
}

// checkRelocatedType compares type id of the input split s with the same ID
// after distilling and relocating (rel).
func checkRelocatedType(t *testing.T, s, rel, full *Spec, id TypeID) {
	t.Helper()
	a, b := s.Type(id), rel.Type(id)
	var aRefs, bRefs, aStrs, bStrs []uint32
	a2, b2 := slices.Clone(a), slices.Clone(b)
	Type(a2).ForEachTypeRef(func(w *uint32) { aRefs = append(aRefs, *w); *w = 0 })
	Type(b2).ForEachTypeRef(func(w *uint32) { bRefs = append(bRefs, *w); *w = 0 })
	Type(a2).ForEachStrRef(func(w *uint32) { aStrs = append(aStrs, *w); *w = 0 })
	Type(b2).ForEachStrRef(func(w *uint32) { bStrs = append(bStrs, *w); *w = 0 })
	if !slices.Equal(a2, b2) || len(aRefs) != len(bRefs) || len(aStrs) != len(bStrs) {
		t.Fatalf("[%d] changed: %08x became %08x", id, a, b)
	}
	for k := range aStrs {
		if x, y := s.Strings().String(aStrs[k]), rel.Strings().String(bStrs[k]); x != y {
			t.Fatalf("[%d] string %d: %q became %q", id, k, x, y)
		}
	}
	copied := s.TypeCount() // relocated IDs above this are copies of base types
	for k, was := range aRefs {
		now := bRefs[k]
		if now == was {
			continue
		}
		orig, cp := full.Type(was), rel.Type(now)
		if was >= s.FirstID() || now <= copied || orig.Kind() != cp.Kind() || full.Name(orig) != rel.Name(cp) {
			t.Fatalf("[%d] reference %d: [%d] became [%d]", id, k, was, now)
		}
	}
}
