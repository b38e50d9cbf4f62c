package btf

import (
	"slices"
	"testing"
)

// TestAppendWords checks that types written through AppendWords read back
// as the same words as types given to Append, including in storage that a
// Reset left holding older types' words.
func TestAppendWords(t *testing.T) {
	types := [][]uint32{
		{1, Info(KindInt, false, 0), 4, IntWord(IntSigned, 0, 32)},
		{0, Info(KindPtr, false, 0), 1},
		{0, Info(KindStruct, false, 2), 8, 1, 1, 0, 1, 2, 32},
		{0, Info(KindFuncProto, false, 1), 1, 0, 2},
	}
	for _, reset := range []bool{false, true} {
		s := NewSpec(nil)
		if reset {
			// Leave other words behind in the storage the types reuse.
			for range 3 {
				s.MustAppend(0, Info(KindStruct, false, 3), 99, 9, 9, 9, 9, 9, 9, 9, 9, 9)
			}
			s.Reset()
		}
		want := NewSpec(nil)
		for _, w := range types {
			copy(s.AppendWords(len(w)), w)
			want.MustAppend(w...)
		}
		if s.TypeCount() != want.TypeCount() {
			t.Fatalf("reset %v: %d types, want %d", reset, s.TypeCount(), want.TypeCount())
		}
		for id := TypeID(1); id <= want.TypeCount(); id++ {
			if got, w := s.Type(id), want.Type(id); !slices.Equal(got, w) {
				t.Errorf("reset %v: type %d is %v, want %v", reset, id, got, w)
			}
		}
	}
}

// TestAppendBlank copies a Spec's types into another through AppendBlank,
// in two calls, and checks that they read back the same.
func TestAppendBlank(t *testing.T) {
	src := NewSpec(nil)
	for _, w := range [][]uint32{
		{1, Info(KindInt, false, 0), 4, IntWord(IntSigned, 0, 32)},
		{0, Info(KindStruct, false, 2), 8, 1, 1, 0, 1, 2, 32},
		{0, Info(KindPtr, false, 0), 2},
		{0, Info(KindFuncProto, false, 1), 1, 0, 3},
	} {
		src.MustAppend(w...)
	}
	dst := NewSpec(nil)
	dst.MustAppend(0, Info(KindPtr, false, 0), 0) // a type already there
	for _, ids := range [][]TypeID{{1, 2}, {3, 4}} {
		n := 0
		for _, id := range ids {
			n += len(src.Type(id))
		}
		offs, ws, base := dst.AppendBlank(len(ids), n)
		w := 0
		for k, id := range ids {
			offs[k] = base + uint32(w)
			w += copy(ws[w:], src.Type(id))
		}
	}
	if dst.TypeCount() != 5 {
		t.Fatalf("%d types, want 5", dst.TypeCount())
	}
	for id := TypeID(1); id <= 4; id++ {
		if got, want := dst.Type(id+1), src.Type(id); !slices.Equal(got, want) {
			t.Errorf("type %d is %v, want %v", id+1, got, want)
		}
	}
}
