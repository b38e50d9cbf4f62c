package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/testutil"
)

// bpftoolC returns what "bpftool [-B base] btf dump file path format c"
// prints, skipping the test when bpftool is missing.
func bpftoolC(t *testing.T, path, base string) string {
	t.Helper()
	return string(testutil.Bpftool(t, base, "btf", "dump", "file", path, "format", "c"))
}

// dumpC runs "gobtf dump --format c [--base base] path" and fails the test
// on error.
func dumpC(t *testing.T, path, base string) string {
	t.Helper()
	args := []string{"dump", "--format", "c"}
	if base != "" {
		args = append(args, "--base", base)
	}
	out, _, code, err := runGobtf(append(args, path)...)
	if code != 0 {
		t.Fatalf("gobtf %s: exit status %d: %v", strings.Join(args, " "), code, err)
	}
	return out
}

// cFixtures are the C files whose BTF the header printer is checked on, with
// the compilers that build them (tags.c needs clang's btf_type_tag).
var cFixtures = []struct {
	file string
	ccs  []string
}{
	{"cdump/layout.c", []string{"gcc", "clang"}},
	{"types/basic.c", []string{"gcc", "clang"}},
	{"types/tags.c", []string{"clang"}},
}

// TestDumpFormatCFixtures compiles each fixture with each compiler, encodes
// its BTF with gobtf -J, and compares gobtf's header of it with bpftool's,
// for the raw BTF file and for the object with a .BTF section.
func TestDumpFormatCFixtures(t *testing.T) {
	for _, fx := range cFixtures {
		for _, cc := range fx.ccs {
			t.Run(filepath.Base(fx.file)+"/"+cc, func(t *testing.T) {
				path, err := exec.LookPath(cc)
				if err != nil {
					t.Skipf("skipping: %s is not installed", cc)
				}
				dir := t.TempDir()
				src := filepath.Join(testutil.RepoRoot(), "testdata", fx.file)
				obj := filepath.Join(dir, "in.o")
				if out, err := exec.Command(path, "-g", "-O0", "-c", src, "-o", obj).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc, err, out)
				}
				raw := filepath.Join(dir, "in.btf")
				mustGobtf(t, "-J", "--btf_encode_detached="+raw, obj)
				if got, want := dumpC(t, raw, ""), bpftoolC(t, raw, ""); got != want {
					t.Errorf("header differs from bpftool's: %s", testutil.FirstDiff(got, want))
				}
				mustGobtf(t, "-J", obj)
				if got, want := dumpC(t, obj, ""), bpftoolC(t, obj, ""); got != want {
					t.Errorf("header of the object differs from bpftool's: %s", testutil.FirstDiff(got, want))
				}
			})
		}
	}
}

// TestDumpFormatCSplit checks --base with an ELF module file: the header of
// a module's split BTF holds the base's types too, as bpftool -B prints it.
func TestDumpFormatCSplit(t *testing.T) {
	base := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	path := testutil.Reference(t, "modules/tcp_bbr.btf")
	if got, want := dumpC(t, path, base), bpftoolC(t, path, base); got != want {
		t.Errorf("header differs from bpftool's: %s", testutil.FirstDiff(got, want))
	}
}

// TestDumpFormatCSysfs checks the running kernel's header and, without
// --base, a module's (read on the sysfs vmlinux, as bpftool does).
func TestDumpFormatCSysfs(t *testing.T) {
	if _, err := os.Stat(btffile.SysfsVmlinux); err != nil {
		t.Skipf("skipping: the running kernel exposes no BTF (%v)", err)
	}
	files := []string{btffile.SysfsVmlinux}
	mods, _ := filepath.Glob(btffile.SysfsDir + "*")
	for _, m := range mods {
		if m != btffile.SysfsVmlinux {
			files = append(files, m)
			break
		}
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if got, want := dumpC(t, path, ""), bpftoolC(t, path, ""); got != want {
				t.Errorf("header differs from bpftool's: %s", testutil.FirstDiff(got, want))
			}
		})
	}
}

