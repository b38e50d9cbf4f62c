package elfio

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fixtureSource is a self-contained C file (no headers, so cross targets
// need no sysroot) with enough types, strings, functions and globals to
// produce every common DWARF form and relocation, and sections large enough
// that compressing them pays.
func fixtureSource() string {
	var b strings.Builder
	b.WriteString("typedef unsigned long size_t;\n")
	for i := range 60 {
		fmt.Fprintf(&b, "struct s%d { int a%d; long b; const char *name; struct s%d *next; unsigned bits : 3; union { int x; float y; } u; };\n", i, i, i)
		fmt.Fprintf(&b, "struct s%d g%d = { .a%d = %d, .name = \"n%d\" };\n", i, i, i, i, i)
		fmt.Fprintf(&b, "int f%d(struct s%d *p, size_t n) { int r = 0; for (size_t i = 0; i < n; i++) r += p[i].a%d * %d; return r + (p->next ? p->next->a%d : 0); }\n", i, i, i, i+1, i)
	}
	b.WriteString("static int counter;\nint bump(void) { return ++counter; }\n")
	return b.String()
}

// fixture is one compiled test object.
type fixture struct {
	name string   // test name
	tool string   // compiler or assembler
	args []string // arguments before the source and -o
	post []string // optional objcopy arguments applied to the output
	src  string   // ".c" for the full source, "tiny.c" for a few lines
	path string   // built file, "" when the toolchain cannot build it
	skip string   // why it is missing
}

var fixtureSpecs = []fixture{
	{name: "gcc-x86_64", tool: "gcc", args: []string{"-c", "-g", "-O1"}, src: ".c"},
	{name: "gcc-x86_64-dwarf4-types", tool: "gcc", args: []string{"-c", "-gdwarf-4", "-fdebug-types-section", "-O1"}, src: ".c"},
	{name: "gcc-x86_64-gz-zlib", tool: "gcc", args: []string{"-c", "-g", "-O1", "-gz=zlib"}, src: ".c"},
	{name: "gcc-x86_64-gz-zlib-gnu", tool: "gcc", args: []string{"-c", "-g", "-O1", "-gz=zlib-gnu"}, src: ".c"},
	{name: "gcc-x86_64-zstd", tool: "gcc", args: []string{"-c", "-g", "-O1"}, post: []string{"--compress-debug-sections=zstd"}, src: ".c"},
	// A section aligned beyond libdwfl's 64 KiB base restarts its layout.
	{name: "gcc-x86_64-align128k", tool: "gcc", args: []string{"-c", "-g", "-O1"}, post: []string{"--set-section-alignment", ".data=131072"}, src: ".c"},
	{name: "gcc-i386", tool: "gcc", args: []string{"-m32", "-c", "-g", "-O1"}, src: ".c"},
	{name: "gcc-i386-gz-zlib", tool: "gcc", args: []string{"-m32", "-c", "-g", "-O1", "-gz=zlib"}, src: ".c"},
	{name: "clang-x86_64", tool: "clang", args: []string{"--target=x86_64-linux-gnu", "-c", "-g", "-O1"}, src: ".c"},
	{name: "clang-i386", tool: "clang", args: []string{"--target=i386-linux-gnu", "-c", "-g", "-O1"}, src: ".c"},
	{name: "clang-arm", tool: "clang", args: []string{"--target=arm-linux-gnueabi", "-c", "-g", "-O1"}, src: ".c"},
	{name: "clang-aarch64", tool: "clang", args: []string{"--target=aarch64-linux-gnu", "-c", "-g", "-O1"}, src: ".c"},
	{name: "clang-riscv64", tool: "clang", args: []string{"--target=riscv64-linux-gnu", "-c", "-g", "-O1"}, src: ".c"},
	{name: "clang-s390x", tool: "clang", args: []string{"--target=s390x-linux-gnu", "-c", "-g", "-O1"}, src: ".c"},
	{name: "clang-s390x-gz-zlib", tool: "clang", args: []string{"--target=s390x-linux-gnu", "-c", "-g", "-O1", "-gz=zlib"}, src: ".c"},
	{name: "clang-s390x-dwarf4", tool: "clang", args: []string{"--target=s390x-linux-gnu", "-c", "-gdwarf-4", "-O1"}, src: ".c"},
	{name: "clang-ppc64-dwarf4", tool: "clang", args: []string{"--target=powerpc64-linux-gnu", "-c", "-gdwarf-4", "-O1"}, src: ".c"},
	{name: "clang-ppc64le", tool: "clang", args: []string{"--target=powerpc64le-linux-gnu", "-c", "-g", "-O1"}, src: ".c"},
	{name: "clang-ppc64", tool: "clang", args: []string{"--target=powerpc64-linux-gnu", "-c", "-g", "-O1"}, src: ".c"},
	// Tiny objects seed the fuzzer, which slows down on large inputs.
	{name: "tiny-x86_64-gz-zlib", tool: "clang", args: []string{"--target=x86_64-linux-gnu", "-c", "-g", "-gz=zlib"}, src: "tiny.c"},
	{name: "tiny-x86_64-zstd", tool: "clang", args: []string{"--target=x86_64-linux-gnu", "-c", "-g"}, post: []string{"--compress-debug-sections=zstd"}, src: "tiny.c"},
	{name: "tiny-i386", tool: "clang", args: []string{"--target=i386-linux-gnu", "-c", "-g"}, src: "tiny.c"},
	{name: "tiny-s390x", tool: "clang", args: []string{"--target=s390x-linux-gnu", "-c", "-g"}, src: "tiny.c"},
	{name: "tiny-riscv64", tool: "clang", args: []string{"--target=riscv64-linux-gnu", "-c", "-g"}, src: "tiny.c"},
	{name: "tiny-arm", tool: "clang", args: []string{"--target=arm-linux-gnueabi", "-c", "-g"}, src: "tiny.c"},
	{name: "gcc-x86_64-linked-emit-relocs", tool: "gcc", args: []string{"-g", "-O1", "-nostdlib", "-static", "-Wl,--emit-relocs", "-Wl,-e,bump"}, src: ".c"},
}

var (
	fixturesOnce sync.Once
	fixtures     []fixture
	fixtureDir   string
)

// TestMain removes the fixture folder after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// buildFixtures compiles every fixture once per test binary; fixtures
// whose toolchain is missing or rejects the target get a skip reason.
func buildFixtures(t testing.TB) []fixture {
	t.Helper()
	fixturesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "elfio-fixtures")
		if err != nil {
			t.Fatalf("creating fixture folder: %v", err)
		}
		fixtureDir = dir
		src := filepath.Join(dir, "fixture.c")
		if err := os.WriteFile(src, []byte(fixtureSource()), 0o644); err != nil {
			t.Fatal(err)
		}
		tiny := "struct s { int a; const char *n; } g = { 1, \"x\" };\nint f(struct s *p) { return p->a + g.a; }\n"
		if err := os.WriteFile(filepath.Join(dir, "tiny.c"), []byte(tiny), 0o644); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		fixtures = append([]fixture(nil), fixtureSpecs...)
		for i := range fixtures {
			fx := &fixtures[i]
			in := src
			if fx.src == "tiny.c" {
				in = filepath.Join(dir, "tiny.c")
			}
			wg.Go(func() { fx.build(dir, in) })
		}
		wg.Wait()
	})
	return fixtures
}

