package main

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/testutil"
)

// bpftoolDump returns what "bpftool [-B base] btf dump file path" prints,
// skipping the test when bpftool is missing.
func bpftoolDump(t *testing.T, path, base string) string {
	t.Helper()
	return string(testutil.Bpftool(t, base, "btf", "dump", "file", path))
}

// toELF wraps raw BTF bytes into a relocatable ELF file whose .BTF section
// holds them, with objcopy; it skips the test without objcopy.
func toELF(t *testing.T, raw, elfPath, section string) {
	t.Helper()
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("skipping: objcopy is needed to build ELF inputs")
	}
	args := []string{"-I", "binary", "-O", "elf64-x86-64"}
	if section != "" {
		args = append(args, "--rename-section", ".data="+section)
	}
	args = append(args, raw, elfPath)
	if out, err := exec.Command(objcopy, args...).CombinedOutput(); err != nil {
		t.Skipf("skipping: objcopy %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// dumpTestFiles writes a small base BTF, a split BTF on it, ELF copies of
// both, and some broken inputs into a temporary folder and returns their
// paths by label.
func dumpTestFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	base := btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	st := base.AddStruct(false, "pair", 8, []btf.MemberSpec{{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32, BitfieldSize: 3}})
	proto := base.AddFuncProto(i, []btf.ParamSpec{{Name: "p", Type: st}, {}})
	base.AddFunc("f", proto, btf.LinkageGlobal)
	v := base.AddVar("counter", i, btf.LinkageStatic)
	base.AddDatasec(".bss", 4, []btf.SecInfoSpec{{Type: v, Size: 4}})
	base.AddEnum("e", 8, true, true, []btf.EnumValueSpec{{Name: "NEG", Value: -7}})

	split := btf.NewSpec(base)
	p := split.AddRef(btf.KindPtr, "", st)
	split.AddRef(btf.KindTypedef, "pair_p", p)
	split.AddDeclTag("kfunc", 4, -1, false)

	files := map[string]string{}
	write := func(label, name string, data []byte) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files[label] = path
	}
	baseRaw := base.Marshal(binary.LittleEndian)
	write("base", "base.btf", baseRaw)
	write("split", "split.btf", split.Marshal(binary.LittleEndian))
	write("notbtf", "notbtf.txt", []byte("hello, this is not BTF\n"))
	write("truncated", "truncated.btf", baseRaw[:len(baseRaw)-3])
	write("empty", "empty.btf", nil)
	files["missing"] = filepath.Join(dir, "missing.btf")
	files["baseELF"] = filepath.Join(dir, "base.o")
	files["splitELF"] = filepath.Join(dir, "split.o")
	files["noBTF"] = filepath.Join(dir, "nobtf.o")
	toELF(t, files["base"], files["baseELF"], ".BTF")
	toELF(t, files["split"], files["splitELF"], ".BTF")
	toELF(t, files["base"], files["noBTF"], "")
	return files
}

