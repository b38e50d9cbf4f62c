package btf_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// render describes a type with its references resolved to names, so that
// types can be compared across Specs whose IDs and offsets differ.
func render(s *btf.Spec, id btf.TypeID) string {
	t := s.Type(id)
	var b bytes.Buffer
	b.WriteString(t.Kind().String() + " " + s.Name(t))
	t = append(btf.Type(nil), t...) // work on a copy
	t.ForEachStrRef(func(p *uint32) { b.WriteString(" '" + s.Strings().String(*p) + "'") })
	t.ForEachTypeRef(func(p *uint32) {
		if *p == 0 {
			b.WriteString(" ->void")
		} else {
			b.WriteString(" ->" + s.Type(*p).Kind().String() + ":" + s.Name(s.Type(*p)))
		}
	})
	return b.String()
}

func TestConcat(t *testing.T) {
	a := btf.NewSpec(nil)
	ai := a.AddInt("int", 4, btf.IntSigned, 32)
	a.AddStruct(false, "pair", 8, []btf.MemberSpec{{Name: "x", Type: ai}, {Name: "y", Type: ai, BitOffset: 32}})
	a.AddRef(btf.KindPtr, "", 0)

	b := btf.NewSpec(nil)
	bc := b.AddInt("char", 1, btf.IntSigned, 8)
	bs := b.AddStruct(false, "pair", 2, []btf.MemberSpec{{Name: "x", Type: bc}, {Name: "", Type: bc, BitOffset: 8}})
	b.AddFuncProto(bs, []btf.ParamSpec{{Name: "p", Type: bs}, {}})

	empty := btf.NewSpec(nil)
	out := concat([]*btf.Spec{a, empty, b})
	if got, want := out.NumTypes(), a.NumTypes()+b.NumTypes(); got != want {
		t.Fatalf("%d types, want %d", got, want)
	}
	var want, got []string
	for id := btf.TypeID(1); id <= a.TypeCount(); id++ {
		want = append(want, render(a, id))
	}
	for id := btf.TypeID(1); id <= b.TypeCount(); id++ {
		want = append(want, render(b, id))
	}
	for id := btf.TypeID(1); id <= out.TypeCount(); id++ {
		got = append(got, render(out, id))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("type %d: got %q, want %q", i+1, got[i], want[i])
		}
	}
	// A single part comes back byte for byte.
	one := concat([]*btf.Spec{b})
	if !bytes.Equal(one.Marshal(one.ByteOrder()), b.Marshal(b.ByteOrder())) {
		t.Error("Concat of one part is not identical to it")
	}
}

func TestRebase(t *testing.T) {
	base := btf.NewSpec(nil)
	base.AddInt("long", 8, btf.IntSigned, 64)
	base.AddStruct(false, "task_struct", 8, []btf.MemberSpec{{Name: "pid", Type: 1}})

	for _, tc := range []struct {
		name   string
		rebase func(s, base *btf.Spec) (*btf.Spec, error)
	}{{"copy", btf.Rebase}, {"in place", btf.RebaseInPlace}} {
		t.Run(tc.name, func(t *testing.T) {
			mod := btf.NewSpec(nil)
			mi := mod.AddInt("int", 4, btf.IntSigned, 32)
			ms := mod.AddStruct(false, "xfs_inode", 4, []btf.MemberSpec{{Name: "i_ino", Type: mi}})
			mod.AddRef(btf.KindPtr, "", ms)
			mod.AddFuncProto(0, []btf.ParamSpec{{Name: "ip", Type: ms + 1}})
			orig := mod.Clone() // RebaseInPlace consumes mod

			split, err := tc.rebase(mod, base)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tc.rebase(split, base); err == nil {
				t.Error("a split Spec was rebased")
			}
			if split.FirstID() != base.TypeCount()+1 || split.NumTypes() != orig.NumTypes() {
				t.Fatalf("first ID %d, %d types", split.FirstID(), split.NumTypes())
			}
			for id := btf.TypeID(1); id <= orig.TypeCount(); id++ {
				want := render(orig, id)
				if got := render(split, id+base.TypeCount()); got != want {
					t.Errorf("type %d: got %q, want %q", id, got, want)
				}
			}
			// The split blob decodes on the base to the same types.
			again, err := btf.Parse(split.Marshal(split.ByteOrder()), base)
			if err != nil {
				t.Fatal(err)
			}
			for id := split.FirstID(); id <= split.TypeCount(); id++ {
				if render(again, id) != render(split, id) {
					t.Errorf("type %d changed in the encode/decode round trip", id)
				}
			}
		})
	}
}

