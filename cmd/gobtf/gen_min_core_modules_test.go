package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// The oracles of min_core_btf with kernel modules, run at test time:
// btfmerge (../shared/tools, libbpf 1.8) makes libbpf's super BTF of the
// vmlinux and one module, and corerelo prints what libbpf makes of the
// objects' relocations against a standalone BTF. For objects whose local
// types share no name with a vmlinux type of another module's definition,
// the super BTF gives every relocation what the running kernel's search
// gives; the name collision case (the vmlinux-first rule) is tested with a
// fixture module of the tests' own, testdata/core-modules/fixmod.c.

// moduleObjects are testdata/core-modules built once per test binary run:
// the BPF objects (against the shared vmlinux.h) and the fixture module's
// split BTF on the shared vmlinux BTF ("fixmod.btf").
var moduleObjects struct {
	once sync.Once
	err  string
	objs map[string]string
}

// buildModuleObjects builds testdata/core-modules (see moduleObjects),
// skipping as buildCoreObjects does, and without gcc.
func buildModuleObjects(t *testing.T) map[string]string {
	t.Helper()
	buildCoreObjects(t) // vmlinux.h, the same compiler and headers
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("skipping: gcc is not installed (it builds the fixture module)")
	}
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	moduleObjects.once.Do(func() {
		dir, err := scratchDir(t, "core-module-objects")
		if err != nil {
			moduleObjects.err = err.Error()
			return
		}
		moduleObjects.objs = map[string]string{}
		srcs, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "core-modules", "*.c"))
		for _, src := range srcs {
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(src), ".c"), ".bpf")
			obj := filepath.Join(dir, name+".o")
			cc := "clang-19"
			if !strings.HasSuffix(src, ".bpf.c") {
				cc = "gcc"
			}
			if err := testutil.BuildFixture(t, src, obj, map[string]string{"CC": cc, "INC": coreObjects.dir}); err != nil {
				moduleObjects.err = err.Error()
				return
			}
			if cc == "gcc" {
				raw := filepath.Join(dir, name+".btf")
				if _, stderr, _, err := runGobtf("-J", "--btf_base", vmlinux, "--btf_encode_detached="+raw, obj); err != nil {
					moduleObjects.err = stderr + err.Error()
					return
				}
				obj = raw
			}
			moduleObjects.objs[name] = obj
		}
	})
	if moduleObjects.err != "" {
		t.Fatalf("building testdata/core-modules: %s", moduleObjects.err)
	}
	return moduleObjects.objs
}

// superBTF runs btfmerge on vmlinux and module and returns the super BTF.
func superBTF(t *testing.T, vmlinux, module string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(module)+".super.btf")
	if b, err := exec.Command(testutil.Tool(t, "btfmerge"), out, vmlinux, module).CombinedOutput(); err != nil {
		t.Fatalf("btfmerge %s %s: %v\n%s", vmlinux, module, err, b)
	}
	return out
}

