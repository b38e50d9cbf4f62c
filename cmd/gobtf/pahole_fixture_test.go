package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// paholeFixtures are the C files of testdata/pahole: each reproduces a
// difference found between gobtf and pahole 1.31 on real code, in a case
// where apt's pahole (1.24) and 1.31 agree, so the installed pahole is the
// oracle. check, when set, makes sure the built file still has the property
// that made the difference (so the test cannot pass vacuously).
var paholeFixtures = []struct {
	src   string
	cc    string
	check func(t *testing.T, path string)
}{
	{"gotoff_i386.c", "gcc", func(t *testing.T, path string) {
		requireReloc(t, path, ".rel.debug_info", elf.R_386_GOTOFF.String())
	}},
	{"asmonly.S", "clang", requireDebugInfo}, // no type: pahole writes no file
	{"asmonly.S", "gcc", requireDebugInfo},   // one FUNC
}

// TestEncodeMatchesPaholeFixtures builds each fixture with its first-line
// command and compares gobtf -J with pahole -J on it, every kind included;
// where pahole writes no file, gobtf must not either.
func TestEncodeMatchesPaholeFixtures(t *testing.T) {
	pahole, err := exec.LookPath("pahole")
	if err != nil {
		t.Skip("skipping: pahole (dwarves) is not installed")
	}
	for _, fx := range paholeFixtures {
		t.Run(fx.src+"/"+fx.cc, func(t *testing.T) {
			obj := buildPaholeFixture(t, fx.cc, fx.src)
			if fx.check != nil {
				fx.check(t, obj)
			}
			ours, ref := obj+".gobtf.btf", obj+".pahole.btf"
			mustGobtf(t, "-J", "--btf_encode_detached="+ours, obj)
			if b, err := exec.Command(pahole, "-J", "--btf_encode_detached="+ref, obj).CombinedOutput(); err != nil {
				t.Fatalf("pahole -J %s: %v\n%s", obj, err, b)
			}
			_, refErr := os.Stat(ref)
			_, ourErr := os.Stat(ours)
			switch {
			case os.IsNotExist(refErr) && os.IsNotExist(ourErr):
				// Neither wrote anything: equal.
			case os.IsNotExist(refErr):
				t.Fatalf("gobtf wrote %s where pahole writes nothing", ours)
			case os.IsNotExist(ourErr):
				t.Fatalf("gobtf wrote nothing where pahole writes %s", ref)
			default:
				tool(t, "btfdiff", ref, ours)
			}
		})
	}
}

// buildPaholeFixture compiles testdata/pahole/name with cc by the
// "// build:" command of its first line ($CC, $SRC, $OUT substituted),
// skipping when cc is not installed.
func buildPaholeFixture(t *testing.T, cc, name string) string {
	t.Helper()
	src := filepath.Join(testutil.RepoRoot(), "testdata", "pahole", name)
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(name, filepath.Ext(name))+"-"+cc+".o")
	buildByFirstLine(t, src, out, map[string]string{"CC": cc})
	return out
}

// buildByFirstLine builds the fixture src by its "// build:" line
// (testutil.BuildFixture) and skips the test when that fails (the compiler
// cannot build it here).
func buildByFirstLine(t *testing.T, src, out string, vars map[string]string) {
	t.Helper()
	if err := testutil.BuildFixture(t, src, out, vars); err != nil {
		t.Skipf("skipping: %s cannot be built here: %v", filepath.Base(src), err)
	}
}

// requireReloc fails the test unless relocation section sec of the ELF file
// at path has a relocation of the given type.
func requireReloc(t *testing.T, path, sec, typ string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(sec)
	if s == nil {
		t.Fatalf("%s has no %s: the fixture no longer tests what it should", path, sec)
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off+8 <= len(data); off += 8 {
		info := f.ByteOrder.Uint32(data[off+4:])
		if f.Machine == elf.EM_386 && elf.R_386(info&0xff).String() == typ {
			return
		}
	}
	t.Fatalf("%s: %s has no %s relocation: the fixture no longer tests what it should", path, sec, typ)
}

// requireDebugInfo fails the test unless the file has a .debug_info section
// (so that it tests encoding, not the no-DWARF path).
func requireDebugInfo(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Section(".debug_info") == nil {
		t.Fatalf("%s has no .debug_info: the fixture no longer tests what it should", path)
	}
}
