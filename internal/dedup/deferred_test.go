package dedup

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestDeferredStrings checks the string pass run beside the other passes
// (deferred.go) against the string pass run first, on inputs where the old
// offsets may stand for the strings and on inputs where they may not. The
// output must be byte for byte the same either way, and the deferred run
// must start again (StringsRerun) exactly when a compared name has a second
// offset or a non-zero offset names the empty string.
func TestDeferredStrings(t *testing.T) {
	// input makes int, struct s { int x; }, a second struct s, a VAR v of
	// int, and an anonymous struct { int x; } twice; rename then changes
	// name words, given the offset of "q\x00" in the table (which has "v"
	// at +1 and the empty string at +2, neither at the start of a string).
	input := func(t *testing.T, rename func(s *btf.Spec, q uint32)) *btf.Spec {
		s := btf.NewSpec(nil)
		q := s.AddString("qv")
		i := s.AddInt("int", 4, btf.IntSigned, 32)
		s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", i, 0)})
		s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", i, 0)})
		s.AddVar("v", i, 1)
		s.AddStruct(false, "", 4, []btf.MemberSpec{mem("x", i, 0)})
		s.AddStruct(false, "", 4, []btf.MemberSpec{mem("x", i, 0)})
		if rename != nil {
			rename(s, q)
		}
		return reparse(t, s, nil)
	}
	name := func(id btf.TypeID, off uint32) func(*btf.Spec, uint32) {
		return func(s *btf.Spec, q uint32) { s.Type(id)[0] = q + off }
	}
	tests := []struct {
		name   string
		rename func(s *btf.Spec, q uint32)
		rerun  bool
	}{
		{"one offset per string", nil, false},
		// the second struct named "v" by the VAR's offset, and the VAR
		// by q+1: VAR names are never compared.
		{"second offset for a VAR name", func(s *btf.Spec, q uint32) {
			s.Type(3)[0] = s.Type(4)[0]
			s.Type(4)[0] = q + 1
		}, false},
		// the two structs named "v", one through q+1 and one through
		// a string of its own: merged only after the string pass.
		{"second offset for a struct name", func(s *btf.Spec, q uint32) {
			s.Type(2)[0] = q + 1
			s.Type(3)[0] = s.AddString("v")
		}, true},
		// the first anonymous struct named by a non-zero offset of "":
		// anonymous, and merged with the second, only after the string
		// pass.
		{"empty string at a non-zero offset", name(5, 2), true},
		{"empty string naming a VAR only", name(4, 2), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, _, err := Dedup(input(t, tt.rename), Options{Workers: 2, serialStrings: true})
			if err != nil {
				t.Fatal(err)
			}
			got, st, err := Dedup(input(t, tt.rename), Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if st.StringsRerun != tt.rerun {
				t.Errorf("StringsRerun = %v, want %v", st.StringsRerun, tt.rerun)
			}
			if !bytes.Equal(u32Bytes(got.Words()), u32Bytes(want.Words())) ||
				!bytes.Equal(got.Strings().Bytes(), want.Strings().Bytes()) {
				t.Errorf("deferred string pass gives\n%s\nwant\n%s", dump(t, got), dump(t, want))
			}
		})
	}
}

// u32Bytes returns the words as little-endian bytes, for comparison.
func u32Bytes(w []uint32) []byte {
	b := make([]byte, 0, 4*len(w))
	for _, x := range w {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	return b
}

// TestDeferredStringsPassError checks that a deferred run whose passes fail
// on an input whose offsets were not fit to compare leaves the answer to the
// serial order (errStringsShared) rather than reporting its own error: its
// passes decided on names that are not the input's strings.
func TestDeferredStringsPassError(t *testing.T) {
	s := btf.NewSpec(nil)
	q := s.AddString("qs")
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	v1 := s.AddVar("v", i, 0)
	s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", v1, 0)})
	v2 := s.AddVar("v", i, 0)
	s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", v2, 0)}) // compared with the first: a VAR in a graph
	s.AddStruct(false, "t", 4, nil)
	s.Type(v2 + 2)[0] = q + 1 // a second offset of "s"
	in := reparse(t, s, nil)
	_, _, _, err := runOn(in, append([]uint32(nil), in.Words()...), Options{Workers: 2}, true)
	if err != errStringsShared {
		t.Errorf("deferred run: error %v, want errStringsShared", err)
	}
	if _, _, err := Dedup(in, Options{Workers: 2}); err == nil || !strings.Contains(err.Error(), "cannot compare") {
		t.Errorf("Dedup: error %v, want the serial order's", err)
	}
}
