package elfio

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// inputFile is one file the comparison tests run on.
type inputFile struct {
	name string
	path string
}

// testInputs returns the fixtures that could be built and the corpus files
// that are present (heavy ones only without -short); vmlinux is included
// when withVmlinux is set and -short is not.
func testInputs(t *testing.T, withVmlinux bool) []inputFile {
	t.Helper()
	var in []inputFile
	for _, fx := range buildFixtures(t) {
		if fx.path == "" {
			t.Logf("fixture %s not built: %s", fx.name, fx.skip)
			continue
		}
		in = append(in, inputFile{fx.name, fx.path})
	}
	if testutil.SeedFiles("corpus") == nil {
		t.Log("shared corpus absent: kernel files not compared")
		return in
	}
	for _, c := range corpusFiles {
		if c.heavy && testing.Short() {
			continue
		}
		in = append(in, inputFile{filepath.Base(c.name), testutil.Corpus(t, c.name)})
	}
	if withVmlinux && !testing.Short() {
		in = append(in, inputFile{"vmlinux", testutil.Corpus(t, testutil.VmlinuxName)})
	}
	return in
}

// eachInput runs fn as a subtest on each test input (testInputs), opened
// with Open.
func eachInput(t *testing.T, withVmlinux bool, fn func(t *testing.T, in inputFile, f *File)) {
	t.Helper()
	for _, in := range testInputs(t, withVmlinux) {
		t.Run(in.name, func(t *testing.T) {
			f, err := Open(in.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fn(t, in, f)
		})
	}
}

// stdELF opens path with debug/elf, the reference the tests compare with,
// and closes it when the test ends.
func stdELF(t *testing.T, path string) *elf.File {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ef.Close() })
	return ef
}

// eachRelocatable is eachInput on the relocatable files among the inputs;
// the others are skipped.
func eachRelocatable(t *testing.T, fn func(t *testing.T, in inputFile, f *File)) {
	t.Helper()
	eachInput(t, false, func(t *testing.T, in inputFile, f *File) {
		if f.Type != elf.ET_REL {
			t.Skip("not a relocatable file")
		}
		fn(t, in, f)
	})
}

// TestSectionsMatchDebugELF compares the header and every section header
// and section's contents with what Go's debug/elf reads.
func TestSectionsMatchDebugELF(t *testing.T) {
	eachInput(t, true, func(t *testing.T, in inputFile, f *File) {
		ef := stdELF(t, in.path)
		compareWithDebugELF(t, f, ef)
	})
}

func compareWithDebugELF(t *testing.T, f *File, ef *elf.File) {
	t.Helper()
	if f.Class != ef.Class || f.Data != ef.Data || f.Type != ef.Type || f.Machine != ef.Machine || f.Entry != ef.Entry || f.OSABI != ef.OSABI {
		t.Errorf("header: got %v %v %v %v %#x %v, debug/elf %v %v %v %v %#x %v",
			f.Class, f.Data, f.Type, f.Machine, f.Entry, f.OSABI, ef.Class, ef.Data, ef.Type, ef.Machine, ef.Entry, ef.OSABI)
	}
	secs := f.Sections()
	if len(secs) != len(ef.Sections) {
		t.Fatalf("%d sections, debug/elf has %d", len(secs), len(ef.Sections))
	}
	for i, es := range ef.Sections {
		s := &secs[i]
		want := Section{Name: es.Name, Index: i, Type: es.Type, Flags: es.Flags, Addr: es.Addr, Offset: es.Offset,
			Size: es.FileSize, Link: es.Link, Info: es.Info, Addralign: es.Addralign, Entsize: es.Entsize}
		if s.Flags&elf.SHF_COMPRESSED != 0 {
			want.Addralign = s.Addralign // debug/elf reports ch_addralign instead
		}
		if *s != want {
			t.Errorf("section %d:\n got %+v\nwant %+v", i, *s, want)
			continue
		}
		if strings.HasPrefix(s.Name, ".zdebug") || s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
			continue // debug/elf returns .zdebug sections still compressed
		}
		got, err := f.SectionData(s)
		if err != nil {
			t.Errorf("section %s: %v", s.Name, err)
			continue
		}
		wantData, err := es.Data()
		if err != nil {
			t.Errorf("debug/elf: section %s: %v", s.Name, err)
			continue
		}
		if !bytes.Equal(got, wantData) {
			t.Errorf("section %s: %d bytes differ from debug/elf's %d", s.Name, len(got), len(wantData))
		}
	}
	if len(secs) > 0 && f.Section(secs[len(secs)-1].Name) == nil {
		t.Errorf("Section(%q) not found", secs[len(secs)-1].Name)
	}
}

