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

// TestBTFMerge: "gobtf btf merge" of the shared vmlinux BTF and each shared
// module is libbpf's super BTF (btfmerge): structurally equal (btfdiff),
// and byte for byte the same file.
func TestBTFMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: deduplicates a vmlinux seven times (-short)")
	}
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	btfmerge, btfdiff := testutil.Tool(t, "btfmerge"), testutil.Tool(t, "btfdiff")
	for _, mod := range testutil.ModuleNames {
		t.Run(mod, func(t *testing.T) {
			split := testutil.Reference(t, "modules/"+mod+".btf")
			dir := t.TempDir()
			got, want := filepath.Join(dir, "gobtf.btf"), filepath.Join(dir, "btfmerge.btf")
			mustGobtf(t, "btf", "merge", got, vmlinux, split)
			if b, err := exec.Command(btfmerge, want, vmlinux, split).CombinedOutput(); err != nil {
				t.Fatalf("btfmerge: %v\n%s", err, b)
			}
			if b, err := exec.Command(btfdiff, want, got).CombinedOutput(); err != nil {
				t.Fatalf("btfdiff btfmerge gobtf: %v\n%s", err, b)
			}
			if !bytes.Equal(testutil.ReadFile(t, got), testutil.ReadFile(t, want)) {
				t.Error("the merged BTF's bytes differ from btfmerge's")
			}
		})
	}
}

// TestBTFMergeAll: the merge of the vmlinux and all six shared modules
// loads in the running kernel (btfload) and has no duplicate types
// (btfdiff -stats -fail-on-dups); a type two modules define differently
// (file_system_type: the fixture modules' own, besides the vmlinux's)
// stays one type per definition, and one module merged twice is merged
// once.
func TestBTFMergeAll(t *testing.T) {
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	btfdiff := testutil.Tool(t, "btfdiff")
	args := []string{"btf", "merge", filepath.Join(t.TempDir(), "all.btf"), vmlinux}
	for _, mod := range testutil.ModuleNames {
		args = append(args, testutil.Reference(t, "modules/"+mod+".btf"))
	}
	out := args[2]
	mustGobtf(t, args...)
	if b, err := exec.Command(btfdiff, "-stats", "-fail-on-dups", out).CombinedOutput(); err != nil {
		t.Errorf("btfdiff -stats -fail-on-dups: %v\n%s", err, b)
	}
	testutil.RequireRoot(t)
	if b, err := exec.Command(testutil.Tool(t, "btfload"), out).CombinedOutput(); err != nil {
		t.Errorf("btfload: the kernel refuses the merge: %v\n%s", err, b)
	}

	objs := buildModuleObjects(t)
	two := filepath.Join(t.TempDir(), "two.btf")
	mustGobtf(t, "btf", "merge", two, vmlinux, objs["fixmod"], objs["fixmod2"], objs["fixmod"])
	d := testutil.DumpFile(t, two)
	if n := strings.Count(d, "STRUCT 'file_system_type' "); n != 3 {
		t.Errorf("%d structs file_system_type in the merge, want 3 (the vmlinux's, fixmod's, fixmod2's; fixmod's twice is one)", n)
	}
	if n := strings.Count(d, "STRUCT 'fixmod_dev' "); n != 1 {
		t.Errorf("%d structs fixmod_dev in the merge of fixmod twice, want 1", n)
	}
}

// TestBTFMergeErrors: bad input is a one-line error naming the file, and
// OUTPUT is not written.
func TestBTFMergeErrors(t *testing.T) {
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	xfs := testutil.Reference(t, "modules/xfs.btf")
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not BTF at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"split base", []string{xfs, xfs}, xfs + ": not standalone BTF"},
		{"junk split", []string{vmlinux, junk}, junk},
		{"missing split", []string{vmlinux, filepath.Join(dir, "none")}, "none"},
		{"too few", []string{vmlinux}, "usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.btf")
			_, stderr, code, err := runGobtf(append([]string{"btf", "merge", out}, tc.args...)...)
			if err != nil {
				var b bytes.Buffer
				reportError(&b, err)
				stderr += b.String()
			}
			if code == 0 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 2 {
				t.Errorf("exit %d, stderr %q; want an error naming %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("OUTPUT written")
			}
		})
	}
}
