package btf

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestFlatten joins a base and two splits on it and checks, through a
// marshal and parse round trip, that every reference names the type and
// string it named in its own split.
func TestFlatten(t *testing.T) {
	base := NewSpec(nil)
	i := base.AddInt("int", 4, IntSigned, 32)
	base.AddRef(KindPtr, "", i)
	var splits []*Spec
	for _, name := range []string{"a", "b"} {
		s := NewSpec(base)
		st := s.AddStruct(false, "s_"+name, 8, []MemberSpec{{Name: "m_" + name, Type: i}, {Name: "int", Type: i, BitOffset: 32}})
		s.AddRef(KindPtr, "", st)
		s.AddRef(KindTypedef, "t_"+name, st)
		splits = append(splits, s)
	}
	flat, err := Flatten(base, splits)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(flat.Marshal(binary.LittleEndian), nil)
	if err != nil {
		t.Fatalf("the flattened Spec does not parse: %v", err)
	}
	var got bytes.Buffer
	if err := back.Dump(&got); err != nil {
		t.Fatal(err)
	}
	want := `[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
[2] PTR '(anon)' type_id=1
[3] STRUCT 's_a' size=8 vlen=2
	'm_a' type_id=1 bits_offset=0
	'int' type_id=1 bits_offset=32
[4] PTR '(anon)' type_id=3
[5] TYPEDEF 't_a' type_id=3
[6] STRUCT 's_b' size=8 vlen=2
	'm_b' type_id=1 bits_offset=0
	'int' type_id=1 bits_offset=32
[7] PTR '(anon)' type_id=6
[8] TYPEDEF 't_b' type_id=6
`
	if got.String() != want {
		t.Errorf("flattened:\n%s\nwant:\n%s", got.String(), want)
	}
	for _, s := range splits {
		if s.NumTypes() != 3 || s.FirstID() != 3 {
			t.Error("Flatten modified a split")
		}
	}
}

func TestFlattenErrors(t *testing.T) {
	base, other := NewSpec(nil), NewSpec(nil)
	base.AddInt("int", 4, IntSigned, 32)
	other.AddInt("int", 4, IntSigned, 32)
	onOther := NewSpec(other)
	for _, tc := range []struct {
		name   string
		base   *Spec
		splits []*Spec
		want   string
	}{
		{"split base", onOther, nil, "split base"},
		{"split on another base", base, []*Spec{onOther}, "split 0 is not split on the base"},
		{"standalone split", base, []*Spec{other}, "split 0 is not split on the base"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Flatten(tc.base, tc.splits); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if flat, err := Flatten(base, nil); err != nil || flat.NumTypes() != 1 {
		t.Errorf("Flatten of a base alone: %v, %v", flat, err)
	}
}
