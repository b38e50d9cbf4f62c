package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/gobtf/gobtf/internal/testutil"
)

// archiveKernel is one kernel of the test archive: its BTF file and where
// it goes in the tree.
type archiveKernel struct {
	rel string // under the source tree
	btf string // the raw BTF file it holds
}

// compressFor returns data as the file rel holds it: a BTFHub tar.xz of
// <kernel>.btf, or data compressed whole by rel's suffix, or as it is.
func compressFor(t *testing.T, rel string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch {
	case strings.HasSuffix(rel, ".btf.tar.xz"):
		var zw *xz.Writer
		if zw, err = xz.NewWriter(&buf); err != nil {
			t.Fatal(err)
		}
		tw := tar.NewWriter(zw)
		name := strings.TrimSuffix(filepath.Base(rel), ".tar.xz")
		if err = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err == nil {
			if _, err = tw.Write(data); err == nil {
				if err = tw.Close(); err == nil {
					err = zw.Close()
				}
			}
		}
	case strings.HasSuffix(rel, ".xz"):
		var zw *xz.Writer
		if zw, err = xz.NewWriter(&buf); err == nil {
			if _, err = zw.Write(data); err == nil {
				err = zw.Close()
			}
		}
	case strings.HasSuffix(rel, ".gz"):
		zw := gzip.NewWriter(&buf)
		if _, err = zw.Write(data); err == nil {
			err = zw.Close()
		}
	case strings.HasSuffix(rel, ".zst"):
		var zw *zstd.Encoder
		if zw, err = zstd.NewWriter(&buf); err == nil {
			if _, err = zw.Write(data); err == nil {
				err = zw.Close()
			}
		}
	default:
		return data
	}
	if err != nil {
		t.Fatalf("compressing %s: %v", rel, err)
	}
	return buf.Bytes()
}

