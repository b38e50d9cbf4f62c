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
	withSections := func(name string, secs []NewSection) string {
		path := filepath.Join(dir, name)
		obj := smallObject(t, dir)
		if err := os.Rename(obj, path); err != nil {
			t.Fatal(err)
		}
		if len(secs) > 0 {
			if err := WriteSections(path, secs); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
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
				if !errors.Is(err, tc.err) || !strings.HasPrefix(err.Error(), tc.path) {
					t.Fatalf("error %v, want %v naming the file", err, tc.err)
				}
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
