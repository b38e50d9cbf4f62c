package unxz

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestDecodeBenchArchive is a scratch check on the bench archive.
func TestDecodeBenchArchive(t *testing.T) {
	home, _ := os.UserHomeDir()
	files, _ := filepath.Glob(filepath.Join(home, ".cache/gobtf-test/btfhub-bench/archive/debian/12/*/*.tar.xz"))
	if len(files) == 0 {
		t.Skip("no archive")
	}
	for _, f := range files[:4] {
		data, _ := os.ReadFile(f)
		t0 := time.Now()
		got, err := Decode(data, 1<<30)
		el := time.Since(t0)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, err := exec.Command("xz", "-dc", f).Output()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: differs (%d vs %d)", f, len(got), len(want))
		}
		t.Logf("%s: %d bytes in %v", filepath.Base(f), len(got), el)
	}
}
