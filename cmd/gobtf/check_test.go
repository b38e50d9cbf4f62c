package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// checkVersions are the kernel versions the acceptance runs check by.
var checkVersions = []string{"6.1", "6.12", "6.18"}

// TestCheckShared checks the shared kernel as Debian built it (its vmlinux
// and modules, whose .BTF pahole 1.24 wrote) and the reference BTF pahole
// 1.31 made of them: the kernel runs all of it, so every file must be
// accepted, by the rules of each version and on each path that applies.
func TestCheckShared(t *testing.T) {
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	kbuild := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	var kos, refs []string
	for _, m := range testutil.ModuleNames {
		kos = append(kos, testutil.Corpus(t, "modules/"+m+".ko"))
		refs = append(refs, testutil.Reference(t, "modules/"+m+".btf"))
	}
	for _, v := range checkVersions {
		for _, args := range [][]string{
			append([]string{"check", "--kernel", v, vmlinux}, kos...),
			append([]string{"check", "--kernel", v, "--as", "load", vmlinux}, kos...),
			append([]string{"check", "--kernel", v, "--base", kbuild, kbuild}, refs...),
			append([]string{"check", "--kernel", v, "--as", "load", "--base", kbuild, kbuild}, refs...),
		} {
			out, stderr, code, _ := runGobtf(args...)
			n := len(args) - 3
			if args[3] == "--as" {
				n -= 2
			}
			if args[3] == "--base" || len(args) > 5 && args[5] == "--base" {
				n -= 2
			}
			want := "by the rules of Linux " + v + ": " + strconv.Itoa(n) + " accepted, 0 rejected"
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("gobtf %s: exit %d, want 0 and %q:\n%s%s", strings.Join(args, " "), code, want, out, stderr)
			}
		}
	}
}

// TestCheckDebianModules checks the kernel make test-modules fetches
// (Debian's linux-image-6.1.0-56-cloud-amd64-dbg, in the test cache once
// scripts/test-modules.sh has run): its vmlinux and every module's .BTF as
// Debian built them must be accepted by the rules of each version, and the
// whole kernel take seconds.
func TestCheckDebianModules(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the 1,121 modules in -short mode")
	}
	root := filepath.Join(testutil.CacheDir(t), "dbg", "root", "usr", "lib", "debug")
	const kver = "6.1.0-56-cloud-amd64"
	vmlinux := filepath.Join(root, "boot", "vmlinux-"+kver)
	mods := filepath.Join(root, "lib", "modules", kver)
	if _, err := os.Stat(vmlinux); err != nil {
		t.Skipf("skipping: %s is missing (make test-modules downloads it)", vmlinux)
	}
	for _, v := range checkVersions {
		start := time.Now()
		out, stderr, code, _ := runGobtf("check", "--kernel", v, vmlinux, mods)
		took := time.Since(start)
		want := "checked 1122 files by the rules of Linux " + v + ": 1122 accepted, 0 rejected"
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--kernel %s: exit %d, want 0 and %q:\n%s%s", v, code, want, lastLines(out, 20), stderr)
		}
		t.Logf("--kernel %s: the vmlinux and 1,121 modules in %v", v, took)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestCheckDistilledBase encodes a module with the distilled_base feature