// bpfProgram reads task_struct fields through CO-RE, as BPF programs built
// on a vmlinux.h do.
const bpfProgram = `#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

SEC("kprobe/do_nanosleep")
int on_sleep(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	pid_t pid = BPF_CORE_READ(task, pid);
	pid_t ppid = BPF_CORE_READ(task, real_parent, tgid);
	char comm[16];

	BPF_CORE_READ_STR_INTO(&comm, task, comm);
	bpf_printk("%s %d %d", comm, pid, ppid);
	return 0;
}
`

// TestDumpFormatCCompiles builds a BPF program on gobtf's header of the
// shared vmlinux BTF (or of the running kernel's) with clang -target bpf,
// and checks that the object's BTF has the task_struct it relocates against.
func TestDumpFormatCCompiles(t *testing.T) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("skipping: clang is not installed")
	}
	if _, err := os.Stat("/usr/include/bpf/bpf_core_read.h"); err != nil {
		t.Skip("skipping: libbpf-dev's headers are not installed")
	}
	src := btffile.SysfsVmlinux
	if os.Getenv("GOBTF_SHARED") != "" || sharedPresent() {
		src = testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	} else if _, err := os.Stat(src); err != nil {
		t.Skip("skipping: neither the shared vmlinux BTF nor the running kernel's")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "vmlinux.h"), []byte(dumpC(t, src, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "prog.bpf.c")
	if err := os.WriteFile(prog, []byte(bpfProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "prog.bpf.o")
	cmd := exec.Command(clang, "-target", "bpf", "-D__TARGET_ARCH_x86", "-O2", "-g", "-Wall", "-Werror", "-I", dir, "-c", prog, "-o", obj)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang -target bpf: %v\n%s", err, out)
	}
	spec, err := loadDumpSpec(obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for id := spec.FirstID(); id <= spec.TypeCount(); id++ {
		if spec.Name(spec.Type(id)) == "task_struct" {
			found = true
		}
	}
	if !found {
		t.Error("the BPF object's BTF has no task_struct")
	}
}

// sharedPresent reports whether ../shared is beside the repository.
func sharedPresent() bool {
	_, err := os.Stat(filepath.Join(testutil.RepoRoot(), "..", "shared", "reference"))
	return err == nil
}

// TestDumpFormatFlags checks that unknown values and combinations of the
// C header's flags are refused, naming the flag.
func TestDumpFormatFlags(t *testing.T) {
	fixture := filepath.Join(testutil.RepoRoot(), "testdata", "cdump", "bpftool76", "kfuncs.btf")
	tests := []struct {
		args []string
		flag string
	}{
		{[]string{"--format", "json", fixture}, "--format"},
		{[]string{"--format", "c", "--bpftool", "7.3", fixture}, "--bpftool"},
		{[]string{"--format", "c", "--unsorted", fixture}, "--unsorted"},
		{[]string{"--format", "c", "--root_id", "99999", fixture}, "kfuncs.btf: cdump: root type"},
	}
	for _, tc := range tests {
		_, _, code, err := runGobtf(append([]string{"dump"}, tc.args...)...)
		if code == 0 || err == nil || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%v: got exit status %d, error %v; want an error naming %s", tc.args, code, err, tc.flag)
		}
	}
}

// TestDumpFormatCBpftool76 checks the flags of bpftool 7.6's header against
// its output stored under testdata/cdump/bpftool76.
func TestDumpFormatCBpftool76(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "testdata", "cdump", "bpftool76")
	in := filepath.Join(dir, "kfuncs.btf")
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"sorted.h", nil},
		{"unsorted.h", []string{"--unsorted"}},
		{"root_id.h", []string{"--root_id", "3", "--root_id", "1"}},
	} {
		args := append(append([]string{"dump", "--format", "c", "--bpftool", "7.6"}, tc.args...), in)
		out, _, code, err := runGobtf(args...)
		if code != 0 {
			t.Fatalf("%v: exit status %d: %v", args, code, err)
		}
		if want := string(readFile(t, filepath.Join(dir, tc.want))); out != want {
			t.Errorf("%v: differs from %s: %s", args, tc.want, testutil.FirstDiff(out, want))
		}
	}
}