// buildTestArchive writes the kernels into a source tree under dir.
func buildTestArchive(t *testing.T, dir string, kernels []archiveKernel) string {
	t.Helper()
	src := filepath.Join(dir, "archive")
	for _, k := range kernels {
		data, err := os.ReadFile(k.btf)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(src, filepath.FromSlash(k.rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, compressFor(t, k.rel, data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// TestMinCoreArchive runs --archive on a small tree made of the shared
// kernel BTF (kbuild and default builds) and the running kernel's, in
// every layout and compression --archive reads, with a truncated and a
// corrupt archive among them: every output must be the bytes the
// one-kernel command writes for its kernel, identical outputs hard links
// to the first, the bad archives reported and skipped with exit status 1,
// and a second run must write nothing.
func TestMinCoreArchive(t *testing.T) {
	objs := buildCoreObjects(t)
	kbuild := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	deflt := testutil.Reference(t, testutil.VmlinuxName+".default.btf")
	kernels := []archiveKernel{
		{"debian/12/x86_64/6.1.0-56-cloud-amd64.btf.tar.xz", kbuild},
		{"debian/12/x86_64/6.1.0-56-default.btf.tar.xz", deflt},
		{"debian/12/x86_64/copy-a.btf.xz", kbuild},
		{"other/copy-b.btf.gz", kbuild},
		{"other/copy-c.btf.zst", deflt},
		{"other/raw.btf", kbuild},
	}
	running := false
	if data, err := os.ReadFile(sysfsVmlinuxBTF); err == nil && len(data) > 0 {
		tmp := filepath.Join(t.TempDir(), "running.btf")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		kernels = append(kernels, archiveKernel{"running/running.btf.tar.xz", tmp})
		running = true
	} else {
		t.Logf("no running kernel BTF (%v): the tree has the shared kernels only", err)
	}
	dir := t.TempDir()
	src := buildTestArchive(t, dir, kernels)
	// A truncated archive (half of a good one) and one that is not xz.
	good, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(kernels[0].rel)))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{
		"debian/12/x86_64/truncated.btf.tar.xz": good[:len(good)/2],
		"debian/12/x86_64/garbage.btf.xz":       []byte("\xfd7zXZ\x00 not an xz stream"),
	}
	for rel, data := range bad {
		if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(rel)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	objList := []string{objs["fields"], objs["types"], objs["flavors"], objs["narrow"], objs["exists"]}
	args := append([]string{"gen", "min_core_btf", "--archive", "-j2", src, out}, objList...)

	stdout, stderr, code, _ := runGobtf(args...)
	if code != 1 {
		t.Fatalf("--archive with bad archives in the tree: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for rel := range bad {
		if !strings.Contains(stderr, rel) || !strings.Contains(stderr, "(skipped)") {
			t.Errorf("stderr does not report %s as skipped:\n%s", rel, stderr)
		}
		if _, err := os.Lstat(filepath.Join(out, strings.TrimSuffix(strings.TrimSuffix(rel, ".tar.xz"), ".xz"))); err == nil {
			t.Errorf("an output was written for the bad archive %s", rel)
		}
	}

	// Each output against the one-kernel command on the kernel's file.
	byBTF := map[string]string{}     // the one-kernel output's bytes -> first output with them
	oneCounts := map[string]string{} // archive -> the one-kernel command's count line
	countLine := regexp.MustCompile(`(\d+) relocation\(s\) in \d+ object\(s\): (\d+) resolved, (\d+) local, (\d+) absent \(existence checks answered no\), (\d+) unresolved, (\d+) ambiguous, (\d+) failed`)
	for _, k := range kernels {
		name := filepath.Base(k.rel)
		for _, s := range []string{".tar.xz", ".xz", ".gz", ".zst"} {
			name = strings.TrimSuffix(name, s)
		}
		got := filepath.Join(out, filepath.Dir(filepath.FromSlash(k.rel)), name)
		want := filepath.Join(dir, "one-"+strings.ReplaceAll(k.rel, "/", "_"))
		_, e, c, err := runGobtf(append([]string{"gen", "min_core_btf", k.btf, want}, objList...)...)
		if c != 0 {
			t.Fatalf("gen min_core_btf %s: exit %d: %v\n%s", k.btf, c, err, e)
		}
		if m := countLine.FindStringSubmatch(e); m != nil {
			oneCounts[k.rel] = strings.Join(m[1:], " ")
		}
		gotData, err := os.ReadFile(got)
		if err != nil {
			t.Fatalf("output of %s: %v", k.rel, err)
		}
		wantData, _ := os.ReadFile(want)
		if !bytes.Equal(gotData, wantData) {
			t.Errorf("%s: --archive's output (%d bytes) differs from the one-kernel command's (%d bytes)", k.rel, len(gotData), len(wantData))
		}
		fi, err := os.Lstat(got)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s: output is not a regular file (a hard link expected): %v", got, err)
		}
		if firstPath, ok := byBTF[string(wantData)]; ok {
			fa, _ := os.Stat(firstPath)
			if !os.SameFile(fi, fa) {
				t.Errorf("%s has the bytes of %s but is not a hard link to it", got, firstPath)
			}
		} else {
			byBTF[string(wantData)] = got
		}
	}
	if !strings.Contains(stdout, "kernel(s):") || !strings.Contains(stdout, "unique output(s)") {
		t.Errorf("no summary on stdout:\n%s", stdout)
	}
	want := len(kernels) - len(byBTF)
	if !strings.Contains(stdout, " linked") {
		t.Errorf("the summary does not count links:\n%s", stdout)
	}
	t.Logf("%d kernels (running kernel: %v), %d unique outputs, %d links\n%s", len(kernels), running, len(byBTF), want, stdout)

	// The second run writes nothing: every output keeps its inode and its
	// modification time, and the summary counts every kernel up to date.
	before := snapshotTree(t, out)
	args = append([]string{"gen", "min_core_btf", "--archive", "--json", "-j2", src, out}, objList...)
	stdout, stderr, code, _ = runGobtf(args...)
	if code != 1 {
		t.Fatalf("second run: exit %d, want 1 (the bad archives are still there)\n%s", code, stderr)
	}
	if after := snapshotTree(t, out); after != before {
		t.Errorf("the second run changed the output tree:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	var sum struct {
		Summary struct {
			Kernels      int   `json:"kernels"`
			Failed       int   `json:"failed"`
			UpToDate     int   `json:"up_to_date"`
			Written      int   `json:"written"`
			Linked       int   `json:"linked"`
			BytesWritten int64 `json:"bytes_written"`
			Unique       int   `json:"unique_outputs"`
		} `json:"summary"`
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(kernels)+len(bad)+1 {
		t.Fatalf("--json: %d lines, want one per kernel (%d) and the summary:\n%s", len(lines), len(kernels)+len(bad), stdout)
	}
	// Each kernel's counts are the one-kernel command's report's.
	for _, l := range lines[:len(lines)-1] {
		var k struct {
			Archive string `json:"archive"`
			R       struct {
				Total, Resolved, Local, Absent, Unresolved, Ambiguous, Failed int
			} `json:"relocations"`
		}
		if err := json.Unmarshal([]byte(l), &k); err != nil {
			t.Fatalf("--json: %v\n%s", err, l)
		}
		want, ok := oneCounts[k.Archive]
		if !ok {
			continue // a bad archive, or no count line
		}
		r := k.R
		if got := fmt.Sprint(r.Total, r.Resolved, r.Local, r.Absent, r.Unresolved, r.Ambiguous, r.Failed); got != want {
			t.Errorf("%s: --json counts %s, the one-kernel command reports %s", k.Archive, got, want)
		}
	}
	if len(oneCounts) == 0 {
		t.Error("the one-kernel command reported no counts to compare with")
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("--json summary: %v\n%s", err, lines[len(lines)-1])
	}
	s := sum.Summary
	if s.Kernels != len(kernels)+len(bad) || s.Failed != len(bad) || s.UpToDate != len(kernels) || s.Written != 0 || s.Linked != 0 || s.BytesWritten != 0 || s.Unique != len(byBTF) {
		t.Errorf("second run's summary: %+v; want %d kernels, %d failed, %d up to date, %d unique, nothing written or linked", s, len(kernels)+len(bad), len(bad), len(kernels), len(byBTF))
	}

	// --strict refuses each kernel with unresolved relocations (testdata/
	// core's programs have some on every kernel), writing nothing.
	strictOut := filepath.Join(dir, "strict")
	args = append([]string{"gen", "min_core_btf", "--archive", "--strict", "--json", src, strictOut}, objList...)
	stdout, stderr, code, _ = runGobtf(args...)
	if code != 1 || strings.Count(stdout, `"status":"refused"`) != len(kernels) || !strings.Contains(stderr, "--strict") {
		t.Errorf("--strict: exit %d, %d kernels refused (want 1, %d)\n%s", code, strings.Count(stdout, `"status":"refused"`), len(kernels), stderr)
	}
	if files := snapshotTree(t, strictOut); files != "" {
		t.Errorf("--strict wrote:\n%s", files)
	}
	if _, stderr, code, _ = runGobtf(append([]string{"gen", "min_core_btf", "--archive", src, src}, objList...)...); code != 2 {
		t.Errorf("SRC_DIR as OUT_DIR: exit %d, want 2 (usage)\n%s", code, stderr)
	}
}

// snapshotTree lists every file under dir with its inode, size and
// modification time.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			b.WriteString(path + " " + fi.Mode().String() + " " + fi.ModTime().String() + " " + inodeOf(fi) + "\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// inodeOf is the file's inode number, or "" where the system has none.
func inodeOf(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(st.Ino, 10)
	}
	return ""
}