// TestSectionsMatchReadelf compares every section's contents (decompressed,
// unrelocated) with readelf -z -x, for the fixtures and small modules.
func TestSectionsMatchReadelf(t *testing.T) {
	for _, in := range testInputs(t, false) {
		if fi, err := os.Stat(in.path); err == nil && fi.Size() > 8<<20 {
			continue // the hex dump of a large file takes long to parse
		}
		t.Run(in.name, func(t *testing.T) {
			f, err := Open(in.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var names []string
			count := map[string]int{}
			for _, s := range f.Sections() {
				count[s.Name]++
			}
			for _, s := range f.Sections()[1:] {
				if count[s.Name] == 1 && s.Type != elf.SHT_NOBITS && s.Size > 0 {
					names = append(names, s.Name)
				}
			}
			dumps := byName(readelfDumps(t, in.path, "-x", names))
			for _, name := range names {
				want, ok := dumps[name]
				if !ok {
					t.Errorf("readelf dumped no section %s", name)
					continue
				}
				got, err := f.SectionData(f.Section(name))
				if err != nil {
					t.Errorf("%v", err)
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("section %s: %d bytes differ from readelf's %d", name, len(got), len(want))
				}
			}
		})
	}
}

// openMapped opens path, which must be big enough to be mapped, and closes
// it when the test ends.
func openMapped(t *testing.T, path string) *File {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if !f.mapped {
		t.Fatalf("a %d-byte regular file was not mapped", len(f.data))
	}
	return f
}

// TestPlainSectionsAreZeroCopy checks that a mapped file's plain sections
// are slices of the mapping, capped so appends cannot write into it.
func TestPlainSectionsAreZeroCopy(t *testing.T) {
	f := openMapped(t, testutil.Corpus(t, "modules/virtio_blk.ko"))
	s := f.Section(".debug_str")
	if s == nil {
		t.Fatal("no .debug_str")
	}
	b, err := f.SectionData(s)
	if err != nil {
		t.Fatal(err)
	}
	if &b[0] != &f.data[s.Offset] || cap(b) != len(b) {
		t.Errorf(".debug_str is not a capped slice of the mapping")
	}
}

// TestExtendedNumbering assembles an object with more sections than the
// header's 16-bit fields hold (so e_shnum is 0 and e_shstrndx SHN_XINDEX)
// and symbols whose section index lives in .symtab_shndx, and compares
// with readelf and debug/elf.
func TestExtendedNumbering(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: assembling 66,000 sections takes a few seconds")
	}
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("skipping: as is not installed")
	}
	dir := t.TempDir()
	var b strings.Builder
	const n = 66000
	for i := range n {
		fmt.Fprintf(&b, ".section .s%d,\"a\"\n.globl sym%d\nsym%d: .byte %d\n", i, i, i, i%256)
	}
	src, obj := filepath.Join(dir, "many.s"), filepath.Join(dir, "many.o")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "--64", src, "-o", obj).CombinedOutput(); err != nil {
		t.Skipf("skipping: as cannot assemble the x86-64 source: %v: %s", err, out)
	}
	raw, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	if shnum := raw[60] | raw[61]; shnum != 0 {
		t.Fatalf("as did not use extended numbering (e_shnum %d)", shnum)
	}
	f, err := Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ef, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	compareWithDebugELF(t, f, ef)

	// readelf -sW resolves SHN_XINDEX through .symtab_shndx in its Ndx column.
	out, err := exec.Command("readelf", "-sW", obj).Output()
	if err != nil {
		t.Skipf("skipping symbol check: readelf: %v", err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		fs := strings.Fields(line)
		if len(fs) == 8 && strings.HasPrefix(fs[7], "sym") {
			want[fs[7]] = fs[6]
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	seen, high := 0, 0
	for _, s := range syms {
		ndx, ok := want[s.Name]
		if !ok {
			continue
		}
		seen++
		if s.Section >= uint32(elf.SHN_LORESERVE) {
			high++
		}
		if got := fmt.Sprint(s.Section); got != ndx {
			t.Errorf("symbol %s: section %s, readelf says %s", s.Name, got, ndx)
		}
	}
	if seen != n || high == 0 {
		t.Errorf("compared %d of %d symbols (%d with extended indexes)", seen, n, high)
	}
}

// TestOpenErrors feeds malformed files and checks for a *FormatError that
// names the file, with the expected message.
func TestOpenErrors(t *testing.T) {
	good := fixtureBytes(t)
	le := func(b []byte, off int, v uint64, n int) []byte {
		c := bytes.Clone(b)
		for i := range n {
			c[off+i] = byte(v >> (8 * i))
		}
		return c
	}
	shoff := int(leUint64(good[40:]))
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not an ELF file"},
		{"not ELF", []byte("#!/bin/sh\necho hello world\n"), "not an ELF file"},
		{"header only ident", good[:16], "truncated ELF header"},
		{"bad class", le(good, 4, 7, 1), "unknown ELF class 7"},
		{"bad data", le(good, 5, 9, 1), "unknown data encoding 9"},
		{"bad version", le(good, 6, 2, 1), "unknown ELF version"},
		{"shoff beyond file", le(good, 40, 1<<40, 8), "section header table beyond the file"},
		{"small shentsize", le(good, 58, 20, 2), "section header size 20"},
		{"too many sections", le(good, 60, 0xfff0, 2), "section headers of 64 bytes exceed the file"},
		{"extended count absurd", le(le(good, 60, 0, 2), shoff+32, 1<<50, 8), "section headers of 64 bytes exceed the file"},
		{"shstrndx out of range", le(good, 62, 0xfeff, 2), "section name table index 65279 out of range"},
		{"truncated", good[:shoff+100], "exceed the file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFile("bad.o", tc.data)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FormatError", err)
			}
			if fe.File != "bad.o" || !strings.HasPrefix(err.Error(), "bad.o: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to start with the file name and contain %q", err, tc.want)
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}
}

// fixtureBytes returns the bytes of the plain gcc x86-64 fixture.
func fixtureBytes(t testing.TB) []byte {
	t.Helper()
	for _, fx := range buildFixtures(t) {
		if fx.name == "gcc-x86_64" {
			if fx.path == "" {
				t.Skipf("skipping: %s", fx.skip)
			}
			b, err := os.ReadFile(fx.path)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatal("no gcc-x86_64 fixture")
	return nil
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}
