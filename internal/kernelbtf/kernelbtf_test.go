package kernelbtf

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestCandidates: pahole's vmlinux_path__init, in its order, under the
// root, with the debuginfod cache only when $HOME is set and the running
// kernel's build ID is known.
func TestCandidates(t *testing.T) {
	root := t.TempDir()
	s := System{Root: root, Release: "6.1.0-56-cloud-amd64", Home: "/home/u", HasHome: true}
	want := []string{
		"vmlinux",
		root + "/boot/vmlinux",
		root + "/boot/vmlinux-6.1.0-56-cloud-amd64",
		root + "/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64",
		root + "/lib/modules/6.1.0-56-cloud-amd64/build/vmlinux",
		root + "/usr/lib/debug/lib/modules/6.1.0-56-cloud-amd64/vmlinux",
		root + "/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64.debug",
	}
	if got := s.Candidates(); !reflect.DeepEqual(got, want) {
		t.Errorf("without a running build ID:\n%q\nwant\n%q", got, want)
	}
	writeNotes(t, root, "GNU\x00", 3, []byte("0123456789abcdefghij"))
	want = append(want, "/home/u/.cache/debuginfod_client/303132333435363738396162636465666768696a/debuginfo")
	if got := s.Candidates(); !reflect.DeepEqual(got, want) {
		t.Errorf("with one:\n%q\nwant\n%q", got, want)
	}
	s.HasHome = false
	if got := s.Candidates(); len(got) != len(want)-1 {
		t.Errorf("without $HOME: %q", got)
	}
}

// writeNotes writes root/sys/kernel/notes holding a "Linux" note, then a
// note of that name, type and descriptor, in this machine's byte order.
func writeNotes(t *testing.T, root, name string, typ uint32, desc []byte) {
	t.Helper()
	var b []byte
	note := func(name string, typ uint32, desc []byte) {
		pad := func(n int) int { return (n + 3) &^ 3 }
		b = binary.NativeEndian.AppendUint32(b, uint32(len(name)))
		b = binary.NativeEndian.AppendUint32(b, uint32(len(desc)))
		b = binary.NativeEndian.AppendUint32(b, typ)
		b = append(b, name...)
		b = append(b, make([]byte, pad(len(name))-len(name))...)
		b = append(b, desc...)
		b = append(b, make([]byte, pad(len(desc))-len(desc))...)
	}
	note("Linux\x00", 0x100, []byte("6.1.0\x00"))
	note(name, typ, desc)
	dir := filepath.Join(root, "sys", "kernel")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunningBuildID reads notes as pahole's sysfs__read_build_id does:
// the first GNU note of type 3, its descriptor cut or padded to 20 bytes.
func TestRunningBuildID(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  uint32
		desc string
		want string
		ok   bool
	}{
		{"GNU\x00", 3, "0123456789abcdefghij", "303132333435363738396162636465666768696a", true},
		{"GNU\x00", 3, "0123456789", "3031323334353637383900000000000000000000", true},
		{"GNU\x00", 3, "0123456789abcdefghijklmnopqrstuv", "303132333435363738396162636465666768696a", true},
		{"GNU\x00", 4, "0123456789abcdefghij", "", false},
		{"GNX\x00", 3, "0123456789abcdefghij", "", false},
	} {
		root := t.TempDir()
		writeNotes(t, root, c.name, c.typ, []byte(c.desc))
		got, ok := System{Root: root}.RunningBuildID()
		if got != c.want || ok != c.ok {
			t.Errorf("%q type %d %q: %q %v, want %q %v", c.name, c.typ, c.desc, got, ok, c.want, c.ok)
		}
	}
	if _, ok := (System{Root: t.TempDir()}).RunningBuildID(); ok {
		t.Error("a build ID without /sys/kernel/notes")
	}
}