// (.BTF.base and .BTF, as an out-of-tree module build writes them) and
// checks it: a kernel that reads .BTF.base (6.11 on) relocates it onto the
// vmlinux BTF and accepts it; 6.1, which ignores .BTF.base, reads its .BTF
// as split BTF on the vmlinux's, exactly as it would read that section
// alone.
func TestCheckDistilledBase(t *testing.T) {
	basePath := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	dir := t.TempDir()
	ko := copyFile(t, testutil.Corpus(t, "modules/nls_utf8.ko"), filepath.Join(dir, "nls_utf8.ko"))
	flags := append([]string{kbuildFlags[0] + ",distilled_base"}, kbuildFlags[1:]...)
	mustGobtf(t, append([]string{"-J", "--btf_base", basePath, ko}, flags...)...)
	f, err := elfio.ReadBTFFile(ko)
	if err != nil || f.Base == nil {
		t.Fatalf("no .BTF.base in %s: %v", ko, err)
	}
	for _, v := range []string{"6.12", "6.18"} {
		out, stderr, code, _ := runGobtf("check", "-v", "--lint", "--kernel", v, "--base", basePath, ko)
		if code != 0 || !strings.Contains(out, "lint (0 findings") {
			t.Errorf("--kernel %s: exit %d, want 0 and no lint finding:\n%s%s", v, code, out, stderr)
		}
	}
	raw := filepath.Join(dir, "split.btf")
	if err := os.WriteFile(raw, f.BTF, 0o644); err != nil {
		t.Fatal(err)
	}
	alone, _, codeAlone, _ := runGobtf("check", "--kernel", "6.1", "--base", basePath, raw)
	inKo, _, codeKo, _ := runGobtf("check", "--kernel", "6.1", "--base", basePath, ko)
	first := func(out, file string) string {
		return strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], file+": ")
	}
	if codeAlone != codeKo || first(alone, raw) != first(inKo, ko) {
		t.Errorf("--kernel 6.1 on the module (exit %d):\n%s\nand on its .BTF alone (exit %d):\n%s", codeKo, inKo, codeAlone, alone)
	}
	// What 6.1 makes of it is split BTF on the wrong base: lint says so.
	out, _, code, _ := runGobtf("check", "--lint", "--kernel", "6.1", "--base", basePath, ko)
	if !strings.Contains(out, ko+": base-mismatch (certain): made on another vmlinux BTF than its base") {
		t.Errorf("--kernel 6.1 --lint on the distilled module: want a base-mismatch finding:\n%s", out)
	}
	// Relocation onto a vmlinux BTF that lacks the distilled types fails,
	// with the kernel's warning and the module loader's line.
	tiny := btf.NewSpec(nil)
	tiny.AddInt("char", 1, btf.IntChar, 8)
	tinyPath := filepath.Join(dir, "tiny.btf")
	if err := os.WriteFile(tinyPath, tiny.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code, _ = runGobtf("check", "-v", "--kernel", "6.12", "--base", tinyPath, ko)
	if code != 1 || !strings.Contains(out, ko+": relocation: distilled base BTF type '") ||
		!strings.Contains(out, "is not mapped to base BTF id\n") || !strings.Contains(out, "    failed to validate module [nls_utf8] BTF: -22\n") {
		t.Errorf("relocation onto a vmlinux BTF without the module's base types: exit %d:\n%s", code, out)
	}
	// A reference past the module's last type passes the kernel's
	// per-type checks and then makes its relocation read past its ID map.
	patched := copyFile(t, ko, filepath.Join(dir, "patched.ko"))
	patchBTF(t, patched, func(b []byte) {
		s, err := btf.Parse(f.Base, nil)
		if err != nil {
			t.Fatal(err)
		}
		split, err := btf.Parse(b, s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range split.NumTypes() {
			if split.Own(i).Kind() == btf.KindFunc {
				h, _, _ := btf.ParseHeader(b)
				off := int(h.HdrLen+h.TypeOff) + 4*int(typeWordIndex(split, i)) + 8
				binary.LittleEndian.PutUint32(b[off:], 100000)
				return
			}
		}
		t.Fatal("no FUNC in the module")
	})
	if out, _, code, _ := runGobtf("check", "--kernel", "6.12", "--base", basePath, patched); code != 1 || !strings.Contains(out, "reads past the end of its ID map") {
		t.Errorf("a reference past the last type: exit %d:\n%s", code, out)
	}
	if _, _, code, _ := runGobtf("check", "--kernel", "6.1", "--base", basePath, patched); code != 0 {
		t.Errorf("a reference past the last type, 6.1 (no relocation, no resolution): exit %d, want 0", code)
	}

	// A kernel that reads .BTF.base relocates it onto another vmlinux BTF
	// (the default-flags one) too, which is what the distilled base is for.
	other := testutil.Reference(t, testutil.VmlinuxName+".default.btf")
	if out, _, code, _ := runGobtf("check", "--lint", "--kernel", "6.12", "--base", other, ko); code != 0 || !strings.Contains(out, "lint (0 findings") {
		t.Errorf("--kernel 6.12 on another vmlinux BTF: exit %d:\n%s", code, out)
	}
}

// TestCheckReport checks the report, the exit status and --json on a
// corrupted module, a good one, a missing file and a module without a base.
func TestCheckReport(t *testing.T) {
	dir := t.TempDir()
	base := btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	basePath := filepath.Join(dir, "vmlinux.btf")
	write := func(name string, s *btf.Spec) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, s.Marshal(binary.LittleEndian), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("vmlinux.btf", base)
	good := btf.NewSpec(base)
	good.AddRef(btf.KindPtr, "", i)
	bad := btf.NewSpec(base)
	bad.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "9a", Type: i}})
	goodPath, badPath := write("good.btf", good), write("bad.btf", bad)

	out, stderr, code, _ := runGobtf("check", "--base", basePath, goodPath, badPath)
	wantLine := badPath + ": [2] STRUCT s Invalid name\n"
	if code != 1 || !strings.HasPrefix(out, wantLine) || !strings.Contains(out, "2 files by the rules of Linux 6.18: 1 accepted, 1 rejected") ||
		!strings.Contains(out, "       1  Invalid name\n") || stderr != "" {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	out, _, _, _ = runGobtf("check", "-v", "--kernel", "6.1", "--base", basePath, badPath)
	for _, want := range []string{
		"    BPF:     9a type_id=1 bits_offset=0\n", "    BPF: Invalid name\n", "    failed to validate module [bad.btf] BTF: -22\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-v lacks %q:\n%s", want, out)
		}
	}

	out, _, code, _ = runGobtf("check", "--json", "--base", basePath, goodPath, badPath)
	sc := bufio.NewScanner(strings.NewReader(out))
	var objs []map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("--json line %q: %v", sc.Text(), err)
		}
		objs = append(objs, m)
	}
	if code != 1 || len(objs) != 3 {
		t.Fatalf("--json: exit %d, %d objects:\n%s", code, len(objs), out)
	}
	if objs[0]["accepted"] != true || objs[0]["as"] != "module" || objs[1]["accepted"] != false ||
		objs[1]["id"] != 2.0 || objs[1]["kind"] != "STRUCT" || objs[1]["name"] != "s" || objs[1]["reason"] != "Invalid name" {
		t.Errorf("--json objects: %v", objs[:2])
	}
	if s, _ := objs[2]["summary"].(map[string]any); s == nil || s["rejected"] != 1.0 || s["accepted"] != 1.0 {
		t.Errorf("--json summary: %v", objs[2])
	}

	if _, stderr, code, _ = runGobtf("check", "--base", basePath, goodPath, filepath.Join(dir, "missing.btf")); code != 2 || !strings.Contains(stderr, "missing.btf") {
		t.Errorf("a missing file: exit %d, stderr %q; want 2 and the file named", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--as", "module", goodPath}, "give the vmlinux with --base"},
		{[]string{"--kernel", "5.4", goodPath}, "6.1 and later"},
		{[]string{"--as", "boot", goodPath}, "want module, vmlinux or load"},
		{[]string{dir}, "no kernel modules"},
	} {
		_, _, code, err := runGobtf(append([]string{"check"}, tc.args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("check %s: exit %d, error %v; want 2 and %q", strings.Join(tc.args, " "), code, err, tc.want)
		}
	}
}

// typeWordIndex returns the index in s.Words() of own type i's first word.
func typeWordIndex(s *btf.Spec, i int) int {
	n := 0
	for j := range i {
		n += len(s.Own(j))
	}
	return n
}

// patchBTF rewrites, in place, the .BTF section of the ELF file at path.
func patchBTF(t *testing.T, path string, fn func(b []byte)) {
	t.Helper()
	data := readFile(t, path)
	f, err := elfio.NewFile(path, data)
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".BTF")
	if sec == nil {
		t.Fatalf("%s: no .BTF", path)
	}
	fn(data[sec.Offset : sec.Offset+sec.Size])
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
