package btf

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// distillBase builds the full base of the distillation tests: one type of
// each situation DistillBase distinguishes (named and anonymous composites
// and enums, two unions sharing a name, types only reachable through a
// named struct's members, reference types, a FWD, a FLOAT behind a TYPEDEF,
// a TYPE_TAG, and a FUNC a split BTF may not refer to).
func distillBase() *Spec {
	b := NewSpec(nil)
	b.AddInt("int", 4, IntSigned, 32)                                                                     // 1
	b.AddRef(KindPtr, "", 1)                                                                              // 2: only inside s1
	b.AddStruct(false, "s1", 8, []MemberSpec{{Name: "f1", Type: 2}})                                      // 3
	b.AddStruct(false, "", 12, []MemberSpec{{Name: "f1", Type: 1}, {Name: "f2", Type: 3, BitOffset: 32}}) // 4
	b.AddInt("unsigned int", 4, 0, 32)                                                                    // 5: unused
	b.AddStruct(true, "u1", 12, []MemberSpec{{Name: "f1", Type: 1}, {Name: "f2", Type: 2}})               // 6
	b.AddStruct(true, "", 4, []MemberSpec{{Name: "f1", Type: 1}})                                         // 7
	b.AddEnum("e1", 4, false, false, []EnumValueSpec{{"v1", 1}})                                          // 8
	b.AddEnum("", 4, false, false, []EnumValueSpec{{"av1", 2}})                                           // 9
	b.AddEnum("e641", 8, true, true, []EnumValueSpec{{"v1", 1024}})                                       // 10
	b.AddEnum("", 8, true, true, []EnumValueSpec{{"v1", 1025}})                                           // 11
	b.AddStruct(false, "unneeded", 4, []MemberSpec{{Name: "f1", Type: 1}})                                // 12
	b.AddStruct(false, "embedded", 4, []MemberSpec{{Name: "f1", Type: 1}})                                // 13
	b.AddFuncProto(1, []ParamSpec{{"p1", 1}})                                                             // 14
	b.AddArray(1, 1, 3)                                                                                   // 15
	b.AddStruct(false, "from_proto", 4, []MemberSpec{{Name: "f1", Type: 1}})                              // 16
	b.AddStruct(true, "u1", 4, []MemberSpec{{Name: "f1", Type: 1}})                                       // 17: second u1
	b.AddFwd("fwd_s", false)                                                                              // 18
	b.AddRef(KindTypedef, "td", 20)                                                                       // 19
	b.AddFloat("double", 8)                                                                               // 20
	b.AddTypeTag("tag", 1, false)                                                                         // 21
	b.AddFunc("base_fn", 14, LinkageGlobal)                                                               // 22
	return b
}

// distillSplit adds the split types of the main test to a split Spec on
// distillBase (IDs 23 to 38).
func distillSplit(base *Spec) *Spec {
	s := NewSpec(base)
	s.AddRef(KindPtr, "", 3)                                                     // 23
	s.AddRef(KindPtr, "", 4)                                                     // 24
	s.AddRef(KindConst, "", 6)                                                   // 25
	s.AddRef(KindRestrict, "", 7)                                                // 26
	s.AddRef(KindVolatile, "", 8)                                                // 27
	s.AddRef(KindTypedef, "et", 9)                                               // 28
	s.AddRef(KindConst, "", 10)                                                  // 29
	s.AddRef(KindPtr, "", 11)                                                    // 30
	s.AddStruct(false, "with_embedded", 4, []MemberSpec{{Name: "f1", Type: 13}}) // 31
	s.AddFunc("fn", 14, LinkageStatic)                                           // 32
	s.AddRef(KindTypedef, "arraytype", 15)                                       // 33
	s.AddFuncProto(1, []ParamSpec{{"p1", 16}})                                   // 34
	s.AddRef(KindPtr, "", 18)                                                    // 35
	s.AddRef(KindPtr, "", 19)                                                    // 36
	s.AddRef(KindPtr, "", 21)                                                    // 37
	s.AddStruct(false, "int_user", 4, []MemberSpec{{Name: "e1", Type: 1}})       // 38: member named like a base enum
	return s
}

func dumpLines(t *testing.T, s *Spec) []string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

