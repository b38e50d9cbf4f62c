package merge

import (
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestMerge: types two modules define alike become one, types they define
// differently stay apart, and a module's copy of a base type becomes the
// base type.
func TestMerge(t *testing.T) {
	base := btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	base.AddStruct(false, "shared", 4, []btf.MemberSpec{{Name: "x", Type: i}})
	mod := func(member string) *btf.Spec {
		s := btf.NewSpec(base)
		s.AddStruct(false, "shared", 4, []btf.MemberSpec{{Name: "x", Type: i}}) // the base's
		s.AddStruct(false, "own", 4, []btf.MemberSpec{{Name: member, Type: i}})
		return s
	}
	for _, tc := range []struct {
		name    string
		members []string
		want    []string // the names of the merged types after the base's
	}{
		{"alike", []string{"a", "a"}, []string{"own"}},
		{"different", []string{"a", "b"}, []string{"own", "own"}},
		{"one", []string{"a"}, []string{"own"}},
		{"none", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mods []*btf.Spec
			for _, m := range tc.members {
				mods = append(mods, mod(m))
			}
			out, _, err := Merge(base, mods)
			if err != nil {
				t.Fatal(err)
			}
			if out.Base() != nil {
				t.Fatal("the merge is split BTF")
			}
			var got []string
			for k := base.NumTypes(); k < out.NumTypes(); k++ {
				got = append(got, out.Name(out.Own(k)))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("merged types after the base's: %q, want %q", got, tc.want)
			}
			for k := range got {
				if got[k] != tc.want[k] {
					t.Fatalf("merged types after the base's: %q, want %q", got, tc.want)
				}
			}
		})
	}
}
