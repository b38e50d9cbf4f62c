package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestMinCoreModulesBadInputs: bad module files and split outputs are a
// one-line error naming the file, exit status 1 (2 for a usage error),
// and nothing is written.
func TestMinCoreModulesBadInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	vm := minCoreTarget()
	vmlinux := write("vmlinux.btf", vm.Marshal(binary.LittleEndian))
	mod := btf.NewSpec(vm)
	mod.AddStruct(false, "modonly", 4, []btf.MemberSpec{{Name: "x", Type: 1}})
	module := write("m.btf", mod.Marshal(binary.LittleEndian))
	obj := write("obj.o", minCoreObject(nil))
	junk := write("junk.btf", []byte("junk"))
	truncated := write("trunc.btf", mod.Marshal(binary.LittleEndian)[:30])
	sub := write("file", nil)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"junk module", []string{"-B", vmlinux, junk, "out.btf", obj}, 1, junk},
		{"truncated module", []string{"-B", vmlinux, truncated, "out.btf", obj}, 1, truncated},
		{"missing --module", []string{"-B", vmlinux, module, "--module", filepath.Join(dir, "none"), "out.btf", obj}, 1, "none"},
		{"split vmlinux", []string{"-B", module, module, "out.btf", obj}, 1, module + ": not standalone BTF"},
		{"no object", []string{"-B", vmlinux, module, "out.btf"}, 2, "expected MODULE OUTPUT OBJECT..."},
		{"no object, split", []string{"-B", vmlinux, module, "--split-output", "d"}, 2, "expected MODULE OBJECT..."},
		{"same names, split", []string{"-B", vmlinux, module, "--module", module, "--split-output", "d", obj}, 2, "both named m"},
		{"split output under a file", []string{"-B", vmlinux, module, "--split-output", filepath.Join(sub, "d"), obj}, 1, sub},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(dir)
			_, stderr, code, err := runGobtf(append([]string{"gen", "min_core_btf"}, tc.args...)...)
			if err != nil {
				var b bytes.Buffer
				reportError(&b, err)
				stderr += b.String()
			}
			if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line naming %q", code, stderr, tc.code, tc.want)
			}
			for _, p := range []string{"out.btf", "d"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s written", p)
				}
			}
		})
	}
}
