package btf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// roundTrip decodes data (on base), re-encodes it in the decoded byte order
// and fails unless the bytes are identical. It also checks the big-endian
// (or little-endian) twin decodes to the same words.
func roundTrip(t *testing.T, name string, data []byte, base *btf.Spec) *btf.Spec {
	t.Helper()
	s, err := btf.Parse(data, base)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out := s.Marshal(s.ByteOrder())
	if !bytes.Equal(out, data) {
		i := 0
		for i < len(out) && i < len(data) && out[i] == data[i] {
			i++
		}
		t.Fatalf("%s: re-encoded bytes differ from the original at offset %#x (len %d vs %d)", name, i, len(out), len(data))
	}
	var other binary.ByteOrder = binary.BigEndian
	if s.ByteOrder() == binary.BigEndian {
		other = binary.LittleEndian
	}
	twin, err := btf.Parse(s.Marshal(other), base)
	if err != nil {
		t.Fatalf("%s: decoding the %v twin: %v", name, other, err)
	}
	if twin.ByteOrder() != other {
		t.Fatalf("%s: twin decoded as %v, want %v", name, twin.ByteOrder(), other)
	}
	if !equalWords(s.Words(), twin.Words()) || twin.NumTypes() != s.NumTypes() {
		t.Fatalf("%s: the %v twin decodes to different types", name, other)
	}
	if !bytes.Equal(twin.Marshal(s.ByteOrder()), data) {
		t.Fatalf("%s: converting the twin back does not reproduce the original", name)
	}
	return s
}

func equalWords(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRoundTripReference(t *testing.T) {
	var base *btf.Spec
	for _, name := range []string{"kbuild", "default"} {
		path := testutil.Reference(t, testutil.VmlinuxName+"."+name+".btf")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := roundTrip(t, path, data, nil)
		if name == "kbuild" {
			base = s
			if got, want := s.NumTypes(), 94547; got != want {
				t.Errorf("%s: %d types, want %d (shared/reference/README.md)", path, got, want)
			}
		}
	}
	for _, m := range testutil.ModuleNames {
		t.Run(m, func(t *testing.T) {
			path := testutil.Reference(t, "modules/"+m+".btf")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s := roundTrip(t, path, data, base)
			if s.FirstID() != base.TypeCount()+1 {
				t.Errorf("split first ID %d, want %d", s.FirstID(), base.TypeCount()+1)
			}
			if s.Strings().Start() != base.Strings().Len() {
				t.Errorf("split strings start at %d, want %d", s.Strings().Start(), base.Strings().Len())
			}
		})
	}
}

func TestRoundTripUndeduplicated(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the 133 MB undeduplicated vmlinux BTF in -short mode")
	}
	path := testutil.Reference(t, testutil.VmlinuxName+".undeduped.btf.xz")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.NumTypes(), 3408561; got != want {
		t.Errorf("%d types, want %d", got, want)
	}
	if !bytes.Equal(s.Marshal(binary.LittleEndian), data) {
		t.Error("re-encoded bytes differ")
	}
}

func TestRoundTripRunningKernel(t *testing.T) {
	data, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Skipf("skipping: the running kernel exposes no BTF: %v", err)
	}
	base := roundTrip(t, "/sys/kernel/btf/vmlinux", data, nil)
	mods, _ := filepath.Glob("/sys/kernel/btf/*")
	for _, m := range mods {
		if filepath.Base(m) == "vmlinux" {
			continue
		}
		if data, err := os.ReadFile(m); err == nil {
			roundTrip(t, m, data, base)
		}
	}
}

