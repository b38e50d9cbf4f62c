// Package testutil locates the test inputs that live outside the repository:
// the ../shared folder beside the clone (real kernel files, reference BTF
// from pahole, verification tools) and a cache for decompressed copies.
// Every helper skips the calling test, with a message saying what is
// missing, when an input cannot be had.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// RepoRoot returns the repository root (the folder holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Testdata returns the contents of the file at path rel under the
// repository's testdata folder, failing the test if it cannot be read.
func Testdata(t testing.TB, rel ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{RepoRoot(), "testdata"}, rel...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// SharedDir returns the ../shared folder beside the repository (or
// $GOBTF_SHARED), skipping the test when it is absent.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("GOBTF_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "reference")); err != nil {
		t.Skipf("skipping: needs the shared test data folder %s (not present: %v)", dir, err)
	}
	return dir
}

// Reference returns the path of a file under shared/reference, e.g.
// "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf" or "modules/xfs.btf". A name
// ending in .xz is decompressed into the cache and the copy's path returned.
func Reference(t testing.TB, name string) string {
	t.Helper()
	return sharedFile(t, filepath.Join("reference", name))
}

// Corpus returns the path of a decompressed corpus file, e.g.
// "vmlinux-6.1.0-56-cloud-amd64" or "modules/xfs.ko"; the .xz original under
// shared/corpus is decompressed into the cache once.
func Corpus(t testing.TB, name string) string {
	t.Helper()
	return sharedFile(t, filepath.Join("corpus", name+".xz"))
}

// VmlinuxName is the base name of the shared kernel's files.
const VmlinuxName = "vmlinux-6.1.0-56-cloud-amd64"

// ModuleNames lists the shared kernel modules (without .ko).
var ModuleNames = []string{"nls_utf8", "tcp_bbr", "virtio_blk", "virtio_net", "nf_conntrack", "xfs"}

var cacheMu sync.Mutex

// CacheDir returns the folder for decompressed inputs and built tools:
// $GOBTF_TEST_CACHE, or gobtf-test in the user cache folder.
func CacheDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("GOBTF_TEST_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "gobtf-test")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("creating cache folder: %v", err)
	}
	return dir
}

func sharedFile(t testing.TB, rel string) string {
	t.Helper()
	src := filepath.Join(SharedDir(t), rel)
	if _, err := os.Stat(src); err != nil {
		t.Skipf("skipping: shared input %s is missing: %v", src, err)
	}
	if !strings.HasSuffix(src, ".xz") {
		return src
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	dst := filepath.Join(CacheDir(t), strings.TrimSuffix(filepath.Base(src), ".xz"))
	if si, err := os.Stat(src); err == nil {
		if di, err := os.Stat(dst); err == nil && di.ModTime().After(si.ModTime()) && di.Size() > 0 {
			return dst
		}
	}
	xz, err := exec.LookPath("xz")
	if err != nil {
		t.Skipf("skipping: xz is needed to decompress %s", src)
	}
	tmp := dst + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		t.Fatalf("creating %s: %v", tmp, err)
	}
	cmd := exec.Command(xz, "-dc", src)
	cmd.Stdout = out
	if err := cmd.Run(); err != nil {
		out.Close()
		os.Remove(tmp)
		t.Fatalf("decompressing %s: %v", src, err)
	}
	if err := out.Close(); err != nil {
		t.Fatalf("writing %s: %v", tmp, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatalf("renaming %s: %v", tmp, err)
	}
	return dst
}

// Tool returns the path of one of the shared verification tools (btfdiff,
// btfdedup, btfload, btfdouble), building ../shared/tools into the cache the
// first time. It skips the test when the tools cannot be built (they need
// gcc, libbpf-dev and libelf).
func Tool(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join(SharedDir(t), "tools")
	cacheMu.Lock()
	defer cacheMu.Unlock()
	bin := filepath.Join(CacheDir(t), "tools", "bin")
	path := filepath.Join(bin, name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	// shared/ is read-only, so build in a copy.
	work := filepath.Join(CacheDir(t), "tools")
	if out, err := exec.Command("cp", "-rT", src, work).CombinedOutput(); err != nil {
		t.Skipf("skipping: copying %s: %v: %s", src, err, out)
	}
	exec.Command("chmod", "-R", "u+w", work).Run()
	if out, err := exec.Command("make", "-C", work, "BIN=bin").CombinedOutput(); err != nil {
		t.Skipf("skipping: building the shared tools (needs gcc, libbpf-dev, libelf-dev, zlib): %v\n%s", err, out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: tool %s was not built: %v", name, err)
	}
	return path
}

// RequireRoot skips the test unless it runs as root (needed to load BTF into
// the running kernel).
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipping: loading BTF into the kernel needs root")
	}
}

// SeedFiles returns the files under the shared folder matching pattern (a
// filepath.Glob pattern relative to shared/), or none when the folder is
// absent. Fuzz targets use it to seed their corpus without skipping.
func SeedFiles(pattern string) []string {
	dir := os.Getenv("GOBTF_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "..", "shared")
	}
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	return m
}

// MountTmpfs mounts a tmpfs of the given size (e.g. "64k") on a new
// temporary directory, unmounted when the test ends, and returns the
// directory; it skips the test when not root or when mounting fails.
func MountTmpfs(t testing.TB, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipping: mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if msg, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("skipping: cannot mount a tmpfs: %v %s", err, msg)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// ReadFile returns the contents of path, failing the test when it cannot
// be read.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	d, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
