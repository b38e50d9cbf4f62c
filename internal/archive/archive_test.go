package archive

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/gobtf/gobtf/internal/btf"
)

// smallBTF is a standalone BTF of a few types.
func smallBTF(name string) []byte {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddStruct(false, name, 8, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "x", Type: i, BitOffset: 32}})
	return s.Marshal(binary.LittleEndian)
}

// tarXZ is a BTFHub archive of the members (name, data), in order.
func tarXZ(t testing.TB, members ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	for _, m := range members {
		if err := tw.WriteHeader(&tar.Header{Name: m[0], Mode: 0o644, Size: int64(len(m[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWalk lists a tree of every suffix, with files Walk leaves out: other
// names, the output directory inside the tree, a dangling link, a FIFO.
func TestWalk(t *testing.T) {
	src := t.TempDir()
	for _, rel := range []string{
		"debian/12/x86_64/b.btf.tar.xz", "debian/12/x86_64/a.btf.tar.xz", "c.btf", "d/e.btf.xz",
		"d/f.btf.gz", "d/g.btf.zst", "d/README", "d/h.tar.xz", "out/old.btf",
	} {
		writeFile(t, filepath.Join(src, rel), []byte("x"))
	}
	if err := os.Symlink("c.btf", filepath.Join(src, "link.btf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(src, "dangling.btf")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(src, "fifo.btf"), 0o644); err != nil {
		t.Logf("no FIFO: %v", err)
	}
	got, err := Walk(src, filepath.Join(src, "out"))
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, e := range got {
		rels = append(rels, e.Rel+" -> "+e.Out+" ("+e.Kernel+")")
	}
	want := []string{
		"c.btf -> c.btf (c)",
		"d/e.btf.xz -> d/e.btf (e)",
		"d/f.btf.gz -> d/f.btf (f)",
		"d/g.btf.zst -> d/g.btf (g)",
		"debian/12/x86_64/a.btf.tar.xz -> debian/12/x86_64/a.btf (a)",
		"debian/12/x86_64/b.btf.tar.xz -> debian/12/x86_64/b.btf (b)",
		"link.btf -> link.btf (link)",
	}
	if !slices.Equal(rels, want) {
		t.Errorf("Walk:\n%s\nwant:\n%s", strings.Join(rels, "\n"), strings.Join(want, "\n"))
	}
	writeFile(t, filepath.Join(src, "c.btf.gz"), []byte("x"))
	if _, err := Walk(src, ""); err == nil || !strings.Contains(err.Error(), "would both be minimized into c.btf") {
		t.Errorf("c.btf beside c.btf.gz: %v, want the conflict", err)
	}
}

// TestReadBTF reads each layout; tars without one .btf member are errors
// naming the file.
func TestReadBTF(t *testing.T) {
	dir := t.TempDir()
	raw := smallBTF("task")
	cases := []struct {
		rel, want string // want: "" for raw, else a part of the error
		data      []byte
	}{
		{"a.btf", "", raw},
		{"b.btf.tar.xz", "", tarXZ(t, [2]string{"./README", "x"}, [2]string{"./b.btf", string(raw)})},
		{"none.btf.tar.xz", "no member named *.btf", tarXZ(t, [2]string{"README", "x"})},
		{"two.btf.tar.xz", "holds a.btf and b.btf", tarXZ(t, [2]string{"a.btf", "x"}, [2]string{"b.btf", "y"})},
		{"notxz.btf.tar.xz", "tar:", []byte("plain bytes, not a tar")},
		{"trunc.btf.tar.xz", "xz-compressed", tarXZ(t, [2]string{"t.btf", string(raw)})[:40]},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.rel)
		writeFile(t, path, c.data)
		got, err := ReadBTF(Entry{Path: path, Rel: c.rel})
		switch {
		case c.want == "" && (err != nil || !bytes.Equal(got, raw)):
			t.Errorf("%s: %d bytes, %v; want the raw BTF", c.rel, len(got), err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path)):
			t.Errorf("%s: %v; want an error naming the file and %q", c.rel, err, c.want)
		}
	}
}

// TestWriter writes outputs as Run's writer does: identical bytes become
// hard links to the first, a second pass changes nothing, and changed
// bytes are rewritten without touching the files linked to the old ones.
func TestWriter(t *testing.T) {
	out := t.TempDir()
	a, b := []byte("output one"), []byte("output two")
	entries := []Entry{{Rel: "x/k1.btf.tar.xz", Out: "x/k1.btf"}, {Rel: "x/k2.btf.tar.xz", Out: "x/k2.btf"}, {Rel: "y/k3.btf", Out: "y/k3.btf"}}
	pass := func(outs ...[]byte) []Status {
		w := newWriter(out)
		var got []Status
		for i, e := range entries {
			k := w.put(e, minimized{i: i, out: outs[i]}, false)
			if k.Err != nil {
				t.Fatalf("%s: %v", e.Out, k.Err)
			}
			got = append(got, k.Status)
		}
		return got
	}
	same := func(p, q string) bool {
		a, err1 := os.Stat(filepath.Join(out, p))
		b, err2 := os.Stat(filepath.Join(out, q))
		return err1 == nil && err2 == nil && os.SameFile(a, b)
	}
	if got := pass(a, a, b); !slices.Equal(got, []Status{Written, Linked, Written}) {
		t.Fatalf("first pass: %v", got)
	}
	if !same("x/k1.btf", "x/k2.btf") || same("x/k1.btf", "y/k3.btf") {
		t.Fatal("k2 is not a hard link to k1, or k3 is")
	}
	if got := pass(a, a, b); !slices.Equal(got, []Status{UpToDate, UpToDate, UpToDate}) {
		t.Fatalf("second pass: %v, want everything up to date", got)
	}
	// k1 changes: it is rewritten, and k2 (still a) is no longer linked
	// to it but becomes the first of a, k3 then a link to k2.
	if got := pass(b, a, a); !slices.Equal(got, []Status{Written, UpToDate, Linked}) {
		t.Fatalf("third pass: %v", got)
	}
	k1, _ := os.ReadFile(filepath.Join(out, "x/k1.btf"))
	k2, _ := os.ReadFile(filepath.Join(out, "x/k2.btf"))
	if !bytes.Equal(k1, b) || !bytes.Equal(k2, a) || !same("x/k2.btf", "y/k3.btf") {
		t.Fatalf("after the third pass: k1 %q, k2 %q, k3 linked to k2: %v", k1, k2, same("x/k2.btf", "y/k3.btf"))
	}
	// A symbolic link left where a first output goes is replaced, not
	// written through.
	os.Remove(filepath.Join(out, "x/k1.btf"))
	if err := os.Symlink("k2.btf", filepath.Join(out, "x/k1.btf")); err != nil {
		t.Fatal(err)
	}
	if got := pass(b, a, a); !slices.Equal(got, []Status{Written, UpToDate, UpToDate}) {
		t.Fatalf("fourth pass: %v", got)
	}
	if k2, _ := os.ReadFile(filepath.Join(out, "x/k2.btf")); !bytes.Equal(k2, a) {
		t.Fatalf("k2 was written through the link at k1: %q", k2)
	}
}

// TestWriterSymbolicFallback links across file systems, where a hard link
// is refused: the duplicate becomes a symbolic link, up to date on the
// next pass.
func TestWriterSymbolicFallback(t *testing.T) {
	other, err := os.MkdirTemp("/dev/shm", "gobtf-archive-")
	if err != nil {
		t.Skipf("skipping: no /dev/shm: %v", err)
	}
	defer os.RemoveAll(other)
	out := t.TempDir()
	si, _ := os.Stat(other)
	oi, _ := os.Stat(out)
	if si.Sys().(*syscall.Stat_t).Dev == oi.Sys().(*syscall.Stat_t).Dev {
		t.Skip("skipping: /dev/shm is on the temporary directory's file system")
	}
	// out/far is a link to the other file system: out/far/k2.btf cannot be
	// a hard link to out/k1.btf.
	if err := os.Symlink(other, filepath.Join(out, "far")); err != nil {
		t.Fatal(err)
	}
	entries := []Entry{{Out: "k1.btf"}, {Out: "far/k2.btf"}}
	for pass, want := range []Status{Linked, UpToDate} {
		w := newWriter(out)
		w.put(entries[0], minimized{out: []byte("same")}, false)
		k := w.put(entries[1], minimized{i: 1, out: []byte("same")}, false)
		if k.Err != nil || k.Status != want || !k.Symbolic {
			t.Fatalf("pass %d: %s, symbolic %v, %v; want %s, symbolic", pass, k.Status, k.Symbolic, k.Err, want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(out, "far/k2.btf")); string(got) != "same" {
		t.Fatalf("the symbolic link reads %q", got)
	}
}

// FuzzReadBTF reads arbitrary bytes as each kind of archive file: an
// error or bytes, never a panic or a hang.
func FuzzReadBTF(f *testing.F) {
	f.Add(tarXZ(f, [2]string{"k.btf", string(smallBTF("task"))}), uint8(0))
	f.Add(smallBTF("task"), uint8(4))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), uint8(2))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		rel := "k" + Suffixes[int(kind)%len(Suffixes)]
		path := filepath.Join(dir, rel)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ReadBTF(Entry{Path: path, Rel: rel})
	})
}

// BenchmarkReadBTF reads a BTFHub archive of a small BTF in memory.
func BenchmarkReadBTF(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "k.btf.tar.xz")
	if err := os.WriteFile(path, tarXZ(b, [2]string{"k.btf", string(bytes.Repeat(smallBTF("task"), 1000))}), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadBTF(Entry{Path: path, Rel: "k.btf.tar.xz"}); err != nil {
			b.Fatal(err)
		}
	}
}
