package classlayout

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

func loadFixture(t testing.TB, name string) *btf.Spec {
	t.Helper()
	spec, err := btf.Parse(testutil.Testdata(t, "classlayout", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestModelBitfields checks the loader's reading of bitfields and of the
// alignment it infers against the layout of testdata/classlayout/layout.c
// as both compilers lay it out.
func TestModelBitfields(t *testing.T) {
	for _, cc := range []string{"gcc", "clang"} {
		m, err := FromBTF(loadFixture(t, "layout."+cc+".btf"), 64)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*Type{}
		for i := range m.Types {
			if m.Types[i].Kind == KindStruct {
				byName[m.Types[i].Name] = &m.Types[i]
			}
		}
		bits := m.MembersOf(byName["bits"])
		// unsigned long long e:40 follows d:1 (bit 16) at bit 17 of the 8-byte unit at 0.
		if e := bits[4]; e.Name != "e" || e.ByteOffset != 0 || e.BitfieldOffset != 17 || e.ByteSize != 8 {
			t.Errorf("%s: bits.e = %+v", cc, e)
		}
		if al := byName["aligned"]; al.Align != 64 || m.MembersOf(al)[1].Align != 16 {
			t.Errorf("%s: aligned: struct align %d, b align %d; want 64 and 16", cc, al.Align, m.MembersOf(al)[1].Align)
		}
	}
}

// TestPrintAllTypesOnce checks that every named struct and union of the
// fixture is printed, once.
func TestPrintAllTypesOnce(t *testing.T) {
	var out bytes.Buffer
	src := BTFSource("layout.gcc.btf", loadFixture(t, "layout.gcc.btf"))
	if err := Print(src, Options{CachelineSize: 64}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"holes", "bits", "bit_hole", "packed", "aligned", "anon", "flex", "fnptrs", "arrays", "big_one", "uses"} {
		if n := strings.Count(out.String(), "\nstruct "+name+" {"); n != 1 && !strings.HasPrefix(out.String(), "struct "+name+" {") {
			t.Errorf("struct %s printed %d times", name, n)
		}
	}
	if !strings.Contains(out.String(), "union u {") {
		t.Error("union u not printed")
	}
}

// addFixtureSeeds seeds a BTF fuzz target with the fixtures' BTF.
func addFixtureSeeds(f *testing.F) {
	for _, name := range []string{"layout.gcc.btf", "layout.clang.btf", "reorg.gcc.btf", "reorg_forever.clang.btf"} {
		f.Add(testutil.Testdata(f, "classlayout", name), uint8(0))
	}
}

// fuzzSource loads a fuzzed BTF blob, or returns nil when it is rejected,
// with its model.
func fuzzSource(data []byte) (Source, *Model) {
	spec, err := btf.Parse(data, nil)
	if err != nil {
		return nil, nil
	}
	m, err := FromBTF(spec, 64)
	if err != nil {
		return nil, nil
	}
	return BTFSource("fuzz", spec), m
}

// FuzzPrint prints mutated BTF with a few option sets: any input is either
// rejected with an error or printed, never a panic or a hang.
func FuzzPrint(f *testing.F) {
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		src, _ := fuzzSource(data)
		if src == nil {
			return
		}
		opt := Options{
			CachelineSize: 64, ExpandTypes: mode&1 != 0, Hex: mode&2 != 0, IncludeAnonymous: mode&4 != 0,
			Sort: mode&8 != 0, JustPacked: mode&16 != 0, Quiet: mode&32 != 0, ExpandPointers: mode&128 != 0,
		}
		if mode&64 != 0 {
			opt.Contains = true
			opt.ClassNames = []string{"holes", "u8"}
		}
		// An error (a type expanding beyond the budgets) is a fine end.
		_ = Print(src, opt, io.Discard, io.Discard)
	})
}

// FuzzReorganize runs -R with -S, -P and -w on mutated BTF: reorganizing
// any input ends (within moveLimit) with output or an error, never a panic
// or a hang.
func FuzzReorganize(f *testing.F) {
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		src, m := fuzzSource(data)
		if src == nil {
			return
		}
		opt := Options{CachelineSize: 64, WordSize: mode & 15, Verbose: mode&16 != 0}
		switch mode >> 5 {
		case 0, 1:
			opt.Packable = true
		case 2, 3:
			opt.Reorganize, opt.ShowReorgSteps = true, mode&32 != 0
			for i := range m.Types {
				if m.Types[i].Kind == KindStruct && m.Types[i].Name != "" {
					opt.ClassNames = append(opt.ClassNames, m.Types[i].Name)
				}
			}
		}
		_ = Print(src, opt, io.Discard, io.Discard)
	})
}

// BenchmarkPrintVmlinux prints every struct and union of the shared
// kernel's BTF, loading included.
func BenchmarkPrintVmlinux(b *testing.B) {
	data, err := os.ReadFile(testutil.Reference(b, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		spec, err := btf.Parse(data, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := Print(BTFSource("vmlinux", spec), Options{CachelineSize: 64}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPrintDWARF loads and prints mutated .debug_info of the gcc fixture
// (with its .debug_abbrev and .debug_str): any input is either rejected
// with an error or printed, never a panic or a hang.
func FuzzPrintDWARF(f *testing.F) {
	ef, err := elfio.Open(filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.o"))
	if err != nil {
		f.Fatal(err)
	}
	defer ef.Close()
	ds, err := ef.DWARFSections()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ds.Info, ds.Abbrev, uint8(0))
	f.Fuzz(func(t *testing.T, info, abbrev []byte, mode uint8) {
		dw, err := newDWARF(&die.Sections{Info: info, Abbrev: abbrev, Str: ds.Str, LineStr: ds.LineStr}, "fuzz")
		if err != nil {
			return
		}
		opt := Options{CachelineSize: 64, ExpandTypes: mode&1 != 0, IncludeAnonymous: mode&2 != 0, FixupSillyBitfields: mode&4 != 0}
		if mode&8 != 0 {
			opt.ClassNames = []string{"uses", "holes"}
		}
		_ = Print(dw, opt, io.Discard, io.Discard)
	})
}

// FuzzFacts runs the per-type facts (-T, -m, -f, -u,
// --contains_enumerator, -l, --show_private_classes, --skip_missing with a
// filter) on mutated BTF: any input is either rejected with an error or
// printed, never a panic or a hang. (--compile's is in package compile.)
func FuzzFacts(f *testing.F) {
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		src, _ := fuzzSource(data)
		if src == nil {
			return
		}
		opt := Options{CachelineSize: 64, ShowFirstBiggest: mode&16 != 0, ShowPrivateClasses: mode&32 != 0, Sort: mode&64 != 0}
		names := []string{"holes", "uses", "color"}
		switch mode & 7 {
		case 0, 1:
			opt.NrDefinitions = true
		case 2:
			opt.NrMethods = true
		case 3:
			opt.FindPointersTo, opt.ClassNames = true, names
		case 4:
			opt.DefinedIn, opt.ClassNames = true, names
		case 5:
			opt.ContainsEnumerator = "GREEN"
		case 6, 7:
			opt.ClassNames, opt.SkipMissing = []string{"nosuch", "holes"}, true
			opt.ClassArgs = []ClassArgs{{}, {Filter: "b==1", N: 1}}
		}
		_ = Print(src, opt, io.Discard, io.Discard)
	})
}
