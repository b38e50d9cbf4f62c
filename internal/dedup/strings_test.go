package dedup

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestDedupStrings checks the string pass on its own terms: every distinct
// string that some type references gets exactly one offset, strings nothing
// references are dropped, and the order is that of first reference.
func TestDedupStrings(t *testing.T) {
	part := func(unused string) *btf.Spec {
		s := btf.NewSpec(nil)
		s.AddString(unused)
		i := s.AddInt("int", 4, btf.IntSigned, 32)
		s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", i, 0)})
		return s
	}
	// Concat appends each part's string bytes as they are, so "int", "s"
	// and "x" occur twice, besides the unused strings.
	in := concat([]*btf.Spec{part("unused1"), part("unused2")})
	if got := string(in.Strings().Bytes()); got != "\x00unused1\x00int\x00s\x00x\x00unused2\x00int\x00s\x00x\x00" {
		t.Fatalf("test input has strings %q", got)
	}
	out, st, err := Dedup(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out.Strings().Bytes()), "\x00int\x00s\x00x\x00"; got != want {
		t.Errorf("strings = %q, want %q", got, want)
	}
	if st.StringsIn != len(in.Strings().Bytes()) || st.StringsOut != len(out.Strings().Bytes()) {
		t.Errorf("stats report %d -> %d string bytes", st.StringsIn, st.StringsOut)
	}
	if out.NumTypes() != 2 {
		t.Errorf("got %d types, want 2", out.NumTypes())
	}
}

// TestDedupStringsSplit checks that a split string equal to a base string is
// given the base offset and that the split table holds only new strings.
func TestDedupStringsSplit(t *testing.T) {
	b := btf.NewSpec(nil)
	b.AddInt("int", 4, btf.IntSigned, 32)
	base := reparse(t, b, nil)
	s := btf.NewSpec(nil)
	s.AddInt("int", 4, 0, 32)
	s.AddInt("char", 1, 0, 8)
	in := rebase(s, base) // strings not interned against the base
	out, _, err := Dedup(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	intOff, _ := base.Strings().Find("int")
	if got := out.Type(out.FirstID())[0]; got != intOff {
		t.Errorf("split INT's name offset %d, want the base offset %d", got, intOff)
	}
	if got := string(out.Strings().Bytes()); got != "char\x00" {
		t.Errorf("split strings = %q, want %q", got, "char\x00")
	}
}

// TestDedupInPlace checks that without InPlace the input is untouched and
// that with it the result is the same.
func TestDedupInPlace(t *testing.T) {
	mk := func() *btf.Spec {
		s := btf.NewSpec(nil)
		for range 3 {
			i := s.AddInt("int", 4, btf.IntSigned, 32)
			p := s.AddRef(btf.KindPtr, "", i+2)
			s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("a", i, 0), mem("p", p, 32)})
		}
		return reparse(t, s, nil)
	}
	in := mk()
	before := dump(t, in)
	a, _, err := Dedup(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if dump(t, in) != before {
		t.Error("Dedup without InPlace modified its input")
	}
	b, _, err := Dedup(mk(), Options{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if dump(t, a) != dump(t, b) || a.NumTypes() != 3 {
		t.Errorf("in-place result differs or has %d types:\n%s\n%s", a.NumTypes(), dump(t, a), dump(t, b))
	}
}

// TestDedupDiscard checks that handing the input and the working memory back
// (Discard) leaves the output as it is without, also once the garbage
// collector has run and new allocations may have reused freed memory while
// the pages were being emptied.
func TestDedupDiscard(t *testing.T) {
	in := reparse(t, genInput(7, 400, 30), nil)
	want, _, err := Dedup(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantBytes := want.Marshal(binary.LittleEndian)
	for round := range 5 {
		got, _, err := Dedup(reparse(t, genInput(7, 400, 30), nil), Options{InPlace: true, Discard: true})
		if err != nil {
			t.Fatal(err)
		}
		var junk [][]byte
		for range 20 {
			runtime.GC()
			junk = append(junk, bytes.Repeat([]byte{0xa5}, 1<<16))
		}
		if !bytes.Equal(got.Marshal(binary.LittleEndian), wantBytes) {
			t.Fatalf("round %d: output with Discard differs", round)
		}
		for _, j := range junk {
			if j[len(j)/2] != 0xa5 {
				t.Fatalf("round %d: an allocation made after Dedup was emptied", round)
			}
		}
	}
}