// TestBuildAndMarshal builds one type of every kind, encodes it in both byte
// orders and checks that decoding gives back the same types and strings.
func TestBuildAndMarshal(t *testing.T) {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	c := s.AddInt("char", 1, btf.IntSigned|btf.IntChar, 8)
	p := s.AddRef(btf.KindPtr, "", c)
	arr := s.AddArray(c, i, 16)
	st := s.AddStruct(false, "s", 24, []btf.MemberSpec{
		{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32, BitfieldSize: 3},
		{Name: "name", Type: arr, BitOffset: 64},
	})
	s.AddStruct(true, "u", 8, []btf.MemberSpec{{Name: "p", Type: p}, {Name: "i", Type: i}})
	s.AddEnum("e", 4, true, false, []btf.EnumValueSpec{{Name: "NEG", Value: -1}, {Name: "POS", Value: 7}})
	s.AddEnum("e64", 8, false, true, []btf.EnumValueSpec{{Name: "BIG", Value: 1 << 40}})
	s.AddFwd("fwd_union", true)
	td := s.AddRef(btf.KindTypedef, "s_t", st)
	s.AddRef(btf.KindVolatile, "", i)
	cst := s.AddRef(btf.KindConst, "", c)
	s.AddRef(btf.KindRestrict, "", p)
	proto := s.AddFuncProto(i, []btf.ParamSpec{{Name: "x", Type: td}, {Name: "", Type: 0}})
	fn := s.AddFunc("f", proto, btf.LinkageGlobal)
	v := s.AddVar("v", i, btf.LinkageGlobal)
	s.AddDatasec(".data..percpu", 4, []btf.SecInfoSpec{{Type: v, Offset: 0, Size: 4}})
	s.AddFloat("double", 8)
	s.AddDeclTag("bpf_kfunc", fn, -1, false)
	s.AddTypeTag("user", cst, false)

	if got := s.NumTypes(); got != 20 {
		t.Fatalf("built %d types, want 20", got)
	}
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		data := s.Marshal(order)
		d, err := btf.Parse(data, nil)
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		if d.ByteOrder() != order || !equalWords(d.Words(), s.Words()) || !bytes.Equal(d.Strings().Bytes(), s.Strings().Bytes()) {
			t.Fatalf("%v: decoded Spec differs from the built one", order)
		}
	}
	// Spot-check accessors on what was built.
	sm := s.Type(st)
	if sm.Kind() != btf.KindStruct || !sm.KindFlag() || sm.Vlen() != 3 || s.Name(sm) != "s" {
		t.Errorf("struct header: kind %v flag %v vlen %d name %q", sm.Kind(), sm.KindFlag(), sm.Vlen(), s.Name(sm))
	}
	m := sm.Member(1)
	if btf.MemberBitOffset(true, m.Offset) != 32 || btf.MemberBitfieldSize(true, m.Offset) != 3 {
		t.Errorf("bitfield member offset word %#x", m.Offset)
	}
	if _, v := s.Type(st + 3).Enum64Value(0); v != 1<<40 {
		t.Errorf("enum64 value %#x", v)
	}
	if enc, _, bits := s.Type(c).IntData(); enc != btf.IntSigned|btf.IntChar || bits != 8 {
		t.Errorf("char int data enc %d bits %d", enc, bits)
	}
	if s.Type(0) != nil || s.Type(s.TypeCount()+1) != nil {
		t.Error("void and out-of-range IDs must give nil types")
	}
}

// TestForEachRef checks which words each kind reports as type and string
// references, by rewriting them all and reading the accessors back.
func TestForEachRef(t *testing.T) {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	st := s.AddStruct(false, "s", 8, []btf.MemberSpec{{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32}})
	proto := s.AddFuncProto(i, []btf.ParamSpec{{Name: "x", Type: st}})
	arr := s.AddArray(i, i, 3)
	v := s.AddVar("v", st, 0)
	ds := s.AddDatasec(".bss", 8, []btf.SecInfoSpec{{Type: v, Size: 8}})
	tests := []struct {
		id       btf.TypeID
		typeRefs int
		strRefs  int
	}{
		{i, 0, 1}, {st, 2, 3}, {proto, 2, 2}, {arr, 2, 1}, {v, 1, 1}, {ds, 1, 1},
	}
	for _, tc := range tests {
		typ := s.Type(tc.id)
		n := 0
		typ.ForEachTypeRef(func(p *uint32) { n++; *p = 999 })
		if n != tc.typeRefs {
			t.Errorf("%v: %d type refs, want %d", typ.Kind(), n, tc.typeRefs)
		}
		n = 0
		typ.ForEachStrRef(func(*uint32) { n++ })
		if n != tc.strRefs {
			t.Errorf("%v: %d string refs, want %d", typ.Kind(), n, tc.strRefs)
		}
	}
	if s.Type(st).Member(1).Type != 999 || s.Type(arr)[3] != 999 || s.Type(ds)[3] != 999 {
		t.Error("rewriting through ForEachTypeRef did not reach the Spec")
	}
}

