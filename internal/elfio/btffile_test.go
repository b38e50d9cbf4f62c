package elfio

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/gobtf/gobtf/internal/testutil/dwarfgen"
)

// testModule is a small ELF relocatable file with .BTF, .BTF.base and
// .modinfo sections.
func testModule() []byte {
	return dwarfgen.RelocatableELF(
		dwarfgen.Section{Name: ".modinfo", Data: []byte("license=GPL\x00name=test_mod\x00")},
		dwarfgen.Section{Name: ".BTF", Data: fuzzBTF},
		dwarfgen.Section{Name: ".BTF.base", Data: fuzzBTF[:len(fuzzBTF)-1]})
}

// compressAll returns data compressed whole with each method modules are
// installed with.
func compressAll(t testing.TB, data []byte) map[string][]byte {
	out := map[string][]byte{}
	var b bytes.Buffer
	xw, err := xz.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	xw.Write(data)
	xw.Close()
	out["xz"] = append([]byte(nil), b.Bytes()...)
	b.Reset()
	zw, _ := zstd.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	out["zstd"] = append([]byte(nil), b.Bytes()...)
	b.Reset()
	gw := gzip.NewWriter(&b)
	gw.Write(data)
	gw.Close()
	out["gzip"] = append([]byte(nil), b.Bytes()...)
	return out
}

// TestReadBTFFile reads the same module plain and compressed each way, and
// a raw BTF file.
func TestReadBTFFile(t *testing.T) {
	dir := t.TempDir()
	mod := testModule()
	files := map[string][]byte{"": mod}
	for m, b := range compressAll(t, mod) {
		files[m] = b
	}
	for method, data := range files {
		path := filepath.Join(dir, "m.ko"+method)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := ReadBTFFile(path)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if !f.ELF || f.Compression != method || f.ModName != "test_mod" || !bytes.Equal(f.BTF, fuzzBTF) || !bytes.Equal(f.Base, fuzzBTF[:len(fuzzBTF)-1]) {
			t.Errorf("%s: read %+v", method, f)
		}
	}
	raw := filepath.Join(dir, "raw.btf")
	os.WriteFile(raw, fuzzBTF, 0o644)
	if f, err := ReadBTFFile(raw); err != nil || f.ELF || !bytes.Equal(f.BTF, fuzzBTF) {
		t.Errorf("raw: %+v, %v", f, err)
	}
	trunc := filepath.Join(dir, "trunc.ko.xz")
	os.WriteFile(trunc, files["xz"][:len(files["xz"])/2], 0o644)
	if _, err := ReadBTFFile(trunc); err == nil || !bytes.Contains([]byte(err.Error()), []byte("trunc.ko.xz: xz-compressed")) {
		t.Errorf("truncated xz: %v", err)
	}
}

// FuzzReadBTFFile reads arbitrary files, compressed modules among the
// seeds: every outcome is an error or a result, never a panic.
func FuzzReadBTFFile(f *testing.F) {
	mod := testModule()
	f.Add(mod)
	for _, b := range compressAll(f, mod) {
		f.Add(b)
	}
	path := filepath.Join(f.TempDir(), "m.ko")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ReadBTFFile(path)
	})
}
