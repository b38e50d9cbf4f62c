package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// minCoreTarget is a small kernel-like BTF: struct task {int pid; int tgid}.
func minCoreTarget() *btf.Spec {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddStruct(false, "task", 8, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "tgid", Type: i, BitOffset: 32}})
	return s
}

// minCoreObject is a BPF object reading task's tgid, whose .BTF.ext the
// cases below corrupt: edit gets the object's BTF (to add strings) and its
// relocation record.
func minCoreObject(edit func(s *btf.Spec, r *testutil.CoreReloRecord)) []byte {
	s := minCoreTarget()
	sec := s.AddString("kprobe/x")
	r := testutil.CoreReloRecord{InsnOff: 8, TypeID: 2, AccessStrOff: s.AddString("0:1"), Kind: 0}
	if edit != nil {
		edit(s, &r)
	}
	ext := testutil.BTFExt([]uint32{sec}, [][]testutil.CoreReloRecord{{r}})
	return testutil.BPFObject(map[string][]byte{".BTF": s.Marshal(binary.LittleEndian), ".BTF.ext": ext})
}

// TestMinCoreBTFBadObjects runs gen min_core_btf (as a separate process)
// on objects that are not usable: each ends with exit status 1 and one
// line naming the object and where in it the problem is, within the time
// and memory bounds, with the object untouched, and OUTPUT neither
// written nor, when it existed, changed.
func TestMinCoreBTFBadObjects(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	good := minCoreObject(nil)
	withExt := func(ext []byte) []byte {
		s := minCoreTarget()
		s.AddString("kprobe/x")
		s.AddString("0:1")
		return testutil.BPFObject(map[string][]byte{".BTF": s.Marshal(binary.LittleEndian), ".BTF.ext": ext})
	}
	extOf := func() []byte { // the good object's .BTF.ext
		s := minCoreTarget()
		return testutil.BTFExt([]uint32{s.AddString("kprobe/x")}, [][]testutil.CoreReloRecord{{{InsnOff: 8, TypeID: 2, AccessStrOff: s.AddString("0:1")}}})
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not an ELF file", []byte("#!/bin/sh\n"), `not a BPF object: .*not an ELF file`},
		{"not a BPF object", func() []byte { b := append([]byte(nil), good...); b[18] = 62; return b }(), `offset 0x12: not a BPF object \(machine EM_X86_64\)`},
		{"no .BTF.ext", testutil.BPFObject(map[string][]byte{".BTF": minCoreTarget().Marshal(binary.LittleEndian)}), `no \.BTF\.ext section`},
		{"no .BTF", testutil.BPFObject(map[string][]byte{".BTF.ext": extOf()}), `no \.BTF section`},
		{"truncated file", good[:len(good)-100], `section header table|beyond|exceed`},
		{"truncated .BTF.ext", withExt(extOf()[:50]), `section \.BTF\.ext: offset 0x18: core_relo .* runs past`},
		{"record count past the section", withExt(func() []byte { b := extOf(); binary.LittleEndian.PutUint32(b[40:], 1000); return b }()), `section \.BTF\.ext: offset 0x28: core_relo section of 1000 records`},
		{"record size too small", withExt(func() []byte { b := extOf(); binary.LittleEndian.PutUint32(b[32:], 8); return b }()), `section \.BTF\.ext: offset 0x20: core_relo record size 8`},
		{"type out of range", minCoreObject(func(_ *btf.Spec, r *testutil.CoreReloRecord) { r.TypeID = 77 }), `section \.BTF\.ext: offset 0x2c: relocation #0 of section kprobe/x: type \[77\] is not in the object's BTF`},
		{"access string that does not parse", minCoreObject(func(s *btf.Spec, r *testutil.CoreReloRecord) { r.AccessStrOff = s.AddString("0:one") }), `offset 0x2c: relocation #0 of section kprobe/x: access string: "one" is not a number`},
		{"access string past the strings", minCoreObject(func(_ *btf.Spec, r *testutil.CoreReloRecord) { r.AccessStrOff = 1 << 20 }), `offset 0x2c: relocation #0 of section kprobe/x: access string at offset 0x100000 is missing`},
		{"access beyond the members", minCoreObject(func(s *btf.Spec, r *testutil.CoreReloRecord) { r.AccessStrOff = s.AddString("0:5") }), `offset 0x2c: .*member 5 of type \[2\], which has 2`},
		{"unknown kind", minCoreObject(func(_ *btf.Spec, r *testutil.CoreReloRecord) { r.Kind = 99 }), `offset 0x2c: .*unknown relocation kind 99`},
		{"anonymous type", minCoreObject(func(s *btf.Spec, r *testutil.CoreReloRecord) {
			r.TypeID = s.AddStruct(false, "", 4, []btf.MemberSpec{{Name: "a", Type: 1}})
			r.AccessStrOff = s.AddString("0:0")
		}), `offset 0x2c: .*anonymous type \[3\]`},
	}
	targetPath := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(targetPath, minCoreTarget().Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			obj := writeInput(t, dir, "bad.o", c.data)
			outDir := filepath.Join(t.TempDir(), "out")
			if err := os.Mkdir(outDir, 0o777); err != nil {
				t.Fatal(err)
			}
			// The good object first: a bad one later still writes nothing.
			goodObj := writeInput(t, dir, "good.o", good)
			before := fileState(t, obj)
			r := runChild(t, exe, nil, "gen", "min_core_btf", targetPath, filepath.Join(outDir, "out.btf"), goodObj, obj)
			expectFailure(t, r, obj, c.want)
			if after := fileState(t, obj); after != before {
				t.Errorf("object changed: %s -> %s", before, after)
			}
			if st := fileState(t, outDir); st != "dir " {
				t.Errorf("output left behind: %s", st)
			}
			// An existing OUTPUT keeps its bytes.
			old := filepath.Join(outDir, "old.btf")
			os.WriteFile(old, []byte("old"), 0o644)
			runChild(t, exe, nil, "gen", "min_core_btf", targetPath, old, obj)
			if b, _ := os.ReadFile(old); string(b) != "old" {
				t.Errorf("existing OUTPUT overwritten: %q", b)
			}
		})
	}
	// The good object alone works, and writes OUTPUT.
	dir := t.TempDir()
	out := filepath.Join(dir, "out.btf")
	r := runChild(t, exe, nil, "gen", "min_core_btf", targetPath, out, writeInput(t, dir, "good.o", good))
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("good object: exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.Parse(data, nil)
	if err != nil || spec.NumTypes() != 2 {
		t.Fatalf("OUTPUT: %v, %v", spec, err)
	}
}

