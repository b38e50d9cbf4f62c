package merge

import (
	"encoding/binary"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// FuzzMerge feeds a base and a split blob (the first byte says where the
// data is cut) that parse to Merge, with the split given once and twice:
// it must return a result or an error, never panic, and a result must
// encode and decode again as standalone BTF, as must the flattened input,
// which holds every type of the inputs.
func FuzzMerge(f *testing.F) {
	base := btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	split := btf.NewSpec(base)
	s := split.AddStruct(false, "s", 8, []btf.MemberSpec{{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32}})
	split.AddRef(btf.KindPtr, "", s)
	split.AddStruct(false, "int", 4, []btf.MemberSpec{{Name: "x", Type: i}})
	b, sp := base.Marshal(binary.LittleEndian), split.Marshal(binary.LittleEndian)
	f.Add(append(append([]byte{byte(len(b))}, b...), sp...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || int(data[0]) >= len(data) {
			return
		}
		cut := 1 + int(data[0])
		if cut > len(data) {
			return
		}
		base, err := btf.Parse(data[1:cut], nil)
		if err != nil {
			return
		}
		split, err := btf.Parse(data[cut:], base)
		if err != nil {
			return
		}
		for _, mods := range [][]*btf.Spec{{split}, {split, split}} {
			flat, err := btf.Flatten(base, mods)
			if err != nil {
				t.Fatalf("Flatten: %v", err)
			}
			if want := base.NumTypes() + len(mods)*split.NumTypes(); flat.NumTypes() != want {
				t.Fatalf("Flatten: %d types, want %d", flat.NumTypes(), want)
			}
			if _, err := btf.Parse(flat.Marshal(binary.LittleEndian), nil); err != nil {
				t.Fatalf("the flattened BTF does not decode: %v", err)
			}
			out, _, err := Merge(base, mods)
			if err != nil {
				continue
			}
			if _, err := btf.Parse(out.Marshal(binary.LittleEndian), nil); err != nil {
				t.Fatalf("the merge does not decode: %v", err)
			}
		}
	})
}
