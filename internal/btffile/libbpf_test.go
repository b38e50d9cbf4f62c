package btffile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// The oracle is libbpf itself: testdata/libbpf_open.c, built against the
// libbpf vendored in ../shared/tools (the one pahole master is built
// with), opens each input as pahole does and prints what libbpf logs and
// how it ends; Open must log and end the same.

var (
	oracleOnce sync.Once
	oraclePath string
	oracleErr  string
)

// oracle builds testdata/libbpf_open.c once.
func oracle(t *testing.T) string {
	t.Helper()
	lib := testutil.Tool(t, "libbpf-build")
	oracleOnce.Do(func() {
		cc, err := exec.LookPath("cc")
		if err != nil {
			oracleErr = "no C compiler"
			return
		}
		out := filepath.Join(testutil.CacheDir(t), "libbpf_open")
		src, _ := filepath.Abs(filepath.Join("testdata", "libbpf_open.c"))
		cmd := exec.Command(cc, "-O1", "-o", out, src, "-I"+filepath.Join(lib, "inst", "include"),
			filepath.Join(lib, "libbpf.a"), "-lelf", "-lz")
		if msg, err := cmd.CombinedOutput(); err != nil {
			oracleErr = fmt.Sprintf("building libbpf_open: %v\n%s", err, msg)
			return
		}
		oraclePath = out
	})
	if oraclePath == "" {
		t.Skipf("skipping: %s", oracleErr)
	}
	return oraclePath
}

// libbpfSays runs the oracle on path (and base, when not "").
func libbpfSays(t *testing.T, path, base string) string {
	t.Helper()
	args := []string{path}
	if base != "" {
		args = append(args, base)
	}
	out, err := exec.Command(oracle(t), args...).Output()
	if err != nil {
		t.Fatalf("libbpf_open %v: %v", args, err)
	}
	return string(out)
}

