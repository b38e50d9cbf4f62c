package main

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestMinCoreBTFTestPrograms checks gen min_core_btf on the programs of
// testdata/core against the shared kernel's BTF, one at a time and all
// together, and tagged.bpf.c against tagged_target.c's BTF (type tags,
// decl tags, FWDs; bpftool fails there), against the oracles of
// checkMinCore.
func TestMinCoreBTFTestPrograms(t *testing.T) {
	objs := buildCoreObjects(t)
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	kernel := []string{"fields", "types", "flavors", "narrow", "ambiguous", "exists"}
	var all []string
	for _, name := range kernel {
		all = append(all, objs[name])
		t.Run(name, func(t *testing.T) { checkMinCore(t, vmlinux, objs[name]) })
	}
	t.Run("all", func(t *testing.T) { checkMinCore(t, vmlinux, all...) })
	t.Run("tagged", func(t *testing.T) {
		dir := t.TempDir()
		if code, _ := bpftoolMinCore(t, false, objs["tagged_target"], filepath.Join(dir, "b.btf"), objs["tagged"]); code == 0 {
			t.Errorf("bpftool 7.1 succeeds on type matches against TYPE_TAGs; the test expects its \"unsupported kind\" failure")
		}
		checkMinCore(t, objs["tagged_target"], objs["tagged"])
	})
	// The running kernel's BTF is another kernel's, often with DECL_TAGs.
	t.Run("running-kernel", func(t *testing.T) {
		data, err := elfio.ReadBTF(sysfsVmlinuxBTF)
		if err != nil {
			t.Skipf("skipping: %v", err)
		}
		if _, err := btf.Parse(data, nil); err != nil {
			t.Skipf("skipping: the running kernel's BTF is of a kind gobtf does not read: %v", err)
		}
		checkMinCore(t, sysfsVmlinuxBTF, all...)
	})
}

// TestMinCoreBTFWidens runs widen.bpf.c against a target with two structs
// named task, where bpftool's output makes libbpf relocate the program
// otherwise than the target does (see widen.bpf.c): gobtf's output must
// relocate it as the target does, and differ from bpftool's.
func TestMinCoreBTFWidens(t *testing.T) {
	objs := buildCoreObjects(t)
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddStruct(false, "task", 8, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "x", Type: i, BitOffset: 32}})
	s.AddStruct(false, "task", 12, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "x", Type: i, BitOffset: 32}, {Name: "y", Type: i, BitOffset: 64}})
	dir := t.TempDir()
	target := filepath.Join(dir, "target.btf")
	if err := os.WriteFile(target, s.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _ := bpftoolMinCore(t, false, target, filepath.Join(dir, "b.btf"), objs["widen"]); code != 0 {
		t.Fatalf("bpftool fails")
	}
	if relocatesAlike(t, target, filepath.Join(dir, "b.btf"), objs["widen"]) {
		t.Fatalf("bpftool's output relocates widen.o as the target does; the test expects it not to")
	}
	checkMinCore(t, target, objs["widen"])
	_, stderr, _, _ := runGobtf("gen", "min_core_btf", "-v", target, filepath.Join(dir, "g.btf"), objs["widen"])
	if !strings.Contains(stderr, "byte_off relocation #1 on struct task___l, access 0:1 (.y): kept every candidate that matched") {
		t.Errorf("-v does not say what it kept beyond bpftool:\n%s", stderr)
	}
}

