package btf

import (
	"strings"
	"testing"
)

// TestRelocate distills a split BTF from one base and relocates it onto
// another, checking where each distilled type lands or why it cannot.
func TestRelocate(t *testing.T) {
	ints := func(sizes ...uint32) func() *Spec {
		return func() *Spec {
			b := NewSpec(nil)
			for _, sz := range sizes {
				b.AddInt("int", sz, IntSigned, uint8(8*sz))
			}
			return b
		}
	}
	emb := func(size uint32) func() *Spec {
		return func() *Spec {
			b := NewSpec(nil)
			i := b.AddInt("int", 4, IntSigned, 32)
			b.AddStruct(false, "emb", size, []MemberSpec{{Name: "a", Type: i}})
			return b
		}
	}
	tests := []struct {
		name  string
		from  func() *Spec           // base the split is built on
		split func(base *Spec) *Spec // split on from, IDs after from's
		onto  func() *Spec           // base to relocate onto
		want  []string               // relocated dump
		err   string                 // or the error
		noDst func(dist *Spec) *Spec // replaces the distilled base, if set
	}{
		{
			name: "same-named ints told apart by size",
			from: ints(4, 8),
			split: func(b *Spec) *Spec {
				s := NewSpec(b)
				s.AddRef(KindPtr, "", 1)
				s.AddRef(KindConst, "", 2)
				return s
			},
			onto: ints(8, 4),
			want: []string{"[3] PTR '(anon)' type_id=2", "[4] CONST '(anon)' type_id=1"},
		},
		{
			name: "missing type",
			from: ints(4, 8),
			split: func(b *Spec) *Spec {
				s := NewSpec(b)
				s.AddRef(KindPtr, "", 1)
				s.AddRef(KindConst, "", 2)
				return s
			},
			onto: ints(4),
			err:  "[2] INT \"int\" matches no base type",
		},
		{
			name: "two candidates of the same size",
			from: ints(4),
			split: func(b *Spec) *Spec {
				s := NewSpec(b)
				s.AddRef(KindPtr, "", 1)
				return s
			},
			onto: ints(4, 4),
			err:  "matches base types [1] and [2]",
		},
		{
			name: "embedded struct of another size",
			from: emb(4),
			split: func(b *Spec) *Spec {
				s := NewSpec(b)
				td := s.AddRef(KindTypedef, "emb_t", 2)
				arr := s.AddArray(td, 1, 2)
				s.AddStruct(false, "outer", 8, []MemberSpec{{Name: "e", Type: arr}})
				return s
			},
			onto: emb(8),
			err:  "STRUCT \"emb\" matches no base type",
		},
		{
			name: "struct behind a pointer may change size",
			from: emb(4),
			split: func(b *Spec) *Spec {
				s := NewSpec(b)
				p := s.AddRef(KindPtr, "", 2)
				s.AddStruct(false, "outer", 8, []MemberSpec{{Name: "e", Type: p}})
				return s
			},
			onto: emb(8),
			want: []string{"[3] PTR '(anon)' type_id=2", "[4] STRUCT 'outer' size=8 vlen=1", "\t'e' type_id=3 bits_offset=0"},
		},
		{
			name: "forward declaration onto a struct",
			from: func() *Spec { b := NewSpec(nil); b.AddFwd("opaque", false); return b },
			split: func(b *Spec) *Spec {
				s := NewSpec(b)
				s.AddRef(KindPtr, "", 1)
				return s
			},
			onto: func() *Spec {
				b := NewSpec(nil)
				b.AddInt("int", 4, IntSigned, 32)
				b.AddStruct(false, "opaque", 16, nil)
				return b
			},
			want: []string{"[3] PTR '(anon)' type_id=2"},
		},
		{
			name: "distilled base holding a pointer",
			from: ints(4),
			split: func(b *Spec) *Spec {
				s := NewSpec(b)
				s.AddRef(KindConst, "", 1)
				return s
			},
			noDst: func(*Spec) *Spec {
				b := NewSpec(nil)
				b.AddRef(KindPtr, "", 0)
				return b
			},
			onto: ints(4),
			err:  "kind PTR, which a distilled base cannot hold",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, split, err := DistillBase(tc.split(tc.from()))
			if err != nil {
				t.Fatal(err)
			}
			if tc.noDst != nil {
				split.base = tc.noDst(base)
			}
			rel, err := Relocate(split, tc.onto())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkDump(t, "relocated", rel, tc.want)
		})
	}
}
