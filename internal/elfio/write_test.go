package elfio

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// cSource is compiled into every test input.
const cSource = `
int counter = 3;
static const char greeting[] = "hello";
int add(int a) { return a + counter + greeting[0]; }
int main(void) { return add(1); }
`

// buildInput compiles cSource with cc and args into dir/name, skipping the
// test when the compiler or target is missing.
func buildInput(t *testing.T, dir, name, cc string, args ...string) string {
	t.Helper()
	src := filepath.Join(dir, "in.c")
	if err := os.WriteFile(src, []byte(cSource), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	if err := testutil.Compile(t, "", cc, append(args, src, "-o", out)...); err != nil {
		t.Skipf("skipping: %s cannot build this input: %v", cc, err)
	}
	return out
}

// copyFile copies src to dst.
func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// rawSection returns a section's bytes as stored in the file (compressed
// sections are not decompressed).
func rawSection(t testing.TB, path string, s *elf.Section) []byte {
	t.Helper()
	if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, s.FileSize)
	if _, err := f.ReadAt(b, int64(s.Offset)); err != nil {
		t.Fatalf("%s: reading section %s: %v", path, s.Name, err)
	}
	return b
}

// checkWritten compares out (in after WriteSections(secs)) with in using
// debug/elf as the oracle: the same ELF header and program headers, every
// old section with the same header (offset included, except for the moved
// name table and replaced sections) and bytes, the name table grown from
// the old one, and each of secs with the right header and contents.
func checkWritten(t *testing.T, in, out string, secs []NewSection) {
	t.Helper()
	ef, err := elf.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	of, err := elf.Open(out)
	if err != nil {
		t.Fatalf("debug/elf cannot read the result: %v", err)
	}
	defer of.Close()
	if ef.FileHeader != of.FileHeader {
		t.Errorf("file header changed:\n in  %+v\n out %+v", ef.FileHeader, of.FileHeader)
	}
	if len(ef.Progs) != len(of.Progs) {
		t.Fatalf("%d program headers, want %d", len(of.Progs), len(ef.Progs))
	}
	for i := range ef.Progs {
		if ef.Progs[i].ProgHeader != of.Progs[i].ProgHeader {
			t.Errorf("program header %d changed: %+v -> %+v", i, ef.Progs[i].ProgHeader, of.Progs[i].ProgHeader)
		}
	}
	byName := make(map[string]NewSection)
	for _, s := range secs {
		byName[s.Name] = s
	}
	added := 0
	for _, s := range secs {
		if ef.Section(s.Name) == nil {
			added++
		}
	}
	if len(of.Sections) != len(ef.Sections)+added {
		t.Fatalf("%d sections, want %d + %d", len(of.Sections), len(ef.Sections), added)
	}
	shstrndx := shstrndxOf(t, in)
	for i, s := range ef.Sections {
		o := of.Sections[i]
		if _, isNew := byName[s.Name]; isNew && i > 0 {
			continue // checked below
		}
		want, got := s.SectionHeader, o.SectionHeader
		if i == shstrndx {
			if !bytes.HasPrefix(rawSection(t, out, o), rawSection(t, in, s)) {
				t.Errorf("section name table %s does not start with the old one", s.Name)
			}
			want.Offset, want.Size, want.FileSize = got.Offset, got.Size, got.FileSize
		} else if !bytes.Equal(rawSection(t, in, s), rawSection(t, out, o)) {
			t.Errorf("section %d %s: contents changed", i, s.Name)
		}
		if i == 0 {
			// The extended section count; debug/elf also reports it as
			// FileSize since section 0 is not SHT_NOBITS.
			want.Size, want.FileSize = got.Size, got.FileSize
		}
		if want != got {
			t.Errorf("section %d header changed:\n in  %+v\n out %+v", i, want, got)
		}
	}
	for _, s := range secs {
		o := of.Section(s.Name)
		if o == nil {
			t.Fatalf("no section %s in the result", s.Name)
		}
		if o.Type != elf.SHT_PROGBITS || o.Flags&^elf.SHF_GROUP != 0 && ef.Section(s.Name) == nil || o.Addralign != max(s.Align, 1) || o.Entsize != 0 {
			t.Errorf("section %s: header %+v, want PROGBITS, flags 0, align %d", s.Name, o.SectionHeader, max(s.Align, 1))
		}
		if !bytes.Equal(rawSection(t, out, o), s.Data) {
			t.Errorf("section %s: contents differ from the data written", s.Name)
		}
		if o.Offset%max(s.Align, 1) != 0 {
			t.Errorf("section %s: offset %#x not aligned to %d", s.Name, o.Offset, s.Align)
		}
	}
}

