package encoder

import (
	"slices"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
)

// TestPaholeStringOrder runs the deduplication with string marks on small
// inputs and checks applyPaholeOrder's table against the order pahole adds
// strings in, spelled out by hand for each case, and that every type still
// names the same strings.
func TestPaholeStringOrder(t *testing.T) {
	type unit struct {
		structs []string // struct NAME with int members MEMBERS: "name:m1,m2"
		saved   []string // the unit's saved-function strings
	}
	tests := []struct {
		name  string
		base  []string // names of structs in the base (split input when set)
		units []unit
		want  string // the own strings, space-separated
	}{
		{"worked example", nil, []unit{{[]string{"a:x"}, []string{"y"}}, {[]string{"b:y,z"}, nil}},
			"int a x y b z"},
		{"saved string named before", nil, []unit{{[]string{"a:x"}, []string{"x", "a"}}}, "int a x"},
		{"saved strings of two units", nil, []unit{{[]string{"a:x"}, []string{"p", "q"}}, {[]string{"b:q"}, []string{"r", "p"}}},
			"int a x p q b r"},
		{"unit without types", nil, []unit{{nil, []string{"p"}}, {[]string{"a:p"}, nil}}, "p int a"},
		{"split: base strings stay the base's", []string{"a", "y"}, []unit{{[]string{"a:x"}, []string{"y", "w"}}, {[]string{"c:w"}, nil}},
			"int x w c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var base *btf.Spec
			if tc.base != nil {
				base = btf.NewSpec(nil)
				for _, n := range tc.base {
					base.AddStruct(false, n, 0, nil)
				}
			}
			joined := btf.NewSpec(nil)
			saved := &savedStrings{}
			for _, u := range tc.units {
				part := btf.NewSpec(nil)
				for _, s := range u.structs {
					name, members, _ := strings.Cut(s, ":")
					i := part.AddInt("int", 4, btf.IntSigned, 32)
					var ms []btf.MemberSpec
					for k, m := range strings.Split(members, ",") {
						ms = append(ms, btf.MemberSpec{Name: m, Type: i, BitOffset: uint32(32 * k)})
					}
					part.AddStruct(false, name, uint32(4*len(ms)), ms)
				}
				shift, _ := joined.AppendSpec(part)
				if len(u.saved) > 0 {
					saved.add(shift+btf.TypeID(part.NumTypes())+1, u.saved)
				}
			}
			in := joined
			if base != nil {
				in, _ = btf.RebaseInPlace(joined, base)
				saved.shift(btf.TypeID(base.TypeCount()))
			}
			names := typeNames(in)
			out, st, err := dedup.Dedup(in, dedup.Options{StringMarks: saved.at})
			if err != nil {
				t.Fatal(err)
			}
			if err := applyPaholeOrder(out, saved, st.StringMarks); err != nil {
				t.Fatal(err)
			}
			got := strings.Fields(strings.ReplaceAll(string(out.Strings().Bytes()), "\x00", " "))
			if strings.Join(got, " ") != tc.want {
				t.Errorf("strings %q, want %q", got, tc.want)
			}
			// Deduplication merged the ints; every surviving type's
			// names are among those of the input.
			for _, n := range typeNames(out) {
				if !slices.Contains(names, n) {
					t.Errorf("type names %q after the reordering, not in the input's %q", n, names)
				}
			}
		})
	}
}

// typeNames lists the names of s's own types and their members, as
// "name/member,member".
func typeNames(s *btf.Spec) []string {
	var out []string
	for i := range s.NumTypes() {
		t := s.Own(i)
		var parts []string
		t.ForEachStrRef(func(p *uint32) { parts = append(parts, s.Strings().String(*p)) })
		out = append(out, parts[0]+"/"+strings.Join(parts[1:], ","))
	}
	return out
}
