package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// TestEncodeNoDWARF: pahole 1.31 treats an input without debug information
// as nothing to encode. Its loaders all fail, and pahole.c then takes the
// "encoding is asked for and there is no DEBUG info to encode from, there
// are no errors" branch to its normal exit: status 0, no detached file, the
// ELF file untouched. (pahole 1.24 failed there with "Invalid argument", so
// it is no oracle for this case; the expectation comes from 1.31's source
// and was checked by hand against a pahole 1.31 build.)
func TestEncodeNoDWARF(t *testing.T) {
	cc := testutil.CCompiler(t, "to build an object without DWARF")
	dir := t.TempDir()
	src := filepath.Join(dir, "nodwarf.c")
	if err := os.WriteFile(src, []byte("int answer = 42;\nint get(void) { return answer; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string // compiler arguments after the source
	}{
		{"relocatable", []string{"-c"}},
		{"shared", []string{"-shared", "-fPIC", "-nostdlib"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := filepath.Join(dir, tc.name+".o")
			if out, err := exec.Command(cc, append(append([]string{"-O2", "-g0", src}, tc.args...), "-o", obj)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cc, err, out)
			}
			before, err := os.ReadFile(obj)
			if err != nil {
				t.Fatal(err)
			}
			detached := filepath.Join(dir, tc.name+".btf")
			for _, args := range [][]string{
				{"-J", "--btf_encode_detached=" + detached, obj},
				append([]string{"-J", obj}, kbuildFlags...),
			} {
				_, stderr, _, err := runGobtf(args...)
				if err != nil {
					t.Fatalf("gobtf %s: %v (pahole 1.31 exits 0 here)", strings.Join(args, " "), err)
				}
				if !strings.Contains(stderr, "no DWARF") {
					t.Errorf("gobtf %s: stderr %q does not say why nothing was encoded", strings.Join(args, " "), stderr)
				}
			}
			if _, err := os.Stat(detached); !os.IsNotExist(err) {
				t.Errorf("%s was written (stat: %v); pahole writes no file", detached, err)
			}
			after, err := os.ReadFile(obj)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("%s changed; pahole leaves a file without DWARF as it is", obj)
			}
		})
	}
}
