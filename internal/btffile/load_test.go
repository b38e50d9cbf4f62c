package btffile

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoading loads files of sizes around the chunk size on several worker
// counts and checks that whatever ready reports as loaded is the file's
// bytes, at every step, and that the whole file arrives.
func TestLoading(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{1, 4095, loadChunk - 1, loadChunk, loadChunk + 1, 3*loadChunk + 5} {
		content := make([]byte, size)
		rng := rand.New(rand.NewPCG(uint64(size), 1))
		for i := range content {
			content[i] = byte(rng.Uint32())
		}
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 5} {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			l, err := startLoading(f, size, workers)
			if err != nil {
				t.Fatal(err)
			}
			for end := 0; end <= size; end += max(1, size/7) {
				n := l.ready(end)
				if n < end || n > size {
					t.Fatalf("size %d, %d workers: ready(%d) = %d", size, workers, end, n)
				}
				if !bytes.Equal(l.data[:n], content[:n]) {
					t.Fatalf("size %d, %d workers: the first %d bytes reported loaded differ from the file", size, workers, n)
				}
			}
			if n := l.ready(size); n != size || !bytes.Equal(l.data, content) {
				t.Fatalf("size %d, %d workers: ready(all) = %d, or the bytes differ", size, workers, n)
			}
			if err := l.wait(); err != nil {
				t.Fatalf("size %d, %d workers: %v", size, workers, err)
			}
			l.release()
			f.Close()
		}
	}
}

// TestLoadingShortFile checks that a file shorter than announced (it shrank
// after its size was read) gives an error, and that ready does not hang.
func TestLoadingShortFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, loadChunk+10), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := startLoading(f, 3*loadChunk, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	if n := l.ready(3 * loadChunk); n != 3*loadChunk {
		t.Errorf("ready = %d, want %d", n, 3*loadChunk)
	}
	if err := l.wait(); err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Errorf("error = %v, want one saying the file shrank", err)
	}
}
