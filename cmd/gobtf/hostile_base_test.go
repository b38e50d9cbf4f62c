package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestHostileBase: a --btf_base that is no usable BTF. The input is a valid
// module-like object; the error must name the base, and nothing may be
// written. A FIFO used to block gobtf forever in open.
func TestHostileBase(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	good := btf.NewSpec(nil)
	good.AddInt("int", 4, btf.IntSigned, 32)
	raw := good.Marshal(binary.LittleEndian)
	cases := []struct {
		name, want string
		setup      func(t *testing.T, dir string) string
	}{
		{"FIFO", `not a regular file \(p---------\)`, func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("skipping: mkfifo: %v", err)
			}
			return p
		}},
		{"directory", `is a directory`, func(t *testing.T, dir string) string { return dir }},
		{"missing", `no such file`, func(t *testing.T, dir string) string { return filepath.Join(dir, "missing.btf") }},
		{"text file", `magic`, func(t *testing.T, dir string) string {
			return writeInput(t, dir, "text.btf", []byte("not BTF at all\n"))
		}},
		{"truncated BTF", `truncated|beyond|section`, func(t *testing.T, dir string) string {
			return writeInput(t, dir, "cut.btf", raw[:len(raw)-5])
		}},
		{"layout section past the end", `offset 0x18: layout section \[.*\) exceeds data`, func(t *testing.T, dir string) string {
			s := btf.NewSpec(nil)
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.SetLayout(btf.KindLayouts())
			b := s.Marshal(binary.LittleEndian)
			binary.LittleEndian.PutUint32(b[28:], 1<<20) // layout_len
			return writeInput(t, dir, "layout.btf", b)
		}},
		{"ELF without .BTF", `no \.BTF section`, func(t *testing.T, dir string) string {
			return writeInput(t, dir, "nobtf.o", relocatableELF(elfSection{Name: ".text", Data: []byte{0xc3}}))
		}},
	}
	info, abbrev := dwarfUnit(cu(intType()))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeInput(t, dir, "in.o", relocatableELF(elfSection{Name: ".debug_info", Data: info}, elfSection{Name: ".debug_abbrev", Data: abbrev}))
			base := c.setup(t, t.TempDir())
			out := filepath.Join(t.TempDir(), "out.btf")
			before := fileState(t, in)
			r := runChild(t, exe, nil, "-J", "--btf_base", base, "--btf_encode_detached="+out, in)
			expectFailure(t, r, base, c.want)
			if after := fileState(t, in); after != before {
				t.Errorf("input changed: %s -> %s", before, after)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("output written despite the error")
			}
			t.Logf("%s", r.stderr)
		})
	}
}