// TestMinCoreBTFBadInputs: INPUT that is not standalone BTF (a module's
// split BTF, as bpftool refuses it too), is not BTF, or is missing; and an
// OUTPUT that cannot be written.
func TestMinCoreBTFBadInputs(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	obj := writeInput(t, dir, "good.o", minCoreObject(nil))
	target := writeInput(t, dir, "vmlinux.btf", minCoreTarget().Marshal(binary.LittleEndian))
	split := btf.NewSpec(minCoreTarget())
	split.AddRef(btf.KindPtr, "", 2)
	split.AddStruct(false, "mod_only", 4, []btf.MemberSpec{{Name: "x", Type: 1}})
	for _, c := range []struct {
		name, input, output, want string
	}{
		{"split BTF", writeInput(t, dir, "mod.btf", split.Marshal(binary.LittleEndian)), filepath.Join(dir, "o1"), `not standalone BTF: .*split BTF`},
		{"not BTF", writeInput(t, dir, "junk", []byte("junk junk junk junk junk")), filepath.Join(dir, "o2"), `not BTF`},
		{"missing", filepath.Join(dir, "none.btf"), filepath.Join(dir, "o3"), `no such file`},
		{"OUTPUT a directory", target, dir, `is a directory`},
		{"OUTPUT in a missing folder", target, filepath.Join(dir, "no", "out.btf"), `folder .* does not exist|cannot create`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runChild(t, exe, nil, "gen", "min_core_btf", c.input, c.output, obj)
			name := c.input
			if strings.HasPrefix(c.name, "OUTPUT") {
				name = c.output
			}
			expectFailure(t, r, name, c.want)
		})
	}
}
