package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gobtf/gobtf/internal/argp"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestPaholeUsage: argp's --usage of pahole's option table is pahole
// master's (testdata/paholecli/usage.txt, made by gen.sh), so the table
// holds master's options, value names and short letters; gobtf's own
// --usage is the same with gobtf's options added.
func TestPaholeUsage(t *testing.T) {
	want := string(testutil.Testdata(t, "paholecli", "usage.txt"))
	if got := argp.Usage(&argp.Table{Options: paholeOptions}, "pahole", "FILE"); got != want {
		t.Errorf("pahole's table's usage differs from pahole master's:\n%s", testutil.FirstDiff(got, want))
	}
	out, _, code := runAsMain("--usage")
	if code != 0 || !strings.HasPrefix(out, "Usage: gobtf [-aAdEIJlmMnNpPqrRsSTuVZ?] [-B NR_HOLES]") ||
		!strings.Contains(out, "[--skip_dedup]") || !strings.Contains(out, "[--stats]") {
		t.Errorf("gobtf --usage: exit %d\n%s", code, out)
	}
}

// TestPaholeOptionsKnown: every option of pahole master's table is a flag
// of gobtf's root command, taking a value as pahole's does; and every
// prefix that names one pahole option names it in gobtf too, whatever
// gobtf's own options.
func TestPaholeOptionsKnown(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	for _, o := range paholeOptions {
		f := root.Flags().Lookup(o.Name)
		if f == nil {
			t.Errorf("--%s: no flag", o.Name)
			continue
		}
		var kind argp.ArgKind
		switch {
		case f.NoOptDefVal == "":
			kind = argp.RequiredArg
		case f.Value.Type() == "bool":
			kind = argp.NoArg
		default:
			kind = argp.OptionalArg
		}
		if kind != o.Arg {
			t.Errorf("--%s: takes a value as %d, pahole as %d", o.Name, kind, o.Arg)
		}
		if o.Short != 0 && f.Shorthand != string(o.Short) && o.Name != "help" {
			t.Errorf("--%s: short -%s, pahole's -%c", o.Name, f.Shorthand, o.Short)
		}
	}
	root.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Shorthand != "" && f.Name != "help" && !strings.Contains(paholeShorts(), f.Shorthand) {
			t.Errorf("--%s: short -%s, which pahole does not have", f.Name, f.Shorthand)
		}
	})
	full := paholeTable(root)
	only := &argp.Table{Options: paholeOptions}
	for _, o := range paholeOptions {
		for n := 1; n <= len(o.Name); n++ {
			arg := "--" + o.Name[:n]
			if o.Arg == argp.RequiredArg {
				arg += "=x"
			}
			want, werr := argp.Parse(only, []string{arg}, false)
			got, gerr := argp.Parse(full, []string{arg}, false)
			if (werr == nil) != (gerr == nil) || (werr == nil && got.Options[0].Option.Name != want.Options[0].Option.Name) {
				t.Errorf("%s: gobtf reads %v (%v), pahole %v (%v)", arg, got.Options, gerr, want.Options, werr)
			}
		}
	}
}

func paholeShorts() string {
	var b strings.Builder
	for _, o := range paholeOptions {
		if o.Short != 0 {
			b.WriteByte(o.Short)
		}
	}
	return b.String()
}

// TestSubcommandsKeepCobra: a command line starting with a subcommand is
// read by cobra, not as pahole's: no abbreviations, cobra's errors.
func TestSubcommandsKeepCobra(t *testing.T) {
	base := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.btf")
	if out, _, code := runAsMain("version"); code != 0 || !strings.HasPrefix(out, "gobtf ") {
		t.Errorf("version: exit %d, %q", code, out)
	}
	if out, _, code := runAsMain("dump", "--format", "raw", base); code != 0 || !strings.HasPrefix(out, "[1] ") {
		t.Errorf("dump --format raw: exit %d, %.40q", code, out)
	}
	if _, stderr, code := runAsMain("dump", "--form", "raw", base); code != 2 || !strings.Contains(stderr, "unknown flag: --form") {
		t.Errorf("dump --form raw: exit %d, %q; want cobra's unknown flag, exit 2", code, stderr)
	}
	if out, _, code := runAsMain("help", "dump"); code != 0 || !strings.Contains(out, "gobtf dump") {
		t.Errorf("help dump: exit %d", code)
	}
	// A subcommand's name after options is an operand of pahole's.
	noKernel(t)
	if _, stderr, code := runAsMain("-s", "dump"); code != 1 || stderr != "pahole: couldn't find any debug information on this system.\n" {
		t.Errorf("-s dump: exit %d, %q", code, stderr)
	}
}

