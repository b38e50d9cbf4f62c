package elfio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSplitBTF checks which bytes ReadSplitBTF returns for raw BTF, an
// ELF file with .BTF only, one with .BTF and .BTF.base, and one with neither.
func TestReadSplitBTF(t *testing.T) {
	dir := t.TempDir()
	btfData, baseData := testData(100, 1), testData(40, 2)
	withSections := func(name string, secs []NewSection) string { return objectWith(t, dir, name, secs) }
	raw := filepath.Join(dir, "raw.btf")
	if err := os.WriteFile(raw, btfData, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		wantBTF  []byte
		wantBase []byte
		err      error
	}{
		{name: "raw BTF", path: raw, wantBTF: btfData},
		{name: "ELF with .BTF", path: withSections("plain.o", []NewSection{{Name: ".BTF", Data: btfData}}), wantBTF: btfData},
		{name: "ELF with .BTF and .BTF.base", path: withSections("distilled.o",
			[]NewSection{{Name: ".BTF", Data: btfData}, {Name: ".BTF.base", Data: baseData}}), wantBTF: btfData, wantBase: baseData},
		{name: "ELF with .BTF.base only", path: withSections("baseonly.o", []NewSection{{Name: ".BTF.base", Data: baseData}}), err: ErrNoBTF},
		{name: "ELF without either", path: withSections("none.o", nil), err: ErrNoBTF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, base, err := ReadSplitBTF(tc.path)
			if tc.err != nil {
				wantErrNaming(t, err, tc.err, tc.path)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, tc.wantBTF) || !bytes.Equal(base, tc.wantBase) || (tc.wantBase == nil) != (base == nil) {
				t.Errorf("got .BTF %d bytes and .BTF.base %d bytes (nil: %v), want %d and %d", len(data), len(base), base == nil, len(tc.wantBTF), len(tc.wantBase))
			}
		})
	}
}

// objectWith returns the path of a small object file named name in dir,
// with secs written into it.
func objectWith(t *testing.T, dir, name string, secs []NewSection) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.Rename(smallObject(t, dir), path); err != nil {
		t.Fatal(err)
	}
	if len(secs) > 0 {
		if err := WriteSections(path, secs); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// wantErrNaming fails unless err wraps want and its message names path.
func wantErrNaming(t *testing.T, err, want error, path string) {
	t.Helper()
	if !errors.Is(err, want) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want %v naming %s", err, want, path)
	}
}
