package cdump_test

import (
	"io"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/cdump"
)

// fuzzSeed builds a small Spec with every kind the printer walks: bitfields,
// an anonymous union, a self-referential struct, typedef chains, a function
// pointer with varargs, arrays of arrays, both enum kinds, a forward
// declaration, qualifiers and a type tag.
func fuzzSeed() *btf.Spec {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)                                                  // 1
	c := s.AddInt("char", 1, btf.IntChar, 8)                                                    // 2
	l := s.AddInt("long", 8, btf.IntSigned, 64)                                                 // 3
	u := s.AddStruct(true, "", 8, []btf.MemberSpec{{Name: "a", Type: i}, {Name: "b", Type: c}}) // 4
	st := s.AddStruct(false, "s", 32, []btf.MemberSpec{
		{Name: "x", Type: i, BitfieldSize: 3},
		{Name: "y", Type: i, BitOffset: 3, BitfieldSize: 9},
		{Name: "", Type: u, BitOffset: 64},
		{Name: "next", Type: 7, BitOffset: 128},
		{Name: "grid", Type: 9, BitOffset: 192},
	}) // 5
	_ = st
	s.MustAppend(s.AddString("s_t"), btf.Info(btf.KindTypedef, false, 0), 5)   // 6
	s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 6)                        // 7
	s.MustAppend(0, btf.Info(btf.KindArray, false, 0), 0, c, i, 2)             // 8
	s.MustAppend(0, btf.Info(btf.KindArray, false, 0), 0, 8, i, 3)             // 9
	s.AddFuncProto(l, []btf.ParamSpec{{Name: "p", Type: 7}, {}})               // 10
	s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 10)                       // 11
	s.MustAppend(0, btf.Info(btf.KindConst, false, 0), 11)                     // 12
	s.MustAppend(s.AddString("fn_t"), btf.Info(btf.KindTypedef, false, 0), 12) // 13
	s.AddEnum("e", 4, true, false, []btf.EnumValueSpec{{Name: "A", Value: -1}, {Name: "B", Value: 2}})
	s.AddEnum("e64", 8, false, true, []btf.EnumValueSpec{{Name: "C", Value: 1 << 40}})
	s.MustAppend(s.AddString("fwd"), btf.Info(btf.KindFwd, true, 0), 0)
	s.MustAppend(s.AddString("user"), btf.Info(btf.KindTypeTag, false, 0), 7)
	s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 17)
	return s
}

// FuzzWrite prints mutated BTF as a header, as bpftool 7.1 and 7.6 print it
// (the latter sorted, and from one root): whatever the decoder accepts
// must give a header or an error, never a panic or a hang (loops of every
// kind included).
func FuzzWrite(f *testing.F) {
	s := fuzzSeed()
	f.Add(s.Marshal(s.ByteOrder()))
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := btf.Parse(data, nil)
		if err != nil {
			return
		}
		_ = cdump.Write(io.Discard, sp)
		_ = cdump.WriteOptions(io.Discard, sp, cdump.Options{Bpftool76: true})
		_ = cdump.WriteOptions(io.Discard, sp, cdump.Options{Bpftool76: true, RootIDs: []btf.TypeID{sp.TypeCount()}})
	})
}
