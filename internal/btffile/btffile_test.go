package btffile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil/dwarfgen"
)

// specs returns a base (int, struct s) and a split on it (a pointer to s,
// a struct of its own), and their raw bytes.
func specs(t *testing.T) (base, split *btf.Spec, baseRaw, splitRaw []byte) {
	t.Helper()
	base = btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	s := base.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "a", Type: i}})
	split = btf.NewSpec(base)
	p := split.AddRef(btf.KindPtr, "", s)
	split.AddStruct(false, "m", 8, []btf.MemberSpec{{Name: "p", Type: p}})
	return base, split, base.Marshal(binary.LittleEndian), split.Marshal(binary.LittleEndian)
}

// dump is the bpftool dump of s's own types.
func dump(t *testing.T, s *btf.Spec) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpen reads raw BTF and an ELF file's .BTF, standalone and split, in
// every Memory, and from an io.ReaderAt: the same types each time.
func TestOpen(t *testing.T) {
	base, split, baseRaw, splitRaw := specs(t)
	want := dump(t, split)
	rawPath := write(t, "split.btf", splitRaw)
	elfPath := write(t, "m.o", dwarfgen.RelocatableELF(dwarfgen.Section{Name: ".BTF", Data: splitRaw}))
	for _, path := range []string{rawPath, elfPath} {
		for _, mem := range []Memory{Copy, Mapped, Loading} {
			f, err := Open(path, Options{Base: base, Memory: mem, Workers: 2})
			if err != nil {
				t.Fatalf("%s, memory %d: %v", path, mem, err)
			}
			if got := dump(t, f.Spec); got != want {
				t.Errorf("%s, memory %d: got\n%s\nwant\n%s", path, mem, got, want)
			}
			f.Close()
			f.Close() // twice is fine
		}
		data, _ := os.ReadFile(path)
		f, err := Read(bytes.NewReader(data), int64(len(data)), path, Options{Base: base})
		if err != nil {
			t.Fatal(err)
		}
		if got := dump(t, f.Spec); got != want {
			t.Errorf("Read %s: got\n%s\nwant\n%s", path, got, want)
		}
	}
	if f, err := Open(write(t, "base.btf", baseRaw), Options{}); err != nil || f.Spec.TypeCount() != 2 {
		t.Errorf("base: %v", err)
	}
}

// TestDistilled reads an out-of-tree module's .BTF on its .BTF.base, and,
// given the full base, relocated onto it: the split's types come back.
func TestDistilled(t *testing.T) {
	base, split, _, _ := specs(t)
	dist, dsplit, err := btf.DistillBase(split)
	if err != nil {
		t.Fatal(err)
	}
	path := write(t, "m.ko", dwarfgen.RelocatableELF(
		dwarfgen.Section{Name: ".BTF", Data: dsplit.Marshal(binary.LittleEndian)},
		dwarfgen.Section{Name: ".BTF.base", Data: dist.Marshal(binary.LittleEndian)}))
	f, err := Open(path, Options{DistilledBase: true})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Distilled || f.Spec.Base() == nil || f.Spec.Base().TypeCount() != dist.TypeCount() {
		t.Errorf("on the distilled base: distilled %v", f.Distilled)
	}
	f, err = Open(path, Options{DistilledBase: true, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, f.Spec), dump(t, split); got != want {
		t.Errorf("relocated: got\n%s\nwant\n%s", got, want)
	}
	// Without DistilledBase, .BTF.base is ignored.
	if f, err := Open(path, Options{}); err == nil && (f.Distilled || f.Spec.Base() != nil) {
		t.Error(".BTF.base read without DistilledBase")
	}
}

// TestErrors: every error names the file; BTF that does not decode is a
// ParseError, a file that cannot be read is not.
func TestErrors(t *testing.T) {
	_, _, _, splitRaw := specs(t)
	bad := write(t, "bad.btf", []byte("not BTF at all"))
	_, err := Open(bad, Options{})
	if pe, ok := IsParseError(err); !ok || pe.Path != bad || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad BTF: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "missing.btf")
	if _, err := Open(missing, Options{}); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	} else if _, ok := IsParseError(err); ok {
		t.Error("a missing file is a ParseError")
	}
	noBTF := write(t, "x.o", dwarfgen.RelocatableELF(dwarfgen.Section{Name: ".text", Data: []byte{0xc3}}))
	for _, mem := range []Memory{Copy, Mapped, Loading} {
		if _, err := Open(noBTF, Options{Memory: mem}); !errors.Is(err, elfio.ErrNoBTF) || !strings.Contains(err.Error(), noBTF) {
			t.Errorf("memory %d: ELF without .BTF: %v", mem, err)
		}
	}
	cut := write(t, "cut.btf", splitRaw[:len(splitRaw)-3])
	if _, err := Open(cut, Options{Memory: Loading}); err == nil || !strings.Contains(err.Error(), cut) {
		t.Errorf("truncated: %v", err)
	}
}

// FuzzRead: any bytes, raw or in an ELF file, are read or refused with an
// error, never a panic.
func FuzzRead(f *testing.F) {
	_, _, baseRaw, _ := specs(&testing.T{})
	f.Add(baseRaw, false)
	f.Add(dwarfgen.RelocatableELF(dwarfgen.Section{Name: ".BTF", Data: baseRaw}), true)
	f.Fuzz(func(t *testing.T, data []byte, distilled bool) {
		Read(bytes.NewReader(data), int64(len(data)), "fuzz", Options{DistilledBase: distilled})
	})
}
