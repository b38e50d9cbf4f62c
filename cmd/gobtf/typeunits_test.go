package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestEncodeTypeUnits encodes testdata/typeunits/typeunits.c built with
// gcc's -fdebug-types-section, in DWARF 4 and 5, and compares the result,
// every kind included, with what pahole gives for the same source built
// without type units. pahole itself leaves references into type units
// unresolved (a typedef of one becomes a typedef of void, which the kernel
// rejects in an array), so the build without them is the oracle. The kernel
// verifier checks gobtf's output too.
func TestEncodeTypeUnits(t *testing.T) {
	pahole, err := exec.LookPath("pahole")
	if err != nil {
		t.Skip("skipping: pahole (dwarves) is not installed")
	}
	for _, v := range []string{"4", "5"} {
		t.Run("dwarf"+v, func(t *testing.T) {
			plain := buildTypeUnitsFixture(t, v, "")
			withTU := buildTypeUnitsFixture(t, v, "-fdebug-types-section")
			requireTypeUnits(t, withTU)
			ours, ref := withTU+".gobtf.btf", plain+".pahole.btf"
			mustGobtf(t, "-J", "--btf_encode_detached="+ours, withTU)
			if b, err := exec.Command(pahole, "-J", "--btf_encode_detached="+ref, plain).CombinedOutput(); err != nil {
				t.Fatalf("pahole -J %s: %v\n%s", plain, err, b)
			}
			tool(t, "btfdiff", ref, ours)
			if os.Geteuid() == 0 {
				tool(t, "btfload", ours)
			}
		})
	}
}

// buildTypeUnitsFixture compiles the fixture with gcc by the "// build:"
// command of its first line, for DWARF version v and with the type-unit
// flags types (empty for none), skipping when gcc cannot.
func buildTypeUnitsFixture(t *testing.T, v, types string) string {
	t.Helper()
	src := filepath.Join(testutil.RepoRoot(), "testdata", "typeunits", "typeunits.c")
	name := "plain"
	if types != "" {
		name = "tu"
	}
	out := filepath.Join(t.TempDir(), "typeunits-"+name+".o")
	buildByFirstLine(t, src, out, map[string]string{"CC": "gcc", "V": v, "TYPES": types})
	return out
}

// requireTypeUnits fails the test unless the object has type units, so that
// the test cannot pass for want of them.
func requireTypeUnits(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	secs := &die.Sections{Order: f.ByteOrder}
	for i, dst := range secs.Fields() {
		if s := f.Section(die.SectionNames[i]); s != nil {
			if *dst, err = s.Data(); err != nil {
				t.Fatal(err)
			}
		}
	}
	d, err := die.New(secs)
	if err != nil {
		t.Fatal(err)
	}
	if !d.HasTypeUnits() {
		t.Fatalf("%s has no type units: the fixture no longer tests what it should", path)
	}
}