// shstrndxOf returns the real section name table index of the file.
func shstrndxOf(t testing.TB, path string) int {
	t.Helper()
	fd, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	fi, _ := fd.Stat()
	f, err := readELF(fd, uint64(fi.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return f.shstrndx
}

// dumpSection returns the section's contents as objcopy --dump-section (or
// llvm-objcopy, for targets GNU objcopy does not know) extracts them.
func dumpSection(t *testing.T, path, name string) []byte {
	t.Helper()
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump")
	var last []byte
	for _, tool := range []string{"objcopy", "llvm-objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			continue
		}
		msg, err := exec.Command(tool, "--dump-section", name+"="+dump, path, filepath.Join(dir, "discard")).CombinedOutput()
		if err == nil {
			b, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		last = msg
	}
	t.Fatalf("neither objcopy nor llvm-objcopy could dump %s from %s: %s", name, path, last)
	return nil
}

// toolLines runs a checker and returns its diagnostic lines (stderr, and
// stdout for eu-elflint), with the file name replaced by FILE.
func toolLines(t *testing.T, path string, stdout bool, name string, args ...string) []string {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("skipping: %s not installed", name)
	}
	var o, e bytes.Buffer
	cmd := exec.Command(name, append(args, path)...)
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.Run()
	text := e.String()
	if stdout {
		text += o.String()
	}
	var lines []string
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.ReplaceAll(l, path, "FILE")
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "No errors") {
			lines = append(lines, l)
		}
	}
	return lines
}

// checkTools runs readelf and eu-elflint on out and on ref (the same input
// after llvm-objcopy --add-section, or the input itself) and reports any
// diagnostic of out that ref does not have.
func checkTools(t *testing.T, out string, refs []string, readelfArgs ...string) {
	t.Helper()
	checkToolsExcept(t, out, refs, nil, readelfArgs...)
}

// checkToolsExcept is checkTools that also accepts the diagnostics
// containing one of the allowed strings.
func checkToolsExcept(t *testing.T, out string, refs, allowed []string, readelfArgs ...string) {
	t.Helper()
	type check struct {
		name   string
		stdout bool
		args   []string
	}
	for _, c := range []check{{"readelf", false, readelfArgs}, {"eu-elflint", true, []string{"--gnu-ld"}}} {
		got := toolLines(t, out, c.stdout, c.name, c.args...)
		var known []string
		for _, r := range refs {
			known = append(known, toolLines(t, r, c.stdout, c.name, c.args...)...)
		}
		for _, l := range got {
			if !slices.Contains(known, l) && !slices.ContainsFunc(allowed, func(a string) bool { return strings.Contains(l, a) }) {
				t.Errorf("%s reports for the result only: %s", c.name, l)
			}
		}
		t.Logf("%s: %d diagnostic lines (reference files: %d)", c.name, len(got), len(known))
	}
}

