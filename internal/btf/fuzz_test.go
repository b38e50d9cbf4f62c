package btf_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// FuzzParse feeds arbitrary bytes to the decoder. Whatever it accepts must
// survive every accessor and a dump without panicking, and must
// re-encode to bytes that decode to the same types.
func FuzzParse(f *testing.F) {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	st := s.AddStruct(false, "s", 8, []btf.MemberSpec{{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32, BitfieldSize: 4}})
	s.AddFuncProto(i, []btf.ParamSpec{{Name: "x", Type: st}, {}})
	s.AddEnum("e", 4, true, false, []btf.EnumValueSpec{{Name: "A", Value: -1}})
	f.Add(s.Marshal(s.ByteOrder()))
	s.SetLayout(btf.KindLayouts()) // a kind layout section, in both byte orders
	f.Add(s.Marshal(binary.LittleEndian))
	f.Add(s.Marshal(binary.BigEndian))
	// Seed with real split BTF of kernel modules when the shared data is here
	// (small files; the vmlinux BTF would make each mutation slow).
	for _, path := range testutil.SeedFiles("reference/modules/*.btf") {
		if data, err := os.ReadFile(path); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := btf.Parse(data, nil)
		if err != nil {
			return
		}
		for id := sp.FirstID(); id <= sp.TypeCount(); id++ {
			typ := sp.Type(id)
			typ.ForEachTypeRef(func(p *uint32) { _ = sp.Type(*p) })
			typ.ForEachStrRef(func(p *uint32) { _ = sp.Strings().String(*p) })
		}
		if err := sp.Dump(io.Discard); err != nil {
			t.Fatalf("dump: %v", err)
		}
		out := sp.Marshal(sp.ByteOrder())
		again, err := btf.Parse(out, nil)
		if err != nil {
			t.Fatalf("re-encoded blob does not decode: %v", err)
		}
		if !bytes.Equal(again.Marshal(again.ByteOrder()), out) {
			t.Fatal("encoding is not stable")
		}
	})
}
