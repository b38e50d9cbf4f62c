package elfio

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/testutil"
)

// bpftoolDump runs `bpftool btf dump file path [base btf]` and returns the
// number of types it printed.
func bpftoolDump(t *testing.T, path, base string) int {
	t.Helper()
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("skipping: bpftool not installed")
	}
	var args []string
	if base != "" {
		args = []string{"-B", base}
	}
	args = append(args, "btf", "dump", "file", path)
	out, err := exec.Command(bpftool, args...).Output()
	if err != nil {
		t.Fatalf("bpftool %v: %v", args, err)
	}
	return bytes.Count(out, []byte("\n[")) + map[bool]int{true: 1, false: 0}[bytes.HasPrefix(out, []byte("["))]
}

// TestWriteSectionsModule writes pahole's split BTF of xfs.ko into a copy
// of the real module (replacing its .BTF) and checks the result with the
// usual oracles and with bpftool on top of the kernel's BTF.
func TestWriteSectionsModule(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in short mode: checks a 40 MB module with readelf, eu-elflint and llvm-objcopy")
	}
	ko := testutil.Corpus(t, "modules/xfs.ko")
	base := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	ref, err := os.ReadFile(testutil.Reference(t, "modules/xfs.btf"))
	if err != nil {
		t.Fatal(err)
	}
	out := writeAndCheck(t, ko, []NewSection{{Name: ".BTF", Data: ref}})
	want := bpftoolDump(t, testutil.Reference(t, "modules/xfs.btf"), base)
	if got := bpftoolDump(t, out, base); got != want || got == 0 {
		t.Errorf("bpftool dumps %d types from the written module, %d from the raw file", got, want)
	}
}

// TestWriteSectionsVmlinux round-trips the real 277 MB kernel: its
// allocated .BTF rewritten in place with its own bytes, a non-allocated
// .BTF.base added, and (in a copy without .BTF) pahole's kbuild BTF added
// as .BTF for bpftool to read. It logs the time of each write.
func TestWriteSectionsVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in short mode: copies the 277 MB vmlinux")
	}
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	kbuildPath := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	kbuild, err := os.ReadFile(kbuildPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	timed := func(path string, secs []NewSection) {
		t.Helper()
		start := time.Now()
		if err := WriteSections(path, secs); err != nil {
			t.Fatal(err)
		}
		t.Logf("WriteSections(%s, %d sections, %d bytes): %v", filepath.Base(path), len(secs), len(secs[0].Data), time.Since(start))
	}

	// The allocated .BTF does not move unless asked: data of another size
	// is refused...
	work := filepath.Join(dir, "vmlinux")
	copyFile(t, vmlinux, work)
	err = WriteSections(work, []NewSection{{Name: ".BTF", Data: kbuild}})
	if err == nil || !strings.Contains(err.Error(), "allocated") {
		t.Fatalf("replacing the allocated .BTF with other-sized data: error %v", err)
	}
	// ... data of its size is written in place ...
	own := dumpSection(t, vmlinux, ".BTF")
	checkWrittenTimed := func(in string, secs []NewSection) string {
		out := filepath.Join(dir, "out")
		copyFile(t, in, out)
		timed(out, secs)
		checkWritten(t, in, out, secs)
		for _, s := range secs {
			if got := dumpSection(t, out, s.Name); !bytes.Equal(got, s.Data) {
				t.Errorf("objcopy --dump-section %s differs from the data written", s.Name)
			}
		}
		checkTools(t, out, []string{in}, "-h", "-S", "-l", "-W")
		return out
	}
	out := checkWrittenTimed(vmlinux, []NewSection{{Name: ".BTF", Data: own}, {Name: ".BTF.base", Data: kbuild}})
	if n, want := bpftoolDump(t, out, ""), bpftoolDump(t, vmlinux, ""); n != want {
		t.Errorf("bpftool dumps %d types from the written vmlinux's .BTF, %d from the original", n, want)
	}
	os.Remove(out)
	// ... and with MayMove, as gobtf -J asks, data of another size is
	// accepted: smaller data (here kbuild's BTF) is written in place and the
	// section shrinks; larger data goes to the end of the file. The section
	// keeps its address and flags, every segment and every other section
	// is unchanged, and bpftool reads the new BTF.
	for _, tc := range []struct {
		name  string
		data  []byte
		moves bool
		allow []string // eu-elflint lines that resizing implies
	}{
		{"shrunk", kbuild, false, []string{"_BTF): st_value out of bounds"}},
		{"grown", append(append([]byte(nil), own...), make([]byte, 4096)...), true,
			[]string{"'.BTF': alloc flag set but section not in any loaded segment", "_BTF): st_value out of bounds"}},
	} {
		out := filepath.Join(dir, tc.name)
		secs := []NewSection{{Name: ".BTF", Data: tc.data, MayMove: true}}
		copyFile(t, vmlinux, out)
		timed(out, secs)
		checkWritten(t, vmlinux, out, secs)
		if got := dumpSection(t, out, ".BTF"); !bytes.Equal(got, tc.data) {
			t.Errorf("%s: objcopy --dump-section .BTF differs from the data written", tc.name)
		}
		checkToolsExcept(t, out, []string{vmlinux}, tc.allow, "-h", "-S", "-l", "-W")
		oldSec, newSec := elfSection(t, vmlinux, ".BTF"), elfSection(t, out, ".BTF")
		if oldSec.Addr != newSec.Addr || oldSec.Flags != newSec.Flags || newSec.Size != uint64(len(tc.data)) ||
			(newSec.Offset != oldSec.Offset) != tc.moves {
			t.Errorf("%s .BTF: %+v, was %+v", tc.name, newSec.SectionHeader, oldSec.SectionHeader)
		}
		if !tc.moves {
			if n, want := bpftoolDump(t, out, ""), bpftoolDump(t, kbuildPath, ""); n != want || n == 0 {
				t.Errorf("bpftool dumps %d types from the rewritten .BTF, %d from the reference", n, want)
			}
		}
		os.Remove(out)
	}

	// Without .BTF (removed by objcopy), kbuild's BTF is added like pahole -J
	// would, and bpftool reads it: the reference's 94,547 types.
	noBTF := filepath.Join(dir, "vmlinux-nobtf")
	if msg, err := exec.Command("objcopy", "--remove-section", ".BTF", vmlinux, noBTF).CombinedOutput(); err != nil {
		t.Skipf("skipping: objcopy --remove-section .BTF: %v %s", err, msg)
	}
	os.Remove(work)
	out = checkWrittenTimed(noBTF, []NewSection{{Name: ".BTF", Data: kbuild}})
	if n, want := bpftoolDump(t, out, ""), bpftoolDump(t, kbuildPath, ""); n != want || n != 94547 {
		t.Errorf("bpftool dumps %d types from the written vmlinux, %d from the raw file, want 94,547", n, want)
	}
}

// elfSection returns the named section of the ELF file at path, read with
// debug/elf.
func elfSection(t *testing.T, path, name string) *elf.Section {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s := f.Section(name)
	if s == nil {
		t.Fatalf("%s has no section %s", path, name)
	}
	return s
}