// llvmAdd returns a copy of in with secs added by llvm-objcopy --add-section,
// or "" when llvm-objcopy is missing or refuses the file.
func llvmAdd(t *testing.T, in string, secs []NewSection) string {
	t.Helper()
	if _, err := exec.LookPath("llvm-objcopy"); err != nil {
		return ""
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "llvm-out")
	args := []string{}
	for i, s := range secs {
		data := filepath.Join(dir, fmt.Sprint("data", i))
		if err := os.WriteFile(data, s.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--add-section", s.Name+"="+data)
	}
	if msg, err := exec.Command("llvm-objcopy", append(args, in, out)...).CombinedOutput(); err != nil {
		t.Logf("llvm-objcopy cannot add the sections (compared with the input only): %v %s", err, msg)
		return ""
	}
	return out
}

// testData returns n bytes of recognisable data.
func testData(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// writeAndCheck copies in, writes secs into the copy and runs all checks.
func writeAndCheck(t *testing.T, in string, secs []NewSection, readelfArgs ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out-"+filepath.Base(in))
	copyFile(t, in, out)
	if err := WriteSections(out, secs); err != nil {
		t.Fatalf("WriteSections: %v", err)
	}
	checkWritten(t, in, out, secs)
	for _, s := range secs {
		if got := dumpSection(t, out, s.Name); !bytes.Equal(got, s.Data) {
			t.Errorf("objcopy --dump-section %s: %d bytes, want the %d written", s.Name, len(got), len(s.Data))
		}
	}
	refs := []string{in}
	if r := llvmAdd(t, in, secs); r != "" {
		refs = append(refs, r)
	}
	if len(readelfArgs) == 0 {
		readelfArgs = []string{"-a", "-W"}
	}
	checkTools(t, out, refs, readelfArgs...)
	return out
}

func TestWriteSections(t *testing.T) {
	btf := NewSection{Name: ".BTF", Data: testData(1000, 1)}
	two := []NewSection{btf, {Name: ".BTF.base", Data: testData(333, 2), Align: 8}}
	cases := []struct {
		name string
		cc   string
		args []string
		secs []NewSection
	}{
		{"x86_64 ET_REL", "gcc", []string{"-g", "-c"}, []NewSection{btf}},
		{"x86_64 ET_EXEC", "gcc", []string{"-g", "-no-pie"}, []NewSection{btf}},
		{"x86_64 ET_DYN pie", "gcc", []string{"-g", "-pie", "-fPIE"}, two},
		{"x86_64 ET_DYN shared", "gcc", []string{"-g", "-shared", "-fPIC"}, []NewSection{btf}},
		{"x86_64 clang ET_REL two", "clang", []string{"-g", "-c"}, two},
		{"i386 ET_REL", "gcc", []string{"-m32", "-g", "-c"}, two},
		{"i386 ET_EXEC", "gcc", []string{"-m32", "-g", "-nostdlib", "-static", "-Wl,-e,add"}, []NewSection{btf}},
		{"i386 ET_DYN", "gcc", []string{"-m32", "-g", "-nostdlib", "-shared", "-fPIC"}, two},
		{"s390x ET_REL big-endian", "clang", []string{"--target=s390x-linux-gnu", "-g", "-c"}, two},
		{"ppc64 ET_REL big-endian", "clang", []string{"--target=powerpc64-linux-gnu", "-g", "-c"}, []NewSection{btf}},
		{"mips ET_REL 32-bit big-endian", "clang", []string{"--target=mips-linux-gnu", "-g", "-c"}, two},
		{"aarch64 ET_REL", "clang", []string{"--target=aarch64-linux-gnu", "-g", "-c"}, []NewSection{btf}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := buildInput(t, t.TempDir(), "in", c.cc, c.args...)
			out := writeAndCheck(t, in, c.secs)

			// Replacing: new data of another size in the written file.
			again := make([]NewSection, len(c.secs))
			for i, s := range c.secs {
				again[i] = NewSection{Name: s.Name, Data: testData(len(s.Data)*3+5, 9), Align: s.Align}
			}
			out2 := writeAndCheck(t, out, again)

			// Writing the first data again gives the first file byte for byte:
			// the replaced tail is dropped, not accumulated.
			if err := WriteSections(out2, c.secs); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(out)
			b, _ := os.ReadFile(out2)
			if !bytes.Equal(a, b) {
				t.Errorf("writing the same sections again: %d bytes, first write %d bytes; files differ", len(b), len(a))
			}
		})
	}
}