// TestAppendSpec checks that appending parts one by one gives the same types
// as Concat, with each distinct string stored once.
func TestAppendSpec(t *testing.T) {
	mk := func(names ...string) *btf.Spec {
		s := btf.NewSpec(nil)
		i := s.AddInt("int", 4, btf.IntSigned, 32)
		for _, n := range names {
			s.AddStruct(false, n, 4, []btf.MemberSpec{{Name: "field", Type: i}})
		}
		s.AddRef(btf.KindPtr, "", i+1)
		return s
	}
	parts := []*btf.Spec{mk("a", "b"), btf.NewSpec(nil), mk("b", "c")}
	want := concat(parts)
	got := btf.NewSpec(nil)
	for _, p := range parts {
		got.AppendSpec(p)
	}
	if got.NumTypes() != want.NumTypes() {
		t.Fatalf("%d types, want %d", got.NumTypes(), want.NumTypes())
	}
	for id := btf.TypeID(1); id <= want.TypeCount(); id++ {
		if render(got, id) != render(want, id) {
			t.Errorf("type %d: %q, want %q", id, render(got, id), render(want, id))
		}
	}
	if n, want := len(got.Strings().Bytes()), len("\x00int\x00a\x00field\x00b\x00c\x00"); n != want {
		t.Errorf("string section %q: %d bytes, want %d", got.Strings().Bytes(), n, want)
	}
}

// TestJoinAllKinds joins two copies of the every-kind Spec of the dump
// tests, with AppendSpec and with Concat, and checks every reference of the
// second copy against the part it came from: type IDs moved by the first
// copy's count, strings the same.
func TestJoinAllKinds(t *testing.T) {
	ak := buildAllKinds()
	part := ak.s
	shift := part.TypeCount()
	// AppendSpec takes offsets of whole strings, as conversion makes
	// them; these three names are deliberately not.
	odd := map[btf.TypeID]bool{}
	for _, name := range []string{"badname", "emptyname", "suffixname"} {
		odd[ak.ids[name]] = true
	}
	refs := func(s *btf.Spec, id, shift btf.TypeID) string {
		var strs []string
		var ids []btf.TypeID
		t := append(btf.Type(nil), s.Type(id)...)
		t.ForEachStrRef(func(p *uint32) { strs = append(strs, s.Strings().String(*p)) })
		t.ForEachTypeRef(func(p *uint32) {
			if *p != 0 {
				*p -= shift
			}
			ids = append(ids, *p)
		})
		return fmt.Sprintf("%s %q %v", t.Kind(), strs, ids)
	}
	for _, tc := range []struct {
		name string
		join func(parts []*btf.Spec) *btf.Spec
	}{
		{"AppendSpec", func(parts []*btf.Spec) *btf.Spec {
			out := btf.NewSpec(nil)
			for _, p := range parts {
				out.AppendSpec(p)
			}
			return out
		}},
		{"Concat", concat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.join([]*btf.Spec{buildAllKinds().s, part})
			if got.TypeCount() != 2*shift {
				t.Fatalf("%d types, want %d", got.TypeCount(), 2*shift)
			}
			for id := btf.TypeID(1); id <= shift; id++ {
				if odd[id] {
					continue
				}
				if g, w := refs(got, id+shift, shift), refs(part, id, 0); g != w {
					t.Errorf("type %d: %s, want %s", id+shift, g, w)
				}
			}
		})
	}
}

// concat is btf.Concat on standalone Specs, which cannot fail.
func concat(parts []*btf.Spec) *btf.Spec {
	s, err := btf.Concat(parts)
	if err != nil {
		panic(err)
	}
	return s
}