// TestMinCoreBTFNamesUnresolved checks that a relocation the target cannot
// satisfy is named on stderr (object, program, kind, access, type), with
// the count at the end, where bpftool says nothing and exits 0; and that
// --strict makes it an error that leaves OUTPUT unwritten.
func TestMinCoreBTFNamesUnresolved(t *testing.T) {
	objs := buildCoreObjects(t)
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	dir := t.TempDir()
	if code, stderr := bpftoolMinCore(t, false, vmlinux, filepath.Join(dir, "b.btf"), objs["fields"]); code != 0 || stderr != "" {
		t.Fatalf("bpftool: exit %d, stderr %q; the test expects it silent", code, stderr)
	}
	out := filepath.Join(dir, "g.btf")
	_, stderr, code, err := runGobtf("gen", "min_core_btf", vmlinux, out, objs["fields"])
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, want := range []string{
		// a field the kernel's task_struct lacks, read through a flavor
		"fields.o: program read_task: byte_off relocation #28 on struct task_struct___v2, access 0:1 (.no_such_field_in_the_kernel): unresolved: none of the 1 candidate(s) in " + vmlinux + " matches (instruction poisoned)",
		// an existence check of a struct the kernel does not have
		"fields.o: program read_task: field_exists relocation #26 on struct gobtf_absent_struct, access 0:0 (.x): absent: " + vmlinux + " has no struct named gobtf_absent_struct (value 0)",
		"min_core_btf: 42 relocation(s) in 1 object(s): 38 resolved, 0 local, 3 absent (existence checks answered no), 1 unresolved, 0 ambiguous, 0 failed",
	} {
		if !strings.Contains(stderr, "gobtf: "+filepath.Dir(objs["fields"])+"/"+want+"\n") && !strings.Contains(stderr, "gobtf: "+want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	strictOut := filepath.Join(dir, "strict.btf")
	_, stderr, code, err = runGobtf("gen", "min_core_btf", "--strict", vmlinux, strictOut, objs["fields"])
	if code != 1 || !strings.Contains(err.Error(), "--strict: 1 relocation(s) unresolved") {
		t.Errorf("--strict: exit %d, error %v; want 1 and the count", code, err)
	}
	if _, err := os.Stat(strictOut); err == nil {
		t.Errorf("--strict wrote OUTPUT")
	}
	// Existence checks answered "no" are answers, not errors, even with
	// --strict; each is reported as absent.
	_, stderr, code, err = runGobtf("gen", "min_core_btf", "--strict", vmlinux, strictOut, objs["exists"])
	if code != 0 {
		t.Errorf("--strict on exists.o (existence checks only): exit %d: %v\n%s", code, err, stderr)
	}
	if n := strings.Count(stderr, ": absent: "); n != 5 {
		t.Errorf("exists.o: %d relocations reported absent, want 5:\n%s", n, stderr)
	}
}

// TestMinCoreBTFVerbose checks -v: each object's list of kept types and
// members is what OUTPUT holds when the object is alone (as bpftool's dump
// of OUTPUT shows it).
func TestMinCoreBTFVerbose(t *testing.T) {
	objs := buildCoreObjects(t)
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	out := filepath.Join(t.TempDir(), "g.btf")
	stdout, _, code, err := runGobtf("gen", "min_core_btf", "-v", vmlinux, out, objs["fields"])
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	head := regexp.MustCompile(`^.*fields\.o: 42 relocation\(s\), keeps (\d+) type\(s\) and (\d+) member\(s\):$`).FindStringSubmatch(lines[0])
	if head == nil {
		t.Fatalf("-v's first line: %q", lines[0])
	}
	// Each listed line is "  [ID] KIND 'name'[ size=N members: 'a' 'b']";
	// bpftool's dump of OUTPUT has the same kinds, names and members.
	listed := regexp.MustCompile(`^  \[\d+\] (\w+) ('[^']*')(?: size=\d+ members: (.*))?$`)
	var want []string
	for _, l := range lines[1:] {
		m := listed.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("-v line %q", l)
		}
		want = append(want, strings.TrimSpace(m[1]+" "+m[2]+" "+m[3]))
	}
	dumped := regexp.MustCompile(`^\[\d+\] (\w+) ('[^']*')`)
	member := regexp.MustCompile(`^\t('[^']*') type_id=`)
	var got []string
	for _, l := range strings.Split(string(btfDump(t, out)), "\n") {
		if m := dumped.FindStringSubmatch(l); m != nil {
			got = append(got, m[1]+" "+m[2])
		} else if m := member.FindStringSubmatch(l); m != nil && len(got) > 0 {
			got[len(got)-1] += " " + m[1]
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("-v lists\n%s\nOUTPUT holds\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	if len(want) == 0 {
		t.Errorf("-v lists nothing")
	}
}

// TestMinCoreBTFUsage checks bpftool's argument count (INPUT OUTPUT and at
// least one OBJECT) and gen's unknown subcommands: usage errors, exit 2.
func TestMinCoreBTFUsage(t *testing.T) {
	for _, args := range [][]string{
		{"gen", "min_core_btf"},
		{"gen", "min_core_btf", "in.btf", "out.btf"},
		{"gen", "skeleton", "x.o"},
	} {
		_, _, code, err := runGobtf(args...)
		if code != 2 {
			t.Errorf("%s: exit %d (%v), want 2", strings.Join(args, " "), code, err)
		}
	}
}

// selftestObjects extracts the kernel's CO-RE relocation tests
// (tools/testing/selftests/bpf/progs/test_core_reloc_*.c, the target types
// btf__core_reloc_*.c and core_reloc_types.h) from linux-source-6.1 into
// the test cache, compiles them with clang 19 as the selftests' Makefile
// does, and returns the objects' folder. It skips the test when the
// source, clang 19 or libbpf's headers are missing.
func selftestObjects(t *testing.T) string {
	t.Helper()
	const tarball = "/usr/src/linux-source-6.1.tar.xz"
	if _, err := os.Stat(tarball); err != nil {
		t.Skip("skipping: linux-source-6.1 is not installed (the kernel's CO-RE relocation tests)")
	}
	buildCoreObjects(t) // the same compiler and headers, and vmlinux.h
	dir := filepath.Join(testutil.CacheDir(t), "core-reloc-selftests")
	progs := filepath.Join(dir, "linux-source-6.1", "tools", "testing", "selftests", "bpf", "progs")
	done := filepath.Join(dir, "built")
	if _, err := os.Stat(done); err == nil {
		return filepath.Join(dir, "obj")
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "obj"), 0o755); err != nil {
		t.Fatal(err)
	}
	const sub = "linux-source-6.1/tools/testing/selftests/bpf/progs/"
	tar := exec.Command("tar", "-xJf", tarball, "-C", dir, "--wildcards", sub+"test_core_reloc_*.c", sub+"btf__core_reloc_*.c", sub+"core_reloc_types.h")
	if out, err := tar.CombinedOutput(); err != nil {
		t.Fatalf("extracting the selftests: %v\n%s", err, out)
	}
	// clang's -target bpf defines no __x86_64__, so glibc's headers ask for
	// the 32-bit stubs, which 64-bit systems lack: the selftests work
	// around it as libbpf-tools do, with an empty one.
	stubs := filepath.Join(dir, "stubs", "gnu")
	if err := os.MkdirAll(stubs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stubs, "stubs-32.h"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srcs, _ := filepath.Glob(filepath.Join(progs, "*core_reloc_*.c"))
	for _, src := range srcs {
		obj := filepath.Join(dir, "obj", strings.TrimSuffix(filepath.Base(src), ".c")+".o")
		if err := testutil.Compile(t, "", "clang-19", "-g", "-O2", "-target", "bpf", "-D__TARGET_ARCH_x86",
			"-I"+filepath.Dir(stubs), "-I/usr/include/"+machineTriplet(), "-I"+progs, "-I"+coreObjects.dir,
			"-c", src, "-o", obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "obj")
}

// machineTriplet is Debian's multiarch folder of the host's kernel headers
// (asm/), which clang -target bpf does not search by itself.
func machineTriplet() string {
	out, err := exec.Command("gcc", "-dumpmachine").Output()
	if err != nil {
		return "x86_64-linux-gnu"
	}
	return strings.TrimSpace(string(out))
}

// TestMinCoreBTFKernelSelftests checks gen min_core_btf on the kernel's own
// CO-RE relocation tests: each test program against each of its target
// BTFs (btf__core_reloc_<group>*.c: flavors, nesting, arrays, primitives,
// mods, ints, bitfields, sizes, type-based, type IDs, enums and enum64,
// the error cases among them), and test_core_reloc_kernel.c against the
// shared kernel's BTF, against the oracles of checkMinCore.
func TestMinCoreBTFKernelSelftests(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode: builds the kernel's CO-RE tests")
	}
	objdir := selftestObjects(t)
	targets, _ := filepath.Glob(filepath.Join(objdir, "btf__core_reloc_*.o"))
	pairs := 0
	for _, target := range targets {
		group := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(target), "btf__core_reloc_"), ".o")
		group, _, _ = strings.Cut(group, "___")
		group, _, _ = strings.Cut(group, "__err")
		progs, _ := filepath.Glob(filepath.Join(objdir, "test_core_reloc_"+group+"*.o"))
		for _, prog := range progs {
			pairs++
			t.Run(filepath.Base(target)+"/"+filepath.Base(prog), func(t *testing.T) { checkMinCore(t, target, prog) })
		}
	}
	if pairs < 60 {
		t.Errorf("only %d target/program pairs found in %s", pairs, objdir)
	}
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	t.Run("kernel", func(t *testing.T) { checkMinCore(t, vmlinux, filepath.Join(objdir, "test_core_reloc_kernel.o")) })
}