// TestSysfsModuleBase: a module's BTF under /sys/kernel/btf is read on the
// running kernel's BTF, as pahole reads it: the vmlinux file there, or
// $PAHOLE_VMLINUX_BTF_FILENAME's. The machine here is a folder standing
// for the root; pahole master's answers are those it gave to the same
// module and base named with --btf_base (master.txt).
func TestSysfsModuleBase(t *testing.T) {
	kbtf := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	dbtf := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.default.btf")
	xfs := testutil.Reference(t, "modules/xfs.btf")
	answers := readMasterAnswers(t)
	root := t.TempDir()
	sysfs := filepath.Join(root, "sys", "kernel", "btf")
	if err := os.MkdirAll(sysfs, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(sysfs, "xfs")
	if err := os.Symlink(xfs, mod); err != nil {
		t.Fatal(err)
	}
	setVmlinux := func(path string) {
		os.Remove(filepath.Join(sysfs, "vmlinux"))
		if path != "" {
			if err := os.Symlink(path, filepath.Join(sysfs, "vmlinux")); err != nil {
				t.Fatal(err)
			}
		}
	}
	fakeRoot(t, root)
	for _, c := range []struct {
		vmlinux, env string // the kernel's BTF file, $PAHOLE_VMLINUX_BTF_FILENAME
		master       string // master.txt's case with the same answer
	}{
		{kbtf, "", "--btf_base @KBTF -C xfs_inode @XFSBTF"},
		{dbtf, "", "--btf_base @DBTF -C xfs_inode @XFSBTF"},
		{dbtf, kbtf, "--btf_base @KBTF -C xfs_inode @XFSBTF"},
		{kbtf, dbtf, "--btf_base @DBTF -C xfs_inode @XFSBTF"},
		{"", "", ""},
	} {
		setVmlinux(c.vmlinux)
		os.Unsetenv("PAHOLE_VMLINUX_BTF_FILENAME")
		if c.env != "" {
			t.Setenv("PAHOLE_VMLINUX_BTF_FILENAME", c.env)
		}
		t.Logf("kernel BTF %q, $PAHOLE_VMLINUX_BTF_FILENAME %q: as pahole master's %q", c.vmlinux, c.env, c.master)
		stdout, stderr, code := runAsMain("-C", "xfs_inode", mod)
		want := &masterAnswer{exit: 1, stderr: "Failed to parse base BTF '" + filepath.Join(sysfs, "vmlinux") + "': -2\n"}
		if c.master != "" {
			want = answers[c.master]
		}
		want.check(t, stdout, stderr, code, strings.NewReplacer("@XFSBTF", mod))
	}
	// dump reads the module on the vmlinux there, as bpftool does.
	setVmlinux(kbtf)
	got, _, code := runAsMain("dump", mod)
	want, _, wcode := runAsMain("dump", "--base", kbtf, xfs)
	if code != 0 || wcode != 0 || got != want {
		t.Errorf("dump of the module under /sys/kernel/btf: exit %d, differs from dump --base", code)
	}
}

// TestRunningKernelVmlinux: without the kernel's BTF, pahole reads the
// vmlinux whose build ID is the one in /sys/kernel/notes, found where
// pahole looks (kernelbtf tests the search). The machine is a folder whose
// notes are the shared vmlinux's .notes section, as a running kernel's are.
func TestRunningKernelVmlinux(t *testing.T) {
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	out, err := exec.Command("objcopy", "-O", "binary", "--only-section=.notes", vmlinux, "/dev/stdout").Output()
	if err != nil || len(out) == 0 {
		t.Skipf("skipping: objcopy --only-section=.notes: %v", err)
	}
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "sys", "kernel"), 0o755))
	must(os.WriteFile(filepath.Join(root, "sys", "kernel", "notes"), out, 0o644))
	must(os.MkdirAll(filepath.Join(root, "boot"), 0o755))
	must(os.Symlink(vmlinux, filepath.Join(root, "boot", "vmlinux")))
	fakeRoot(t, root)
	os.Unsetenv("PAHOLE_VMLINUX_BTF_FILENAME")
	t.Setenv("PAHOLE_VMLINUX_BTF_FILENAME", filepath.Join(root, "no-btf"))
	if out, _, code := runAsMain("--running_kernel_vmlinux"); code != 0 || out != filepath.Join(root, "boot", "vmlinux")+"\n" {
		t.Errorf("--running_kernel_vmlinux: exit %d, %q", code, out)
	}
	got, stderr, code := runAsMain("-C", "list_head", "-F", "dwarf")
	want, _, _ := runAsMain("-C", "list_head", "-F", "dwarf", vmlinux)
	if code != 0 || got != want || stderr != "" || !strings.HasPrefix(got, "struct list_head {") {
		t.Errorf("-C list_head from the running kernel's vmlinux: exit %d, %q, output %.40q", code, stderr, got)
	}
	// -F btf reads no vmlinux.
	if _, stderr, code := runAsMain("-C", "list_head", "-F", "btf"); code != 1 || stderr != "pahole: couldn't find any btf debug information on this system.\n" {
		t.Errorf("-F btf: exit %d, %q", code, stderr)
	}
}