func checkDump(t *testing.T, what string, s *Spec, want []string) {
	t.Helper()
	got := dumpLines(t, s)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDistillBase checks the distilled base, the new split and the strings
// of each against results worked out by hand from libbpf's rules (see
// DistillBase), then relocates the result back onto the full base and checks
// that every reference lands on the original type again.
func TestDistillBase(t *testing.T) {
	full := distillBase()
	base, split, err := DistillBase(distillSplit(full))
	if err != nil {
		t.Fatal(err)
	}
	// Needed: everything the split reaches, except what only s1's
	// members reach ([2]) and what nothing reaches ([5], [12], [17],
	// [22]). Named INT/FLOAT/FWD as they are, named composites and enums
	// memberless (ENUM64 as an 8-byte ENUM), in base order.
	checkDump(t, "distilled base", base, []string{
		"[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED",
		"[2] STRUCT 's1' size=8 vlen=0",
		"[3] UNION 'u1' size=12 vlen=0",
		"[4] ENUM 'e1' encoding=UNSIGNED size=4 vlen=0",
		"[5] ENUM 'e641' encoding=UNSIGNED size=8 vlen=0",
		"[6] STRUCT 'embedded' size=4 vlen=0",
		"[7] STRUCT 'from_proto' size=4 vlen=0",
		"[8] FWD 'fwd_s' fwd_kind=struct",
		"[9] FLOAT 'double' size=8",
	})
	// The 16 split types move from 23.. down to 10.., followed by the
	// anonymous and reference types they need, in base order.
	checkDump(t, "split on the distilled base", split, []string{
		"[10] PTR '(anon)' type_id=2",
		"[11] PTR '(anon)' type_id=26",
		"[12] CONST '(anon)' type_id=3",
		"[13] RESTRICT '(anon)' type_id=27",
		"[14] VOLATILE '(anon)' type_id=4",
		"[15] TYPEDEF 'et' type_id=28",
		"[16] CONST '(anon)' type_id=5",
		"[17] PTR '(anon)' type_id=29",
		"[18] STRUCT 'with_embedded' size=4 vlen=1",
		"\t'f1' type_id=6 bits_offset=0",
		"[19] FUNC 'fn' type_id=30 linkage=static",
		"[20] TYPEDEF 'arraytype' type_id=31",
		"[21] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
		"\t'p1' type_id=7",
		"[22] PTR '(anon)' type_id=8",
		"[23] PTR '(anon)' type_id=32",
		"[24] PTR '(anon)' type_id=33",
		"[25] STRUCT 'int_user' size=4 vlen=1",
		"\t'e1' type_id=1 bits_offset=0",
		"[26] STRUCT '(anon)' size=12 vlen=2",
		"\t'f1' type_id=1 bits_offset=0",
		"\t'f2' type_id=2 bits_offset=32",
		"[27] UNION '(anon)' size=4 vlen=1",
		"\t'f1' type_id=1 bits_offset=0",
		"[28] ENUM '(anon)' encoding=UNSIGNED size=4 vlen=1",
		"\t'av1' val=2",
		"[29] ENUM64 '(anon)' encoding=SIGNED size=8 vlen=1",
		"\t'v1' val=1025LL", // bpftool's format for a signed ENUM64
		"[30] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
		"\t'p1' type_id=1",
		"[31] ARRAY '(anon)' type_id=1 index_type_id=1 nr_elems=3",
		"[32] TYPEDEF 'td' type_id=9",
		"[33] TYPE_TAG 'tag' type_id=1",
	})
	// Strings: the kept names in type order; then the split's in type
	// and field order, each once, "e1" found in the base.
	if got, want := string(base.Strings().Bytes()), "\x00int\x00s1\x00u1\x00e1\x00e641\x00embedded\x00from_proto\x00fwd_s\x00double\x00"; got != want {
		t.Errorf("distilled base strings %q, want %q", got, want)
	}
	if got, want := string(split.Strings().Bytes()), "et\x00with_embedded\x00f1\x00fn\x00arraytype\x00p1\x00int_user\x00f2\x00av1\x00v1\x00td\x00tag\x00"; got != want {
		t.Errorf("split strings %q, want %q", got, want)
	}
	if e1, _ := base.Strings().Find("e1"); split.Type(25).Member(0).NameOff != e1 {
		t.Errorf("member 'e1' of [25] has name offset %d, want the base's %d", split.Type(25).Member(0).NameOff, e1)
	}
	// Both parse back from their encoding, the split on the base.
	pb, err := Parse(base.Marshal(base.ByteOrder()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(split.Marshal(split.ByteOrder()), pb); err != nil {
		t.Fatal(err)
	}

	// Relocation: split IDs move up by 23-9, base references go back to
	// the originals: u1 of size 12 to [6] (two unions share the name),
	// e641 to the ENUM64 [10], and the copied types stay in the split.
	rel, err := Relocate(split, full)
	if err != nil {
		t.Fatal(err)
	}
	checkDump(t, "relocated split", rel, []string{
		"[23] PTR '(anon)' type_id=3",
		"[24] PTR '(anon)' type_id=39",
		"[25] CONST '(anon)' type_id=6",
		"[26] RESTRICT '(anon)' type_id=40",
		"[27] VOLATILE '(anon)' type_id=8",
		"[28] TYPEDEF 'et' type_id=41",
		"[29] CONST '(anon)' type_id=10",
		"[30] PTR '(anon)' type_id=42",
		"[31] STRUCT 'with_embedded' size=4 vlen=1",
		"\t'f1' type_id=13 bits_offset=0",
		"[32] FUNC 'fn' type_id=43 linkage=static",
		"[33] TYPEDEF 'arraytype' type_id=44",
		"[34] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
		"\t'p1' type_id=16",
		"[35] PTR '(anon)' type_id=18",
		"[36] PTR '(anon)' type_id=45",
		"[37] PTR '(anon)' type_id=46",
		"[38] STRUCT 'int_user' size=4 vlen=1",
		"\t'e1' type_id=1 bits_offset=0",
		"[39] STRUCT '(anon)' size=12 vlen=2",
		"\t'f1' type_id=1 bits_offset=0",
		"\t'f2' type_id=3 bits_offset=32",
		"[40] UNION '(anon)' size=4 vlen=1",
		"\t'f1' type_id=1 bits_offset=0",
		"[41] ENUM '(anon)' encoding=UNSIGNED size=4 vlen=1",
		"\t'av1' val=2",
		"[42] ENUM64 '(anon)' encoding=SIGNED size=8 vlen=1",
		"\t'v1' val=1025LL", // bpftool's format for a signed ENUM64
		"[43] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
		"\t'p1' type_id=1",
		"[44] ARRAY '(anon)' type_id=1 index_type_id=1 nr_elems=3",
		"[45] TYPEDEF 'td' type_id=20",
		"[46] TYPE_TAG 'tag' type_id=1",
	})
	if got, want := rel.Strings().Start(), full.Strings().Len(); got != want {
		t.Errorf("relocated strings start at %d, want the full base's length %d", got, want)
	}
}

// TestDistillBaseCases covers the edges: no base, a reference no distilled
// base can hold, a module that needs no base type, same-named base types,
// and byte order and header length carried over.
func TestDistillBaseCases(t *testing.T) {
	tests := []struct {
		name      string
		split     func(full *Spec) *Spec
		err       string
		wantBase  []string
		wantSplit []string
	}{
		{
			name:  "standalone input",
			split: func(*Spec) *Spec { s := NewSpec(nil); s.AddInt("int", 4, IntSigned, 32); return s },
			err:   "needs split BTF",
		},
		{
			name: "reference to a base FUNC",
			split: func(full *Spec) *Spec {
				s := NewSpec(full)
				s.AddDeclTag("kfunc", 22, -1, false)
				return s
			},
			err: "base type [22] of kind FUNC",
		},
		{
			name: "nothing needed",
			split: func(full *Spec) *Spec {
				s := NewSpec(full)
				own := s.AddInt("long", 8, IntSigned, 64)
				s.AddRef(KindPtr, "", own)
				s.AddFuncProto(0, []ParamSpec{{"x", own + 1}})
				return s
			},
			wantBase: nil,
			wantSplit: []string{
				"[1] INT 'long' size=8 bits_offset=0 nr_bits=64 encoding=SIGNED",
				"[2] PTR '(anon)' type_id=1",
				"[3] FUNC_PROTO '(anon)' ret_type_id=0 vlen=1",
				"\t'x' type_id=2",
			},
		},
		{
			name: "chains through anonymous types",
			split: func(full *Spec) *Spec {
				// PTR -> CONST -> anonymous struct, whose member
				// is the named s1: s1 memberless, its PTR not kept.
				s := NewSpec(full)
				c := s.AddRef(KindConst, "", 4)
				s.AddRef(KindPtr, "", c)
				return s
			},
			wantBase: []string{
				"[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED",
				"[2] STRUCT 's1' size=8 vlen=0",
			},
			wantSplit: []string{
				"[3] CONST '(anon)' type_id=5",
				"[4] PTR '(anon)' type_id=3",
				"[5] STRUCT '(anon)' size=12 vlen=2",
				"\t'f1' type_id=1 bits_offset=0",
				"\t'f2' type_id=2 bits_offset=32",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, split, err := DistillBase(tc.split(distillBase()))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if base.TypeCount() == 0 {
				if tc.wantBase != nil {
					t.Errorf("empty distilled base, want %q", tc.wantBase)
				}
				if b := base.Strings().Bytes(); string(b) != "\x00" {
					t.Errorf("empty distilled base has strings %q, want only the empty string", b)
				}
			} else {
				checkDump(t, "distilled base", base, tc.wantBase)
			}
			checkDump(t, "split", split, tc.wantSplit)
		})
	}
}

// TestDistillBaseKeepsFormat checks that both results keep the input's byte
// order and header length.
func TestDistillBaseKeepsFormat(t *testing.T) {
	full := distillBase()
	s2 := distillSplit(full)
	s2.SetByteOrder(binary.BigEndian)
	s2.SetHeaderLen(32)
	base, split, err := DistillBase(s2)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Spec{base, split} {
		if x.ByteOrder() != binary.BigEndian || x.HeaderLen() != 32 {
			t.Errorf("got %v with a %d-byte header, want big-endian and 32", x.ByteOrder(), x.HeaderLen())
		}
	}
}