// openSays is Open's answer in the oracle's words; hard is set when Open
// failed with an error of gobtf's own.
func openSays(path, basePath string) (says string, hard error) {
	var b strings.Builder
	logs := func(log []Line) {
		for _, l := range log {
			fmt.Fprintf(&b, "%d libbpf: %s\n", l.Level, l.Text)
		}
	}
	var base *btf.Spec
	if basePath != "" {
		s, log, err := OpenLibbpf(basePath, nil)
		logs(log)
		var le *LibbpfError
		if errors.As(err, &le) {
			fmt.Fprintf(&b, "base %d\n", int(le.Errno))
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		base = s
	}
	s, log, err := OpenLibbpf(path, base)
	logs(log)
	var le *LibbpfError
	switch {
	case errors.As(err, &le):
		fmt.Fprintf(&b, "file %d\n", int(le.Errno))
	case err != nil:
		return b.String(), err
	default:
		fmt.Fprintf(&b, "types %d\n", s.TypeCount()+1)
	}
	return b.String(), nil
}

// compare checks Open against libbpf on one input.
func compare(t *testing.T, path, base string) {
	t.Helper()
	want := libbpfSays(t, path, base)
	got, hard := openSays(path, base)
	if hard != nil {
		if strings.HasSuffix(strings.TrimSpace(want), "\n") || !strings.Contains(want, "types ") {
			t.Errorf("%s (base %q): gobtf's own error %v, where libbpf says\n%s", path, base, hard, want)
		} else {
			t.Errorf("%s (base %q): libbpf reads it, gobtf does not: %v", path, base, hard)
		}
		return
	}
	if got != want {
		t.Errorf("%s (base %q):\ngobtf says\n%slibbpf says\n%s", path, base, got, want)
	}
}

// TestOpenFilesAsLibbpf: real BTF and ELF files, on their base, without
// one and on the wrong one, and files that are no BTF.
func TestOpenFilesAsLibbpf(t *testing.T) {
	kbtf := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	dbtf := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.default.btf")
	fixture := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.btf")
	dir := t.TempDir()
	text := filepath.Join(dir, "text.txt")
	empty := filepath.Join(dir, "empty")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	os.WriteFile(empty, nil, 0o644)
	noBTF := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.o")
	cases := [][2]string{
		{kbtf, ""}, {dbtf, ""}, {fixture, ""}, {text, ""}, {empty, ""}, {dir, ""}, {noBTF, ""},
		{filepath.Join(dir, "absent"), ""}, {fixture, text}, {fixture, empty}, {fixture, noBTF},
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err == nil {
		cases = append(cases, [2]string{"/sys/kernel/btf/vmlinux", ""})
	}
	for _, m := range []string{"nf_conntrack", "nls_utf8", "tcp_bbr", "virtio_blk", "virtio_net", "xfs"} {
		mod := testutil.Reference(t, "modules/"+m+".btf")
		cases = append(cases, [2]string{mod, kbtf}, [2]string{mod, ""}, [2]string{mod, dbtf}, [2]string{mod, fixture}, [2]string{mod, mod})
		if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err == nil {
			cases = append(cases, [2]string{mod, "/sys/kernel/btf/vmlinux"})
		}
	}
	if !testing.Short() {
		ko := testutil.Corpus(t, "modules/xfs.ko")
		cases = append(cases, [2]string{ko, ""}, [2]string{ko, kbtf}, [2]string{ko, testutil.Corpus(t, testutil.VmlinuxName)})
	}
	for _, c := range cases {
		compare(t, c[0], c[1])
	}
}

// TestOpenCorruptAsLibbpf: header words set to chosen values, truncations
// and random bit flips of a base BTF and a module's split BTF, each read as
// libbpf reads it.
func TestOpenCorruptAsLibbpf(t *testing.T) {
	kbtf := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	fixture := testutil.Testdata(t, "classlayout", "layout.gcc.btf")
	module, err := os.ReadFile(testutil.Reference(t, "modules/nls_utf8.btf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	n := 0
	try := func(data []byte, base string) {
		path := filepath.Join(dir, fmt.Sprintf("m%d.btf", n))
		n++
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		compare(t, path, base)
	}
	le := binary.LittleEndian
	values := []uint32{0, 1, 2, 3, 4, 8, 23, 24, 25, 28, 32, 33, 36, 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff}
	for _, in := range []struct {
		data []byte
		base string
	}{{fixture, ""}, {module, kbtf}} {
		for w := 1; w < 8; w++ { // hdr_len ... layout_len; word 0 is magic, version, flags
			for _, v := range values {
				d := append([]byte(nil), in.data...)
				le.PutUint32(d[4*w:], v)
				try(d, in.base)
			}
		}
		for _, m := range []uint16{0, 0x9feb, 0xeb9e} {
			d := append([]byte(nil), in.data...)
			le.PutUint16(d, m)
			try(d, in.base)
		}
		for cut := 0; cut < len(in.data); cut += 1 + len(in.data)/97 {
			try(in.data[:cut], in.base)
		}
		rng := rand.New(rand.NewPCG(1, uint64(len(in.data))))
		flips := 150
		if testing.Short() {
			flips = 30
		}
		for range flips {
			d := append([]byte(nil), in.data...)
			for range 1 + rng.IntN(3) {
				i := rng.IntN(len(d))
				d[i] ^= 1 << rng.IntN(8)
			}
			try(d, in.base)
		}
	}
	// The fixture in the other byte order, whole and cut.
	swapped := swapBTF(t, fixture)
	try(swapped, "")
	try(swapped[:40], "")
}

// swapBTF returns data, a little-endian BTF blob, in big-endian order.
func swapBTF(t *testing.T, data []byte) []byte {
	t.Helper()
	s, err := btf.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.Marshal(binary.BigEndian)
}

// FuzzOpen opens mutated BTF as a base blob and as split BTF on the
// fixture: never a panic, and the error is libbpf's or names the file.
func FuzzOpen(f *testing.F) {
	fixture, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.btf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture, false)
	f.Add(fixture[:40], true)
	base, err := btf.Parse(fixture, nil)
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, split bool) {
		path := filepath.Join(dir, "in.btf")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var b *btf.Spec
		if split {
			b = base
		}
		_, _, err := OpenLibbpf(path, b)
		var le *LibbpfError
		if err != nil && !errors.As(err, &le) && !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the file", err)
		}
	})
}