// TestParseInfoWord checks the info word as libbpf 1.8 and Linux 7.1 lay it
// out: vlen in bits 0-23 and kind in bits 24-30. A type with more than 65,535
// elements reads back whole (through a parser that knew only 16 bits of
// vlen, its elements would be misread as the start of the next type), and a
// kind above 31 is an unknown kind rather than the known kind its low five
// bits would name.
func TestParseInfoWord(t *testing.T) {
	long := btf.NewSpec(nil)
	i := long.AddInt("int", 4, btf.IntSigned, 32)
	const n = 70000 // above 16 bits
	vals := make([]btf.EnumValueSpec, n)
	for k := range vals {
		vals[k] = btf.EnumValueSpec{Name: fmt.Sprintf("E%d", k), Value: int64(k)}
	}
	e := long.AddEnum("big", 4, false, false, vals)
	long.AddRef(btf.KindTypedef, "after", i)
	longBlob := long.Marshal(binary.LittleEndian)

	short := btf.NewSpec(nil)
	short.AddInt("int", 4, btf.IntSigned, 32)
	kind33 := short.Marshal(binary.LittleEndian)
	kind33[btf.HeaderLen+7] = 33 // INT (1) plus bit 29: kind 33

	tests := []struct {
		name    string
		data    []byte
		check   func(t *testing.T, s *btf.Spec)
		wantErr string
	}{
		{name: "vlen of 70000", data: longBlob, check: func(t *testing.T, s *btf.Spec) {
			if got := s.NumTypes(); got != 3 {
				t.Fatalf("%d types, want 3", got)
			}
			if got := s.Type(e).Vlen(); got != n {
				t.Errorf("ENUM vlen %d, want %d", got, n)
			}
			if last := s.Type(e + 1); last.Kind() != btf.KindTypedef || s.Name(last) != "after" {
				t.Errorf("type after the ENUM is %v %q, want TYPEDEF \"after\"", last.Kind(), s.Name(last))
			}
			if !bytes.Equal(s.Marshal(binary.LittleEndian), longBlob) {
				t.Error("re-encoding changed the bytes")
			}
		}},
		{name: "kind 33", data: kind33, wantErr: "unknown kind 33"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := btf.Parse(tc.data, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

func TestParseErrors(t *testing.T) {
	good := btf.NewSpec(nil)
	good.AddInt("int", 4, btf.IntSigned, 32)
	data := good.Marshal(binary.LittleEndian)
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), data...)) }
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"magic", mut(func(b []byte) []byte { b[0] = 0; return b }), "bad magic"},
		{"version", mut(func(b []byte) []byte { b[2] = 2; return b }), "unsupported version"},
		{"flags", mut(func(b []byte) []byte { b[3] = 1; return b }), "unsupported flags"},
		{"hdr_len short", mut(func(b []byte) []byte { b[4] = 16; return b }), "shorter than 24"},
		{"hdr_len long", mut(func(b []byte) []byte { b[4] = 0xff; b[5] = 0xff; return b }), "exceeds blob size"},
		{"type_len", mut(func(b []byte) []byte { b[12] = 0xf0; return b }), "type section"},
		{"unaligned", mut(func(b []byte) []byte { b[12] = 15; return b }), "not a multiple of 4"},
		{"kind", mut(func(b []byte) []byte { b[24+7] = 30; return b }), "unknown kind"},
		{"truncated", mut(func(b []byte) []byte { b[12] = 8; b[16] = 8; return b }), "truncated header"},
		{"overlap", mut(func(b []byte) []byte { b[16] = 4; return b }), "overlap"},
		{"vlen", mut(func(b []byte) []byte { b[24+7] = 4; b[24+4] = 5; return b }), "vlen 5 needs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := btf.Parse(tc.data, nil)
			var fe *btf.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FormatError", err)
			}
			if !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
