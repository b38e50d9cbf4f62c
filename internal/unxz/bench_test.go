package unxz

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ulikunitz/xz"
)

// benchFile is a BTFHub archive of the bench archive
// (scripts/btfhub-bench-archive.sh), or the test skips.
func benchFile(b *testing.B) []byte {
	home, _ := os.UserHomeDir()
	files, _ := filepath.Glob(filepath.Join(home, ".cache/gobtf-test/btfhub-bench/archive/debian/12/x86_64/*.btf.tar.xz"))
	if len(files) == 0 {
		b.Skip("skipping: no bench archive (scripts/btfhub-bench-archive.sh)")
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecode decodes a kernel's BTFHub archive (a tar of 4 MB of BTF).
func BenchmarkDecode(b *testing.B) {
	data := benchFile(b)
	b.ReportAllocs()
	for b.Loop() {
		out, err := Decode(data, 1<<30)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(out)))
	}
}

// BenchmarkDecodeUlikunitz is the same file through ulikunitz/xz's reader,
// for comparison.
func BenchmarkDecodeUlikunitz(b *testing.B) {
	data := benchFile(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := xz.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := io.Copy(&buf, r)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}
