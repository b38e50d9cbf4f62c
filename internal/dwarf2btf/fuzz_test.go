package dwarf2btf

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/testutil"
)

// FuzzEncode runs the whole conversion (ELF reader, relocation of ET_REL
// debug sections, DIE decoder, type, variable and function encoders) on
// mutated ELF files, then deduplicates the result. Whatever the input, it
// must end in an error that names the file, or in BTF that decodes again
// with every type reference in range; never a panic or a hang. (BTF the
// kernel refuses is allowed: a flipped character in a DWARF name gives one,
// with pahole too; see TestHostileBitFlips in cmd/gobtf.)
//
// Seeds are small objects and shared objects compiled from testdata/types
// with the installed C compilers, and objects with type units from
// testdata/typeunits; the kernel build's features are on, and global_var
// too, so that every variable is encoded.
func FuzzEncode(f *testing.F) {
	addSeedObjects(f)
	// pahole's --btf_features=default,global_var
	opts := &Options{Features: featuresNamed(f, "encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,global_var"), Jobs: 1}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.o")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Encode(path, opts, nil)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		back, err := btf.Parse(s.Marshal(binary.LittleEndian), nil)
		if err != nil {
			t.Fatalf("converted BTF does not decode: %v", err)
		}
		testutil.RefsInRange(t, back)
		out, _, err := dedup.Dedup(back, dedup.Options{})
		if err != nil {
			t.Fatalf("converted BTF does not deduplicate: %v", err)
		}
		testutil.RefsInRange(t, out)
	})
}

// addSeedObjects adds the fuzz targets' seeds: the objects of seedObjects,
// and a bare ELF header.
func addSeedObjects(f *testing.F) {
	for _, path := range seedObjects(f) {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
}

// seedObjects compiles the fuzz targets' seed files and returns their
// paths: small objects and shared objects from testdata/types with the
// installed C compilers, objects with type units from testdata/typeunits,
// and testdata/pahole/gnuannot.S assembled.
func seedObjects(f *testing.F) []string {
	src := filepath.Join(testutil.RepoRoot(), "testdata", "types", "basic.c")
	dir := f.TempDir()
	var paths []string
	for _, cc := range []string{"gcc", "clang"} {
		if _, err := exec.LookPath(cc); err != nil {
			continue
		}
		for _, args := range [][]string{
			{"-g", "-c", "-O0", "-gdwarf-5"},
			{"-g", "-c", "-O1", "-gdwarf-4"},
			{"-g", "-O1", "-gdwarf-5", "-shared", "-nostdlib", "-fPIC"},
		} {
			out := filepath.Join(dir, fmt.Sprintf("seed%d.o", len(paths)))
			if err := exec.Command(cc, append(args, src, "-o", out)...).Run(); err != nil {
				f.Logf("%s %s: %v", cc, strings.Join(args, " "), err)
				continue
			}
			paths = append(paths, out)
		}
	}
	// Type units, which units refer to by signature (see typeunits.go),
	// in .debug_types and in .debug_info.
	tu := filepath.Join(testutil.RepoRoot(), "testdata", "typeunits", "typeunits.c")
	for _, v := range []string{"-gdwarf-4", "-gdwarf-5"} {
		out := filepath.Join(dir, fmt.Sprintf("seed%d.o", len(paths)))
		if err := exec.Command("gcc", "-g", v, "-fdebug-types-section", "-c", "-O0", tu, "-o", out).Run(); err != nil {
			f.Logf("gcc %s -fdebug-types-section: %v", v, err)
			continue
		}
		paths = append(paths, out)
	}
	// gcc 16's annotations, written by hand (see gnuannot.go).
	ga := filepath.Join(testutil.RepoRoot(), "testdata", "pahole", "gnuannot.S")
	out := filepath.Join(dir, fmt.Sprintf("seed%d.o", len(paths)))
	if err := exec.Command("gcc", "-c", ga, "-o", out).Run(); err != nil {
		f.Logf("gcc -c gnuannot.S: %v", err)
	} else {
		paths = append(paths, out)
	}
	return paths
}
