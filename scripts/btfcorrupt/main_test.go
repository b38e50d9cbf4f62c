package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestCorrupt shrinks list_head (16 bytes: prev at byte 8) in pahole's
// vmlinux BTF, raw and inside an ELF file, by 1 and by 9 bytes, and checks
// that exactly that size word changed and that the BTF verifier's rules
// (internal/btf, the kernel's checks) now reject the blob while they
// accepted the original.
func TestCorrupt(t *testing.T) {
	ref := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	orig, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := btf.ValidateBlob(orig, nil, btf.ValidateOptions{}); err != nil {
		t.Fatalf("the reference does not validate before corruption: %v", err)
	}
	dir := t.TempDir()
	raw := filepath.Join(dir, "vmlinux.btf")
	if err := os.WriteFile(raw, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	elfFile := filepath.Join(dir, "btf.o")
	if out, err := exec.Command("gcc", "-c", "-x", "c", "-o", elfFile, "/dev/null").CombinedOutput(); err != nil {
		t.Skipf("skipping the ELF case: gcc: %v %s", err, out)
	}
	tests := []struct {
		name, path string
		by         uint32
	}{{"raw-1", raw, 1}, {"elf-1", elfFile, 1}, {"raw-9", raw, 9}, {"elf-9", elfFile, 9}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := rewrite(tc.path, orig); err != nil {
				t.Fatal(err)
			}
			if err := corrupt(tc.path, "list_head", tc.by); err != nil {
				t.Fatal(err)
			}
			got, err := elfio.ReadBTF(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(orig) {
				t.Fatalf("size changed: %d -> %d", len(orig), len(got))
			}
			var diffs []int
			for i := range got {
				if got[i] != orig[i] {
					diffs = append(diffs, i)
				}
			}
			if len(diffs) != 1 || uint32(got[diffs[0]])+tc.by != uint32(orig[diffs[0]]) {
				t.Fatalf("want exactly one byte lowered by %d, differing offsets %v", tc.by, diffs)
			}
			_, err = btf.ValidateBlob(got, nil, btf.ValidateOptions{})
			if err == nil || !strings.Contains(err.Error(), "'list_head'") {
				t.Fatalf("validation after corruption: got %v, want a member-exceeds-size error", err)
			}
			t.Logf("rejected as expected: %v", err)
		})
	}
	if err := corrupt(raw, "no_such_struct_xyz", 1); err == nil || !strings.Contains(err.Error(), "no struct named") {
		t.Fatalf("unknown struct: got %v", err)
	}
	if err := corrupt(raw, "list_head", 17); err == nil || !strings.Contains(err.Error(), "cannot take 17 bytes") {
		t.Fatalf("shrinking past zero: got %v", err)
	}
	if err := corrupt(filepath.Join(dir, "missing"), "list_head", 1); err == nil {
		t.Fatal("missing file: no error")
	}
}

// rewrite puts the original BTF back: over a raw file, or into an ELF
// file's .BTF section.
func rewrite(path string, data []byte) error {
	if strings.HasSuffix(path, ".o") {
		return elfio.WriteSections(path, []elfio.NewSection{{Name: ".BTF", Data: data}})
	}
	return os.WriteFile(path, data, 0o644)
}
