package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// manyGlobals compiles a C file defining n global ints (all in .bss) and
// returns the object's path.
func manyGlobals(t *testing.T, dir string, n int) string {
	t.Helper()
	cc := cCompiler(t, "to build an object of many globals")
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, "int v%d;\n", i)
	}
	c, obj := filepath.Join(dir, "globals.c"), filepath.Join(dir, "globals.o")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-g", "-fno-common", "-c", c, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	return obj
}

// TestDatasecVlenLimit: with global_var, every global variable of a section
// goes into its DATASEC, whose vlen kernels before 7.1 read in 16 bits. A
// section of 65,535 variables is encoded whole; one more is an error naming
// the file and the section, not a DATASEC that no such kernel loads (nor, as
// before, a crash).
func TestDatasecVlenLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: compiles two C files of 65,535 and 65,536 globals")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    int
		want string // the error, or "" for success
	}{
		{n: btf.MaxEncodedVlen},
		{n: btf.MaxEncodedVlen + 1, want: `section \.bss: 65536 variables, more than BTF's limit of 65535 in one DATASEC`},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			dir := t.TempDir()
			in := manyGlobals(t, dir, tc.n)
			out := filepath.Join(dir, "out.btf")
			r := runChild(t, exe, nil, "-J", "--btf_features=var,global_var", "--btf_encode_detached="+out, in)
			if tc.want != "" {
				expectFailure(t, r, in, tc.want)
				if _, err := os.Stat(out); err == nil {
					t.Error("output written despite the error")
				}
				return
			}
			if r.code != 0 {
				t.Fatalf("exit status %d: %s", r.code, r.stderr)
			}
			blob, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			s, err := btf.Parse(blob, nil)
			if err != nil {
				t.Fatal(err)
			}
			var vlen []int
			for id := btf.TypeID(1); int(id) <= s.NumTypes(); id++ {
				if typ := s.Type(id); typ.Kind() == btf.KindDatasec {
					vlen = append(vlen, typ.Vlen())
				}
			}
			if len(vlen) != 1 || vlen[0] != tc.n {
				t.Errorf("DATASEC vlens %v, want one of %d", vlen, tc.n)
			}
		})
	}
}
