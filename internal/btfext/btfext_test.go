package btfext

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// sampleExt is a .BTF.ext with two program sections of CO-RE relocations.
func sampleExt() []byte {
	return testutil.BTFExt([]uint32{1, 7}, [][]testutil.CoreReloRecord{
		{{InsnOff: 8, TypeID: 2, AccessStrOff: 3, Kind: 0}, {InsnOff: 24, TypeID: 2, AccessStrOff: 5, Kind: 2}},
		{{InsnOff: 0, TypeID: 3, AccessStrOff: 5, Kind: 8}},
	})
}

func TestParse(t *testing.T) {
	ext, err := Parse(sampleExt())
	if err != nil {
		t.Fatal(err)
	}
	if len(ext.Relocs) != 2 || ext.NumRelocs() != 3 {
		t.Fatalf("got %d sections, %d relocations; want 2 and 3", len(ext.Relocs), ext.NumRelocs())
	}
	want := []Reloc{{8, 2, 3, FieldByteOffset, 44}, {24, 2, 5, FieldExists, 60}, {0, 3, 5, TypeExists, 84}}
	var got []Reloc
	for _, s := range ext.Relocs {
		got = append(got, s.Relocs...)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("relocation %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if ext.Relocs[0].NameOff != 1 || ext.Relocs[1].NameOff != 7 || ext.Relocs[1].Offset != 76 {
		t.Errorf("sections: %+v", ext.Relocs)
	}
}

// TestParseErrors corrupts the sample in each way libbpf's btf_ext__new
// refuses, and checks that Parse refuses it at that offset.
func TestParseErrors(t *testing.T) {
	le := binary.LittleEndian
	put := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint32(b[off:], v); return b }
	}
	cases := []struct {
		name   string
		mutate func([]byte) []byte
		off    int
		msg    string
	}{
		{"truncated header", func(b []byte) []byte { return b[:6] }, 0, "header truncated"},
		{"bad magic", func(b []byte) []byte { b[0] = 0; return b }, 0, "bad magic"},
		{"big-endian", func(b []byte) []byte { b[0], b[1] = 0xeb, 0x9f; return b }, 0, "other byte order"},
		{"version", func(b []byte) []byte { b[2] = 2; return b }, 2, "unsupported version"},
		{"flags", func(b []byte) []byte { b[3] = 1; return b }, 3, "unsupported flags"},
		{"hdr_len past the end", put(4, 1000), 4, "exceeds"},
		{"hdr_len short", put(4, 16), 4, "shorter than 24"},
		{"header only", func(b []byte) []byte { return b[:32] }, 4, "no data"},
		{"misaligned core_relo", put(24, 2), 24, "not 4-byte aligned"},
		{"core_relo past the end", put(28, 1000), 24, "runs past"},
		{"record size too small", put(32, 12), 32, "record size 12"},
		{"record size not a multiple of 4", put(32, 18), 32, "record size 18"},
		{"no records", put(28, 4), 36, "no records"},
		{"section without records", put(40, 0), 40, "no records"},
		{"too many records", put(40, 9), 40, "runs past"},
		{"section header truncated", put(28, 4+8+2*16+4), 76, "header truncated"},
		{"func_info past the end", put(12, 10000), 8, "runs past"},
		{"line_info record size", func(b []byte) []byte {
			le.PutUint32(b[16:], 4)
			le.PutUint32(b[20:], 8)
			return b
		}, 36, "line_info record size 1 is invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.mutate(sampleExt())
			_, err := Parse(b)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FormatError", err)
			}
			if fe.Offset != c.off || !strings.Contains(fe.Msg, c.msg) {
				t.Errorf("got %q at %#x, want %q at %#x", fe.Msg, fe.Offset, c.msg, c.off)
			}
		})
	}
}

// TestParseShortHeader: a 24-byte header has no CO-RE relocations.
func TestParseShortHeader(t *testing.T) {
	b := sampleExt()
	binary.LittleEndian.PutUint32(b[4:], 24)
	ext, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if ext.NumRelocs() != 0 {
		t.Errorf("%d relocations from a header without core_relo", ext.NumRelocs())
	}
}

