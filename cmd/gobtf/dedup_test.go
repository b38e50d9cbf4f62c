package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// dedupInput builds three units that each define int, a self-referencing
// struct and a pointer to it: 9 types that deduplicate to 3.
func dedupInput() *btf.Spec {
	s := btf.NewSpec(nil)
	for u := btf.TypeID(0); u < 3; u++ {
		i := s.AddInt("int", 4, btf.IntSigned, 32)
		s.AddStruct(false, "node", 16, []btf.MemberSpec{{Name: "v", Type: i}, {Name: "next", Type: 3*u + 3, BitOffset: 64}})
		s.AddRef(btf.KindPtr, "", 3*u+2)
	}
	return s
}

func TestDedupCommand(t *testing.T) {
	dir := t.TempDir()
	in := dedupInput()
	le := filepath.Join(dir, "le.btf")
	be := filepath.Join(dir, "be.btf")
	if err := os.WriteFile(le, in.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(be, in.Marshal(binary.BigEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	elfIn := filepath.Join(dir, "in.o")
	toELF(t, le, elfIn, ".BTF")

	var want string
	for _, tc := range []struct {
		name, in string
		order    binary.ByteOrder
	}{{"raw little-endian", le, binary.LittleEndian}, {"raw big-endian", be, binary.BigEndian}, {"ELF", elfIn, binary.LittleEndian}} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			if _, stderr, code, err := runGobtf("dedup", tc.in, out); err != nil {
				t.Fatalf("exit %d: %v: %s", code, err, stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if tc.order.Uint16(data) != btf.Magic {
				t.Fatalf("output is not in the input's byte order (%v)", tc.order)
			}
			s, err := btf.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.NumTypes() != 3 {
				t.Errorf("got %d types, want 3", s.NumTypes())
			}
			var b bytes.Buffer
			if err := s.Dump(&b); err != nil {
				t.Fatal(err)
			}
			if want == "" {
				want = b.String()
			} else if b.String() != want {
				t.Errorf("result differs from the little-endian one:\n%s\nwant:\n%s", b.String(), want)
			}
		})
	}
}

// TestDedupCommandVsLibbpf compares the output bytes with those of libbpf's
// btf__dedup (the shared btfdedup tool), standalone and, on the shared
// reference data, for a module's split BTF on its base.
func TestDedupCommandVsLibbpf(t *testing.T) {
	btfdedup := testutil.Tool(t, "btfdedup")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.btf")
	if err := os.WriteFile(in, dedupInput().Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	kbuild := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	module := testutil.Reference(t, "modules/nf_conntrack.btf")
	for _, tc := range []struct {
		name string
		args []string // IN [--base BASE] [--libbpf-1.1.2]
	}{
		{"standalone", []string{in}},
		{"split", []string{module, "--base", kbuild}},
		// btfdedup links libbpf 1.1.2: it is the mode's oracle too.
		{"standalone libbpf-1.1.2", []string{in, "--libbpf-1.1.2"}},
		{"split libbpf-1.1.2", []string{module, "--base", kbuild, "--libbpf-1.1.2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, lib := filepath.Join(dir, tc.name+".gobtf"), filepath.Join(dir, tc.name+".libbpf")
			args := append([]string{"dedup", "--stats", tc.args[0], ours}, tc.args[1:]...)
			_, stderr, code, err := runGobtf(args...)
			if err != nil {
				t.Fatalf("exit %d: %v: %s", code, err, stderr)
			}
			if !strings.Contains(stderr, "types") || !strings.Contains(stderr, "structs") {
				t.Errorf("--stats printed no table:\n%s", stderr)
			}
			libArgs := append([]string{tc.args[0], lib}, slices.DeleteFunc(slices.Clone(tc.args[1:]), func(a string) bool { return a == "--libbpf-1.1.2" })...)
			if out, err := exec.Command(btfdedup, libArgs...).CombinedOutput(); err != nil {
				t.Fatalf("btfdedup: %v\n%s", err, out)
			}
			a, _ := os.ReadFile(ours)
			b, _ := os.ReadFile(lib)
			if !bytes.Equal(a, b) {
				t.Errorf("output (%d bytes) differs from libbpf's (%d bytes)", len(a), len(b))
			}
		})
	}
}

func TestDedupCommandErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not btf at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A type that references a type that does not exist.
	s := btf.NewSpec(nil)
	s.AddRef(btf.KindPtr, "", 7)
	dangling := filepath.Join(dir, "dangling.btf")
	if err := os.WriteFile(dangling, s.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no arguments", []string{"dedup"}, 2, "dedup: expected IN OUT, got no argument"},
		{"one argument", []string{"dedup", junk}, 2, "dedup: expected IN OUT, got 1 argument(s)"},
		{"missing input", []string{"dedup", filepath.Join(dir, "nope"), filepath.Join(dir, "o")}, 1, "no such file"},
		{"not BTF", []string{"dedup", junk, filepath.Join(dir, "o")}, 1, "bad magic"},
		{"dangling reference", []string{"dedup", dangling, filepath.Join(dir, "o")}, 1, "references a type beyond"},
		{"missing base", []string{"dedup", "--base", filepath.Join(dir, "nope"), dangling, filepath.Join(dir, "o")}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, code, err := runGobtf(tc.args...)
			if code != tc.code || err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("exit %d, error %v; want exit %d and an error containing %q", code, err, tc.code, tc.msg)
			}
		})
	}
}
