package btf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
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

// lazyCopy returns word-aligned storage for raw that is empty until asked
// for, and the ready function that fills it on demand, a chunk at a time:
// whatever the parser reads before asking for it is zero, which makes an
// early read show as a different result.
func lazyCopy(raw []byte, chunk int) (data []byte, ready func(end int) int, asked *int) {
	buf := make([]uint32, (len(raw)+3)/4+1)
	data = unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(raw))
	filled := 0
	asked = new(int)
	ready = func(end int) int {
		if end < 0 || end > len(raw) {
			panic("ready called beyond the blob")
		}
		*asked = max(*asked, end)
		for filled < end {
			n := min(len(raw), filled+chunk)
			copy(data[filled:n], raw[filled:n])
			filled = n
		}
		return filled
	}
	return data, ready, asked
}

// TestParseInPlaceLoading checks that parsing a blob while it loads reads
// nothing before it is loaded, for every chunk size down to one byte, and
// gives what ParseInPlace gives on the whole blob: the same types, or the
// same error for broken blobs.
func TestParseInPlaceLoading(t *testing.T) {
	s := NewSpec(nil)
	i := s.AddInt("int", 4, IntSigned, 32)
	s.AddStruct(false, "s", 8, []MemberSpec{{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32}})
	s.AddRef(KindPtr, "", 2)
	s.AddEnum("e", 4, true, false, []EnumValueSpec{{Name: "A", Value: 1}, {Name: "B", Value: 2}})
	good := s.Marshal(hostOrder)
	longHdr := s.Marshal(hostOrder)
	hostOrder.PutUint32(longHdr[4:], HeaderLen+8) // a longer header, its tail zero
	longHdr = append(longHdr[:HeaderLen:HeaderLen], append(make([]byte, 8), longHdr[HeaderLen:]...)...)
	truncated := slices.Clone(good)
	hostOrder.PutUint32(truncated[12:], hostOrder.Uint32(truncated[12:])-4) // type_len one word short
	badKind := slices.Clone(good)
	badKind[HeaderLen+7] = 0x7f // kind of type 1
	tests := []struct {
		name string
		raw  []byte
	}{
		{"host order", good},
		{"other order", s.Marshal(otherOrder())},
		{"long header", longHdr},
		{"truncated type section", truncated},
		{"unknown kind", badKind},
		{"header only", good[:6]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := ParseInPlace(slices.Clone(tt.raw), nil)
			for _, chunk := range []int{1, 3, 4, 16, 64, 1 << 20} {
				data, ready, asked := lazyCopy(tt.raw, chunk)
				got, err := ParseInPlaceLoading(data, nil, ready)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("chunk %d: error %v, want %v", chunk, err, wantErr)
				}
				if err != nil {
					continue
				}
				if *asked != len(tt.raw) {
					t.Errorf("chunk %d: returned after asking for %d of %d bytes", chunk, *asked, len(tt.raw))
				}
				var a, b bytes.Buffer
				want.Dump(&a)
				got.Dump(&b)
				if a.String() != b.String() || !slices.Equal(got.TypeOffsets(), want.TypeOffsets()) {
					t.Fatalf("chunk %d: differs from ParseInPlace:\n%s\nwant\n%s", chunk, b.String(), a.String())
				}
			}
		})
	}
}

// otherOrder is the byte order that is not the host's.
func otherOrder() binary.ByteOrder {
	if hostOrder == binary.ByteOrder(binary.LittleEndian) {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// FuzzParseInPlaceLoading checks, on arbitrary bytes, that parsing while
// loading never reads ahead of what is loaded and agrees with ParseInPlace.
func FuzzParseInPlaceLoading(f *testing.F) {
	s := NewSpec(nil)
	i := s.AddInt("int", 4, IntSigned, 32)
	s.AddStruct(false, "s", 8, []MemberSpec{{Name: "a", Type: i}})
	f.Add(s.Marshal(hostOrder), uint8(5))
	f.Add(s.Marshal(otherOrder()), uint8(1))
	f.Fuzz(func(t *testing.T, raw []byte, chunk uint8) {
		want, wantErr := ParseInPlace(slices.Clone(raw), nil)
		data, ready, _ := lazyCopy(raw, int(chunk)+1)
		got, err := ParseInPlaceLoading(data, nil, ready)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, want %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got.Marshal(hostOrder), want.Marshal(hostOrder)) {
			t.Fatal("the Spec differs from ParseInPlace's")
		}
	})
}
