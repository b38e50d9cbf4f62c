package btf

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unsafe"
)

func TestParseInPlace(t *testing.T) {
	s := NewSpec(nil)
	i := s.AddInt("int", 4, IntSigned, 32)
	s.AddStruct(false, "s", 8, []MemberSpec{{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32}})
	s.AddRef(KindPtr, "", 2)
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw := s.Marshal(order)
		// Copy into word-aligned storage, as a memory mapping would be.
		buf := make([]uint32, (len(raw)+3)/4)
		data := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(raw))
		copy(data, raw)

		want, err := Parse(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseInPlace(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		want.Dump(&a)
		got.Dump(&b)
		if a.String() != b.String() || !bytes.Equal(got.Marshal(order), raw) {
			t.Fatalf("%v: ParseInPlace differs from Parse:\n%s\n%s", order, b.String(), a.String())
		}
		if offs := got.TypeOffsets(); len(offs) != 3 || offs[0] != 0 || offs[1] != 4 || offs[2] != 13 {
			t.Errorf("TypeOffsets = %v, want [0 4 13]", offs)
		}
		// In host order the words alias data: a rewrite shows in the bytes.
		got.Type(3)[2] = 1
		aliased := order.Uint32(data[HeaderLen+4*13+8:]) == 1
		if hostOrder == order && !aliased {
			t.Errorf("%v: words do not alias the input", order)
		}
		if hostOrder != order && aliased {
			t.Errorf("%v: a byte-swapped input was modified", order)
		}
		// Added strings must not overwrite what follows the string section.
		got.AddString("a new string")
		if !bytes.Equal(data[len(raw)-len(s.Strings().Bytes()):], raw[len(raw)-len(s.Strings().Bytes()):]) {
			t.Errorf("%v: adding a string modified the input's string section", order)
		}
	}
}