// sampleBTF is an object's BTF: a struct, an int, section and access names.
func sampleBTF() *btf.Spec {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddStruct(false, "task", 8, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "tgid", Type: i, BitOffset: 32}})
	return s
}

func TestParseObject(t *testing.T) {
	spec := sampleBTF()
	sec := spec.AddString("kprobe/x")
	acc := spec.AddString("0:1")
	ext := testutil.BTFExt([]uint32{sec}, [][]testutil.CoreReloRecord{{{InsnOff: 16, TypeID: 2, AccessStrOff: acc, Kind: 0}}})
	data := testutil.BPFObject(map[string][]byte{".BTF": spec.Marshal(binary.LittleEndian), ".BTF.ext": ext})
	o, err := ParseObject("x.o", data)
	if err != nil {
		t.Fatal(err)
	}
	if o.PointerSize != 8 || o.BTF.TypeCount() != 2 || o.Ext.NumRelocs() != 1 {
		t.Fatalf("object: pointer size %d, %d types, %d relocations", o.PointerSize, o.BTF.TypeCount(), o.Ext.NumRelocs())
	}
	if got := o.SectionName(&o.Ext.Relocs[0]); got != "kprobe/x" {
		t.Errorf("section name %q", got)
	}
	for _, c := range []struct {
		name     string
		sections map[string][]byte
		want     string
	}{
		{"no .BTF.ext", map[string][]byte{".BTF": spec.Marshal(binary.LittleEndian)}, "x.o: no .BTF.ext section"},
		{"no .BTF", map[string][]byte{".BTF.ext": ext}, "x.o: no .BTF section"},
		{"bad .BTF", map[string][]byte{".BTF": []byte("junk"), ".BTF.ext": ext}, "x.o: section .BTF: offset 0x0"},
		{"bad .BTF.ext", map[string][]byte{".BTF": spec.Marshal(binary.LittleEndian), ".BTF.ext": ext[:40]}, "x.o: section .BTF.ext: offset 0x18"},
		{"section name outside the strings", map[string][]byte{".BTF": sampleBTF().Marshal(binary.LittleEndian), ".BTF.ext": ext}, "x.o: section .BTF.ext: offset 0x24: section name offset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseObject("x.o", testutil.BPFObject(c.sections))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v, want %q...", err, c.want)
			}
		})
	}
}

// TestReadObjectClang reads a program clang compiled and checks its
// relocations against what clang documents for them: p->b[2] is a byte
// offset relocation with access "0:1:2" (element 0 of p, member 1, element
// 2), the existence of p->a one with "0:0", both in function f of .text.
func TestReadObjectClang(t *testing.T) {
	if _, err := exec.LookPath("clang-19"); err != nil {
		t.Skip("skipping: clang-19 is not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	os.WriteFile(src, []byte(`
struct s { int a; int b[4]; } __attribute__((preserve_access_index));
int f(struct s *p) { return p->b[2] + __builtin_preserve_field_info(p->a, 2); }
`), 0o644)
	obj := filepath.Join(dir, "p.o")
	if err := testutil.Compile(t, "", "clang-19", "-g", "-O2", "-target", "bpf", "-c", src, "-o", obj); err != nil {
		t.Fatal(err)
	}
	o, err := ReadObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if n := o.Ext.NumRelocs(); n != 2 {
		t.Fatalf("%d relocations, want 2 (p->b[2] and the existence of p->a)", n)
	}
	kinds := map[RelocKind]string{}
	for _, s := range o.Ext.Relocs {
		if name := o.SectionName(&s); name != ".text" {
			t.Errorf("section %q, want .text", name)
		}
		for _, r := range s.Relocs {
			access, _ := o.BTF.Strings().Lookup(r.AccessStrOff)
			kinds[r.Kind] = access
			if p := o.Program(".text", r.InsnOff); p != "f" {
				t.Errorf("instruction %d is in program %q, want f", r.InsnOff/8, p)
			}
		}
	}
	if kinds[FieldByteOffset] != "0:1:2" || kinds[FieldExists] != "0:0" {
		t.Errorf("relocations %v, want byte_off 0:1:2 and field_exists 0:0", kinds)
	}
}