func (fx *fixture) build(dir, src string) {
	tool, err := exec.LookPath(fx.tool)
	if err != nil {
		fx.skip = fx.tool + " is not installed"
		return
	}
	out := filepath.Join(dir, fx.name+".o")
	args := append(append([]string{}, fx.args...), src, "-o", out)
	if msg, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		fx.skip = fmt.Sprintf("%s %s: %v: %s", fx.tool, strings.Join(args, " "), err, firstLine(msg))
		return
	}
	if fx.post != nil {
		oc, err := exec.LookPath("objcopy")
		if err != nil {
			fx.skip = "objcopy is not installed"
			return
		}
		args := append(append([]string{}, fx.post...), out)
		if msg, err := exec.Command(oc, args...).CombinedOutput(); err != nil {
			fx.skip = fmt.Sprintf("objcopy %s: %v: %s", strings.Join(args, " "), err, firstLine(msg))
			return
		}
	}
	fx.path = out
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// corpusFile is a real kernel file from the shared corpus.
type corpusFile struct {
	name  string // corpus name for testutil.Corpus
	heavy bool   // skipped with -short
}

var corpusFiles = []corpusFile{
	{name: "modules/nls_utf8.ko"},
	{name: "modules/tcp_bbr.ko"},
	{name: "modules/virtio_blk.ko"},
	{name: "modules/virtio_net.ko"},
	{name: "modules/nf_conntrack.ko", heavy: true},
	{name: "modules/xfs.ko", heavy: true},
}

// readelfDumps runs readelf -z (decompressing) with one dump option per
// requested section (opt is "-x" for raw contents, "-R" for relocated
// ones) and decodes each hex dump. readelf prints the dumps in section
// index order, naming each; the result lists them in that order. Sections
// readelf has no data for are absent from the result.
func readelfDumps(t testing.TB, path, opt string, names []string) []sectionDump {
	t.Helper()
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("skipping: readelf is not installed")
	}
	args := []string{"-z"}
	for _, n := range names {
		args = append(args, opt, n)
	}
	cmd := exec.Command(readelf, append(args, path)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("readelf %s ... %s: %v: %s", opt, path, err, stderr.String())
	}
	var res []sectionDump
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "Hex dump of section '"); ok {
			res = append(res, sectionDump{name: strings.TrimSuffix(rest, "':"), data: []byte{}})
			continue
		}
		if !strings.HasPrefix(line, "  0x") || len(res) == 0 {
			continue
		}
		rest := line[4:]
		sp := strings.IndexByte(rest, ' ')
		if sp < 0 {
			continue
		}
		rest = rest[sp+1:]
		// Four groups of up to eight hex digits, each followed by a space,
		// then the bytes as text.
		if len(rest) > 36 {
			rest = rest[:36]
		}
		b, err := hex.DecodeString(strings.ReplaceAll(rest, " ", ""))
		if err != nil {
			t.Fatalf("readelf dump line %q: %v", line, err)
		}
		cur := &res[len(res)-1]
		cur.data = append(cur.data, b...)
	}
	return res
}

// sectionDump is one section's contents as readelf printed them.
type sectionDump struct {
	name string
	data []byte
}

// byName maps the dumps' section names to their contents, concatenating
// the dumps of sections sharing a name in order.
func byName(dumps []sectionDump) map[string][]byte {
	m := make(map[string][]byte)
	for _, d := range dumps {
		m[d.name] = append(m[d.name], d.data...)
	}
	return m
}