// TestFileBuildID compares the build ID of the shared vmlinux and a module
// with what readelf -n says, and finds the vmlinux as the running kernel's
// when /sys/kernel/notes holds its .notes section, as a running kernel's
// does, in pahole's order: the first candidate with that ID.
func TestFileBuildID(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("skipping: readelf not installed")
	}
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	re := regexp.MustCompile(`Build ID: ([0-9a-f]+)`)
	for _, f := range []string{vmlinux, testutil.Corpus(t, "modules/nls_utf8.ko")} {
		out, err := exec.Command(readelf, "-n", f).Output()
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(out)
		got, ok := FileBuildID(f)
		if m == nil || !ok || got != string(m[1]) {
			t.Errorf("%s: build ID %q %v; readelf says %q", f, got, ok, m)
		}
	}
	f, err := elfio.Open(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := f.SectionData(f.Section(".notes"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "sys", "kernel"), 0o755))
	must(os.WriteFile(filepath.Join(root, "sys", "kernel", "notes"), notes, 0o644))
	f.Close()
	s := System{Root: root, Release: "6.1.0-56-cloud-amd64"}
	if _, ok := s.FindVmlinux(); ok {
		t.Error("found a vmlinux where there is none")
	}
	// A vmlinux of another build first, then the one: the search takes the one.
	debug := filepath.Join(root, "usr", "lib", "debug", "boot")
	must(os.MkdirAll(debug, 0o755))
	must(os.MkdirAll(filepath.Join(root, "boot"), 0o755))
	must(os.Symlink(testutil.Corpus(t, "modules/nls_utf8.ko"), filepath.Join(root, "boot", "vmlinux-6.1.0-56-cloud-amd64")))
	must(os.Symlink(vmlinux, filepath.Join(debug, "vmlinux-6.1.0-56-cloud-amd64")))
	if got, ok := s.FindVmlinux(); !ok || got != filepath.Join(debug, "vmlinux-6.1.0-56-cloud-amd64") {
		t.Errorf("found %q %v, want the vmlinux under /usr/lib/debug/boot", got, ok)
	}
}

// TestSysfs: the paths under /sys/kernel/btf, and pahole's test of a
// module's file there.
func TestSysfs(t *testing.T) {
	s := System{Root: "/r"}
	if s.SysfsVmlinux() != "/r/sys/kernel/btf/vmlinux" || s.VmlinuxBTF() != "/r/sys/kernel/btf/vmlinux" {
		t.Errorf("%q %q", s.SysfsVmlinux(), s.VmlinuxBTF())
	}
	s.BTFEnv, s.HasBTFEnv = "/k.btf", true
	if s.VmlinuxBTF() != "/k.btf" {
		t.Errorf("with $PAHOLE_VMLINUX_BTF_FILENAME: %q", s.VmlinuxBTF())
	}
	for path, want := range map[string]bool{
		"/r/sys/kernel/btf/xfs": true, "/r/sys/kernel/btf/vmlinux": false, "/r/sys/kernel/btf/a/vmlinux.x": false,
		"/r/sys/kernel/btf/vmlinuxy": false, "/sys/kernel/btf/xfs": false, "/r/sys/kernel/btfx": false,
	} {
		if got := s.IsSysfsModule(path); got != want {
			t.Errorf("IsSysfsModule(%q) = %v", path, got)
		}
	}
	if !(System{}).IsSysfsModule("/sys/kernel/btf/nf_conntrack") || (System{}).IsSysfsModule("/sys/kernel/btf/vmlinux") {
		t.Error("the machine's own /sys/kernel/btf")
	}
}

// FuzzNotesBuildID reads arbitrary notes: never a panic, and an ID found
// is 20 bytes.
func FuzzNotesBuildID(f *testing.F) {
	f.Add([]byte("\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x000123456789abcdefghij"), true)
	f.Add([]byte("\x04\x00\x00\x00\x08\x00\x00\x00\x03\x00\x00\x00GNU\x0001234567"), false)
	f.Fuzz(func(t *testing.T, data []byte, sysfs bool) {
		if id, ok := notesBuildID(data, binary.LittleEndian, sysfs); ok && len(id) != 2*buildIDSize {
			t.Errorf("ID %q", id)
		}
	})
}