// TestDumpSplitWithoutBase: dump refuses a module's BTF given without its
// base as bpftool 7.1 refuses it, in one line: "failed to load BTF from
// FILE: Invalid argument" (bpftool prints it after "Error: ", and exits
// with -EINVAL's 234), exit 1.
func TestDumpSplitWithoutBase(t *testing.T) {
	xfs := testutil.Reference(t, "modules/xfs.btf")
	inputs := []string{xfs}
	if !testing.Short() {
		inputs = append(inputs, testutil.Corpus(t, "modules/xfs.ko"))
	}
	for _, in := range inputs {
		for _, format := range []string{"raw", "c"} {
			stdout, stderr, code := runAsMain("dump", "--format", format, in)
			want := "failed to load BTF from " + in + ": Invalid argument"
			if code != 1 || stdout != "" || stderr != "gobtf: "+want+"\n" {
				t.Errorf("dump --format %s %s: exit %d, stdout %.40q, stderr %q", format, in, code, stdout, stderr)
			}
			if _, err := exec.LookPath("bpftool"); err == nil {
				args := []string{"btf", "dump", "file", in}
				if format == "c" {
					args = append(args, "format", "c")
				}
				out, _ := exec.Command("bpftool", args...).CombinedOutput()
				if string(out) != "Error: "+want+"\n" {
					t.Errorf("bpftool %v says %q, gobtf %q", args, out, want)
				}
			}
		}
	}
}

// TestMakeInstall: "make install" with PREFIX and DESTDIR puts the binary
// and every manual page where packagers expect them, and man finds the
// page there; "make uninstall" takes them away.
func TestMakeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds gobtf")
	}
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("skipping: make not installed")
	}
	dest, bin := t.TempDir(), t.TempDir()
	vars := []string{"-C", testutil.RepoRoot(), "DESTDIR=" + dest, "PREFIX=/usr", "BIN=" + bin}
	if out, err := exec.Command(mk, append([]string{"install"}, vars...)...).CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	if out, err := exec.Command(filepath.Join(dest, "usr", "bin", "gobtf"), "--version").Output(); err != nil || string(out) != paholeVersion+"\n" {
		t.Errorf("installed gobtf --version: %q, %v", out, err)
	}
	pages, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "docs", "man", "*.1"))
	for _, p := range pages {
		if _, err := os.Stat(filepath.Join(dest, "usr", "share", "man", "man1", filepath.Base(p))); err != nil {
			t.Errorf("page not installed: %v", err)
		}
	}
	if man, err := exec.LookPath("man"); err == nil {
		cmd := exec.Command(man, "-w", "gobtf")
		cmd.Env = append(os.Environ(), "MANPATH="+filepath.Join(dest, "usr", "share", "man"))
		if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != filepath.Join(dest, "usr", "share", "man", "man1", "gobtf.1") {
			t.Errorf("man -w gobtf: %q, %v", out, err)
		}
	}
	if out, err := exec.Command(mk, append([]string{"uninstall"}, vars...)...).CombinedOutput(); err != nil {
		t.Fatalf("make uninstall: %v\n%s", err, out)
	}
	if left, _ := exec.Command("find", dest, "-type", "f").Output(); len(left) != 0 {
		t.Errorf("left after make uninstall:\n%s", left)
	}
}