// TestDumpCommand runs "gobtf dump" on good, bad and misused inputs and
// checks the exit status, the error's naming of the file and, on success,
// that the output is bpftool's.
func TestDumpCommand(t *testing.T) {
	f := dumpTestFiles(t)
	cases := []struct {
		name     string
		args     []string
		code     int
		wantErr  string   // substring of the error (usage errors: any)
		bpftool  []string // FILE and optional BASE whose bpftool dump is the expected output
		noOutput bool
	}{
		{name: "raw", args: []string{"dump", f["base"]}, bpftool: []string{f["base"]}},
		{name: "ELF", args: []string{"dump", f["baseELF"]}, bpftool: []string{f["baseELF"]}},
		{name: "split", args: []string{"dump", "--base", f["base"], f["split"]}, bpftool: []string{f["split"], f["base"]}},
		{name: "split short flag", args: []string{"dump", "-B", f["base"], f["split"]}, bpftool: []string{f["split"], f["base"]}},
		{name: "split ELF on ELF base", args: []string{"dump", "--base", f["baseELF"], f["splitELF"]}, bpftool: []string{f["splitELF"], f["baseELF"]}},
		{name: "missing file", args: []string{"dump", f["missing"]}, code: 1, wantErr: f["missing"] + ": no such file"},
		{name: "not BTF", args: []string{"dump", f["notbtf"]}, code: 1, wantErr: f["notbtf"] + ": btf: offset 0x0: not BTF"},
		{name: "truncated", args: []string{"dump", f["truncated"]}, code: 1, wantErr: f["truncated"] + ": btf: offset 0x"},
		{name: "empty", args: []string{"dump", f["empty"]}, code: 1, wantErr: f["empty"] + ": btf: offset 0x0: "},
		{name: "ELF without .BTF", args: []string{"dump", f["noBTF"]}, code: 1, wantErr: f["noBTF"] + ": no .BTF section"},
		{name: "bad base", args: []string{"dump", "--base", f["notbtf"], f["split"]}, code: 1, wantErr: f["notbtf"] + ": btf: offset 0x0: not BTF"},
		{name: "missing base", args: []string{"dump", "--base", f["missing"], f["split"]}, code: 1, wantErr: f["missing"]},
		{name: "no file", args: []string{"dump"}, code: 2},
		{name: "two files", args: []string{"dump", f["base"], f["split"]}, code: 2},
		{name: "unknown flag", args: []string{"dump", "--bogus", f["base"]}, code: 2},
		{name: "base without value", args: []string{"dump", f["base"], "--base"}, code: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want string
			if c.bpftool != nil {
				base := ""
				if len(c.bpftool) > 1 {
					base = c.bpftool[1]
				}
				want = bpftoolDump(t, c.bpftool[0], base)
			}
			out, _, code, err := runGobtf(c.args...)
			if code != c.code {
				t.Fatalf("exit status %d (error %v), want %d", code, err, c.code)
			}
			if c.code != 0 {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("error %q does not contain %q", err, c.wantErr)
				}
				if out != "" {
					t.Errorf("failed run printed %q", out)
				}
				return
			}
			if out != want {
				t.Errorf("output differs from bpftool's\n got:\n%s\nwant:\n%s", out, want)
			}
		})
	}
}

// TestDumpCommandReference runs "gobtf dump" on a reference module's split
// BTF and its vmlinux base and compares with "bpftool -B".
func TestDumpCommandReference(t *testing.T) {
	base := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	mod := testutil.Reference(t, "modules/tcp_bbr.btf")
	want := bpftoolDump(t, mod, base)
	out, _, code, err := runGobtf("dump", "--base", base, mod)
	if code != 0 {
		t.Fatalf("exit status %d: %v", code, err)
	}
	if out != want {
		t.Errorf("output differs from bpftool's (%d bytes, want %d)", len(out), len(want))
	}
}

// TestDumpCommandKernelELF dumps the .BTF of real kernel modules (ELF) on the
// .BTF of the real vmlinux (ELF), as shipped by Debian, and compares with
// bpftool. It needs the decompressed 6.1 vmlinux, so -short skips it.
func TestDumpCommandKernelELF(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the whole-vmlinux ELF test in -short mode")
	}
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	for _, name := range []string{"nls_utf8", "tcp_bbr", "xfs"} {
		t.Run(name, func(t *testing.T) {
			ko := testutil.Corpus(t, "modules/"+name+".ko")
			want := bpftoolDump(t, ko, vmlinux)
			out, _, code, err := runGobtf("dump", "-B", vmlinux, ko)
			if code != 0 {
				t.Fatalf("exit status %d: %v", code, err)
			}
			if out != want {
				t.Errorf("output differs from bpftool's (%d bytes, want %d)", len(out), len(want))
			}
		})
	}
}

// TestDumpCommandSysfs dumps the running kernel's BTF, and a few of its
// modules' without --base (gobtf, like bpftool, bases them on the sysfs
// vmlinux), and compares with bpftool.
func TestDumpCommandSysfs(t *testing.T) {
	if _, err := os.Stat(btffile.SysfsVmlinux); err != nil {
		t.Skipf("skipping: the running kernel exposes no BTF (%v)", err)
	}
	files := []string{btffile.SysfsVmlinux}
	mods, _ := filepath.Glob(btffile.SysfsDir + "*")
	for _, m := range mods {
		if m != btffile.SysfsVmlinux && len(files) < 4 {
			files = append(files, m)
		}
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := bpftoolDump(t, path, "")
			out, _, code, err := runGobtf("dump", path)
			if code != 0 {
				t.Fatalf("exit status %d: %v", code, err)
			}
			if out != want {
				t.Errorf("output differs from bpftool's (%d bytes, want %d)", len(out), len(want))
			}
		})
	}
}