// TestMinCoreModules: with the shared xfs and nf_conntrack modules, libbpf
// relocates each object against the one standalone OUTPUT as against the
// super BTF of the vmlinux and its module (btfmerge), nothing is
// unresolved and the kernel loads OUTPUT; without the modules, each relocation of a module type is
// reported, naming what was searched.
func TestMinCoreModules(t *testing.T) {
	objs := buildModuleObjects(t)
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	xfs, nfct := testutil.Reference(t, "modules/xfs.btf"), testutil.Reference(t, "modules/nf_conntrack.btf")
	out := filepath.Join(t.TempDir(), "min.btf")
	_, stderr, code, err := runGobtf("gen", "min_core_btf", "--base-btf", vmlinux, xfs, "--module", nfct, out, objs["xfs"], objs["nf_conntrack"])
	if code != 0 {
		t.Fatalf("gobtf: exit %d: %v\n%s", code, err, stderr)
	}
	if stderr != "" {
		t.Errorf("gobtf reported relocations with both modules given:\n%s", stderr)
	}
	checkCoreRelo(t, superBTF(t, vmlinux, xfs), out, objs["xfs"])
	checkCoreRelo(t, superBTF(t, vmlinux, nfct), out, objs["nf_conntrack"])
	if b, err := exec.Command(testutil.Tool(t, "btfload"), out).CombinedOutput(); err != nil {
		t.Errorf("btfload: the kernel refuses OUTPUT: %v\n%s", err, b)
	}

	// -B after the subcommand is --base-btf; the output is the same.
	out2 := filepath.Join(t.TempDir(), "min2.btf")
	mustGobtf(t, "gen", "min_core_btf", "-B", vmlinux, xfs, "--module", nfct, out2, objs["xfs"], objs["nf_conntrack"])
	if a, b := readFile(t, out), readFile(t, out2); !bytes.Equal(a, b) {
		t.Error("-B and --base-btf give different outputs")
	}

	// Without nf_conntrack: its types are unresolved, and the message
	// names the vmlinux and the module searched.
	_, stderr, _, _ = runGobtf("gen", "min_core_btf", "-B", vmlinux, xfs, filepath.Join(t.TempDir(), "x.btf"), objs["nf_conntrack"])
	for _, want := range []string{
		"relocation #3 on struct nf_conn_acct, access 0:0:1:1:0 (.counter[1].bytes.counter): unresolved: " + vmlinux + " and module(s) xfs have no struct named nf_conn_acct",
		"relocation #5 on struct nf_conntrack_helper, access 0:0:3 (.name[3]): unresolved: " + vmlinux + " and module(s) xfs have no struct named nf_conntrack_helper",
		"3 unresolved",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Without any module: every relocation of a module type is named.
	_, stderr, _, _ = runGobtf("gen", "min_core_btf", vmlinux, filepath.Join(t.TempDir(), "y.btf"), objs["xfs"])
	if n := strings.Count(stderr, "has no struct named xfs_"); n != 8 {
		t.Errorf("%d relocations of xfs types reported without the module, want 8 (all but task_struct's):\n%s", n, stderr)
	}
}

// TestMinCoreSplitOutput: --split-output's module file loads on its
// vmlinux file (btfload --base, the kernel's verifier), and libbpf
// relocates against the two, merged, as against the full files merged.
func TestMinCoreSplitOutput(t *testing.T) {
	objs := buildModuleObjects(t)
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	testutil.RequireRoot(t)
	btfload := testutil.Tool(t, "btfload")
	for _, mod := range []string{"xfs", "nf_conntrack"} {
		t.Run(mod, func(t *testing.T) {
			full := testutil.Reference(t, "modules/"+mod+".btf")
			dir := t.TempDir()
			mustGobtf(t, "gen", "min_core_btf", "-B", vmlinux, full, "--split-output", dir, objs[mod])
			minVM, minMod := filepath.Join(dir, "vmlinux.btf"), filepath.Join(dir, mod+".btf")
			if b, err := exec.Command(btfload, minMod, "--base", minVM).CombinedOutput(); err != nil {
				t.Fatalf("btfload %s --base %s: %v\n%s", minMod, minVM, err, b)
			}
			checkCoreRelo(t, superBTF(t, vmlinux, full), superBTF(t, minVM, minMod), objs[mod])
		})
	}
}

// TestMinCoreVmlinuxFirst: the fixture module's file_system_type, which
// OUTPUT must keep (a module struct embeds it), must not become a candidate
// for local types named file_system_type, which the vmlinux has: program
// vmfirst relocates against OUTPUT as against the vmlinux alone, and
// program modtype as against the super BTF. The super BTF itself offers
// the module's type to vmfirst (libbpf relocates it otherwise there),
// which is what the rule is about.
func TestMinCoreVmlinuxFirst(t *testing.T) {
	objs := buildModuleObjects(t)
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	obj, mod := objs["collide"], objs["fixmod"]
	dir := t.TempDir()
	out := filepath.Join(dir, "min.btf")
	_, stderr, code, err := runGobtf("gen", "min_core_btf", "-B", vmlinux, mod, out, obj)
	if code != 0 {
		t.Fatalf("gobtf: exit %d: %v\n%s", code, err, stderr)
	}
	if !strings.Contains(stderr, "struct file_system_type [94548] of module fixmod is named fixmod__file_system_type in the output") {
		t.Errorf("the rename is not reported:\n%s", stderr)
	}
	super := superBTF(t, vmlinux, mod)
	prog := func(target, name string) string {
		r := runCoreRelo(t, target, obj)[0]
		if r.code != 0 {
			t.Fatalf("corerelo %s: exit %d\n%s", target, r.code, r.stderr)
		}
		var lines []string
		for _, l := range r.lines {
			if f := strings.Fields(l); len(f) > 1 && f[1] == name {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			t.Fatalf("corerelo printed no instruction of program %s", name)
		}
		return strings.Join(lines, "\n")
	}
	if got, want := prog(out, "vmfirst"), prog(vmlinux, "vmfirst"); got != want {
		t.Errorf("program vmfirst relocates otherwise against OUTPUT than against the vmlinux alone:\n%s\nwant:\n%s", got, want)
	}
	if got, want := prog(out, "modtype"), prog(super, "modtype"); got != want {
		t.Errorf("program modtype relocates otherwise against OUTPUT than against the super BTF:\n%s\nwant:\n%s", got, want)
	}
	if prog(super, "vmfirst") == prog(vmlinux, "vmfirst") {
		t.Error("the super BTF relocates vmfirst as the vmlinux does: the fixture no longer tests the rule")
	}
	// Split output: nothing renamed, the module's type stays its own.
	split := filepath.Join(dir, "split")
	mustGobtf(t, "gen", "min_core_btf", "-B", vmlinux, mod, "--split-output", split, obj)
	if d := testutil.DumpSplitFile(t, filepath.Join(split, "fixmod.btf"), testutil.ParseFile(t, filepath.Join(split, "vmlinux.btf"), nil)); !strings.Contains(d, "STRUCT 'file_system_type' size=16") {
		t.Errorf("split module file lacks its own file_system_type:\n%s", d)
	}
}

// TestMinCoreModulesKo is TestMinCoreModules on the corpus's ELF files as
// Debian ships them: the vmlinux's .BTF and the modules' .ko files, for
// min_core_btf and for btf merge.
func TestMinCoreModulesKo(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: reads the corpus's vmlinux (-short)")
	}
	objs := buildModuleObjects(t)
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	xfs, nfct := testutil.Corpus(t, "modules/xfs.ko"), testutil.Corpus(t, "modules/nf_conntrack.ko")
	out := filepath.Join(t.TempDir(), "min.btf")
	_, stderr, code, err := runGobtf("gen", "min_core_btf", "-B", vmlinux, xfs, "--module", nfct, out, objs["xfs"], objs["nf_conntrack"])
	if code != 0 || stderr != "" {
		t.Fatalf("gobtf: exit %d: %v\n%s", code, err, stderr)
	}
	for mod, obj := range map[string]string{xfs: objs["xfs"], nfct: objs["nf_conntrack"]} {
		super := superBTF(t, vmlinux, mod)
		checkCoreRelo(t, super, out, obj)
		merged := filepath.Join(t.TempDir(), "merged.btf")
		mustGobtf(t, "btf", "merge", merged, vmlinux, mod)
		if !bytes.Equal(testutil.ReadFile(t, merged), testutil.ReadFile(t, super)) {
			t.Errorf("btf merge %s %s: the bytes differ from btfmerge's", vmlinux, mod)
		}
	}
}

// TestMinCoreModulesVmlinuxObjects: objects that read vmlinux types only
// get, with the modules given, bpftool 7.1's output for the vmlinux alone,
// byte for byte: the modules are not searched for types the vmlinux has.
func TestMinCoreModulesVmlinuxObjects(t *testing.T) {
	core := buildCoreObjects(t)
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	var objs []string
	for _, n := range []string{"fields", "types", "flavors", "narrow", "exists"} {
		objs = append(objs, core[n])
	}
	dir := t.TempDir()
	got, want := filepath.Join(dir, "gobtf.btf"), filepath.Join(dir, "bpftool.btf")
	if code, stderr := bpftoolMinCore(t, false, vmlinux, want, objs...); code != 0 {
		t.Fatalf("bpftool: exit %d\n%s", code, stderr)
	}
	mustGobtf(t, append([]string{"gen", "min_core_btf", "-B", vmlinux, testutil.Reference(t, "modules/xfs.btf"),
		"--module", testutil.Reference(t, "modules/nf_conntrack.btf"), got}, objs...)...)
	if !bytes.Equal(readFile(t, got), readFile(t, want)) {
		t.Error("OUTPUT differs from bpftool's output for the vmlinux alone")
	}
}
