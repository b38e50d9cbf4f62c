package elfio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMapBTF checks that MapBTF returns what ReadBTF returns, for raw BTF
// and for ELF files, small (read) and big (mapped), that writing into the
// result leaves the file as it was, and that what is no regular file is an
// error naming it (a FIFO without a writer used to block the open forever).
func TestMapBTF(t *testing.T) {
	dir := t.TempDir()
	small, big := testData(100, 1), testData(3*mmapThreshold, 2)
	raw := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	object := func(name string, secs []NewSection) string { return objectWith(t, dir, name, secs) }
	tests := []struct {
		name string
		path string
		want []byte
		err  error
		msg  string // in the error, with the path
	}{
		{name: "small raw BTF", path: raw("small.btf", small), want: small},
		{name: "big raw BTF", path: raw("big.btf", big), want: big},
		{name: "ELF with a small .BTF", path: object("smallbtf.o", []NewSection{{Name: ".BTF", Data: small}}), want: small},
		{name: "ELF with a big .BTF", path: object("bigbtf.o", []NewSection{{Name: ".BTF", Data: big}}), want: big},
		{name: "big ELF without .BTF", path: object("none.o", []NewSection{{Name: ".other", Data: big}}), err: ErrNoBTF},
		{name: "missing file", path: filepath.Join(dir, "missing"), err: os.ErrNotExist},
		{name: "directory", path: dir, msg: "is a directory"},
		{name: "FIFO", path: fifo(t, dir), msg: "not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, release, err := MapBTF(tc.path)
			if tc.err != nil {
				wantErrNaming(t, err, tc.err, tc.path)
				return
			}
			if tc.msg != "" {
				if err == nil || !strings.Contains(err.Error(), tc.path+": "+tc.msg) {
					t.Fatalf("error %v, want %q naming the file", err, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			if want, err := ReadBTF(tc.path); err != nil || !bytes.Equal(want, tc.want) {
				t.Fatalf("ReadBTF: %v, %d bytes, want %d", err, len(want), len(tc.want))
			}
			if !bytes.Equal(data, tc.want) {
				t.Fatalf("got %d bytes, want %d", len(data), len(tc.want))
			}
			before, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range data {
				data[i] ^= 0xff
			}
			if after, err := os.ReadFile(tc.path); err != nil || !bytes.Equal(after, before) {
				t.Fatalf("writing into the result changed the file (%v)", err)
			}
		})
	}
}

// fifo makes a named pipe in dir, with no writer.
func fifo(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}
