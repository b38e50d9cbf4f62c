package dedup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestDedupErrorOrder checks which error bad input gets, whatever the number
// of workers: with several, the setup of the own types and the string pass
// run side by side (or the string pass beside the struct pass), and a
// reference beyond the last type (setup) must still be reported before a bad
// string offset (string pass), and that before an error of a later pass, as
// when they run one after the other.
func TestDedupErrorOrder(t *testing.T) {
	intT := func(s *btf.Spec, name uint32) { s.MustAppend(name, btf.Info(btf.KindInt, false, 0), 4, 32) }
	ptrT := func(s *btf.Spec, to uint32) { s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), to) }
	for _, tc := range []struct {
		name  string
		build func(s *btf.Spec)
		want  string
	}{
		{"bad reference", func(s *btf.Spec) { intT(s, s.AddString("int")); ptrT(s, 99) }, "references a type beyond the last type"},
		{"bad string offset", func(s *btf.Spec) { intT(s, 1<<20); ptrT(s, 1) }, "string offset 1048576 out of range"},
		{"both: the reference first", func(s *btf.Spec) { intT(s, 1<<20); ptrT(s, 99) }, "references a type beyond the last type"},
		// The struct pass fails on a VAR inside a compared graph; with
		// the string pass beside it (deferred.go), the bad string offset
		// must still be reported first.
		{"bad string offset and a VAR in a struct", func(s *btf.Spec) {
			intT(s, 1<<20)
			v := s.AddVar("v", 1, 0)
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", v, 0)})
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", v+3, 0)})
			s.AddVar("v", 1, 0)
		}, "string offset 1048576 out of range"},
		{"a VAR in a struct", func(s *btf.Spec) {
			intT(s, s.AddString("int"))
			v := s.AddVar("v", 1, 0)
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", v, 0)})
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", v+3, 0)})
			s.AddVar("v", 1, 0)
		}, "cannot compare type"},
	} {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				s := btf.NewSpec(nil)
				tc.build(s)
				_, _, err := Dedup(s, Options{Workers: workers})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want one containing %q", err, tc.want)
				}
			})
		}
	}
}
