package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestEncodeModulesDistilled encodes each shared module in ELF mode with the
// distilled_base feature, as an out-of-tree module build does, and checks
// the .BTF.base and .BTF sections it writes: the kernel verifier accepts the
// distilled base and the split concatenated; bpftool reads the split on the
// distilled base (its dump equals gobtf's); every distilled base type is a
// named INT, FLOAT, FWD or memberless STRUCT, UNION or ENUM with exactly one
// counterpart of that name, kind and size in the vmlinux BTF; and the split,
// relocated back onto the vmlinux BTF as the kernel does at module load, is
// structurally the split BTF gobtf writes without distilled_base (btfdiff).
// A second run on the result replaces both sections and changes nothing,
// and gobtf dump reads the module on its .BTF.base or relocated onto --base.
func TestEncodeModulesDistilled(t *testing.T) {
	basePath := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("skipping: needs objcopy to read the sections back")
	}
	full := parseBTFFile(t, basePath, nil)
	flags := append([]string{kbuildFlags[0] + ",distilled_base"}, kbuildFlags[1:]...)
	for _, m := range testutil.ModuleNames {
		t.Run(m, func(t *testing.T) {
			if testing.Short() && m != "nls_utf8" && m != "tcp_bbr" {
				t.Skip("skipping the larger modules in -short mode")
			}
			dir := t.TempDir()
			ko := copyFile(t, testutil.Corpus(t, "modules/"+m+".ko"), filepath.Join(dir, m+".ko"))

			// Without distilled_base, and detached (where pahole
			// ignores the feature): the plain split BTF.
			plain := filepath.Join(dir, "plain.btf")
			mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", basePath, "--btf_encode_detached=" + plain, ko}, kbuildFlags...)...)
			detached := filepath.Join(dir, "detached.btf")
			mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", basePath, "--btf_encode_detached=" + detached, ko}, flags...)...)
			if a, b := readFile(t, plain), readFile(t, detached); !bytes.Equal(a, b) {
				t.Errorf("detached output with distilled_base differs from the plain one (%d vs %d bytes)", len(b), len(a))
			}

			mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", basePath, ko}, flags...)...)
			// Running again on the result replaces both sections with
			// the same bytes: the whole file stays as it was. (Before
			// objcopy below, which rewrites the file it reads.)
			first := readFile(t, ko)
			mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", basePath, ko}, flags...)...)
			if again := readFile(t, ko); !bytes.Equal(again, first) {
				t.Errorf("a second run changed the module (%d bytes, then %d)", len(first), len(again))
			}
			splitPath, distPath := filepath.Join(dir, "split.btf"), filepath.Join(dir, "base.btf")
			if out, err := exec.Command(objcopy, "--dump-section", ".BTF="+splitPath, "--dump-section", ".BTF.base="+distPath, ko).CombinedOutput(); err != nil {
				t.Fatalf("objcopy: %v\n%s", err, out)
			}
			if os.Geteuid() == 0 {
				tool(t, "btfload", splitPath, "--base", distPath)
			}
			dist := parseBTFFile(t, distPath, nil)
			split := parseBTFFile(t, splitPath, dist)
			checkBpftoolDump(t, distPath, splitPath, split)
			checkDistilledTypes(t, dist, full)

			rel, err := btf.Relocate(split, full)
			if err != nil {
				t.Fatalf("relocating onto the vmlinux BTF: %v", err)
			}
			relPath := filepath.Join(dir, "relocated.btf")
			if err := os.WriteFile(relPath, rel.Marshal(rel.ByteOrder()), 0o644); err != nil {
				t.Fatal(err)
			}
			tool(t, "btfdiff", "-base", basePath, relPath, plain)

			// gobtf dump reads the module as libbpf 1.5+ does: on its
			// .BTF.base (what bpftool prints for the raw sections), or
			// relocated onto --base.
			checkModuleDump(t, ko, "", split)
			checkModuleDump(t, ko, basePath, rel)
			plainSpec := parseBTFFile(t, plain, full)
			t.Logf("%s: distilled base %d types (%d bytes), split %d types, of which %d copied from the base; plain split %d types",
				m, dist.TypeCount(), len(readFile(t, distPath)), split.NumTypes(), split.NumTypes()-plainSpec.NumTypes(), plainSpec.NumTypes())
			if split.NumTypes() < plainSpec.NumTypes() {
				t.Errorf("distilled split has %d types, fewer than the plain split's %d", split.NumTypes(), plainSpec.NumTypes())
			}
		})
	}
}

// checkBpftoolDump has bpftool read the split on the distilled base and
// compares its dump with gobtf's (which matches bpftool's format exactly).
func checkBpftoolDump(t *testing.T, basePath, splitPath string, split *btf.Spec) {
	t.Helper()
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Log("no bpftool: not checking that it reads the distilled split")
		return
	}
	got, err := exec.Command(bpftool, "-B", basePath, "btf", "dump", "file", splitPath).Output()
	if err != nil {
		t.Fatalf("bpftool -B %s btf dump file %s: %v", basePath, splitPath, err)
	}
	var want bytes.Buffer
	if err := split.Dump(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("bpftool's dump of the distilled split (%d bytes) differs from gobtf's (%d bytes)", len(got), want.Len())
	}
}

// checkModuleDump checks that "gobtf dump [--base BASE] KO" prints want.
func checkModuleDump(t *testing.T, ko, base string, want *btf.Spec) {
	t.Helper()
	args := []string{"dump", ko}
	if base != "" {
		args = []string{"dump", "--base", base, ko}
	}
	got, _, _, err := runGobtf(args...)
	if err != nil {
		t.Fatalf("gobtf %s: %v", strings.Join(args, " "), err)
	}
	var w bytes.Buffer
	if err := want.Dump(&w); err != nil {
		t.Fatal(err)
	}
	if got != w.String() {
		t.Errorf("gobtf %s printed %d bytes, want %d bytes (the split on %s)", strings.Join(args, " "), len(got), w.Len(), map[bool]string{true: ".BTF.base", false: "the relocated base"}[base == ""])
	}
}

// checkDistilledTypes checks each distilled base type's form and that it
// names exactly one type of the full base: same name, a kind that stands for
// it (ENUM for ENUM or ENUM64, FWD for FWD, STRUCT or UNION) and, except for
// a FWD, the same size.
func checkDistilledTypes(t *testing.T, dist, full *btf.Spec) {
	t.Helper()
	type key struct {
		name string
		kind btf.Kind
		size uint32
	}
	counts := map[key]int{}
	for id := btf.TypeID(1); id <= full.TypeCount(); id++ {
		typ := full.Type(id)
		k := key{full.Name(typ), typ.Kind(), typ.Size()}
		switch k.kind {
		case btf.KindEnum64:
			k.kind = btf.KindEnum
		case btf.KindFwd:
			k.size = 0
		}
		counts[k]++
		if k.kind == btf.KindStruct || k.kind == btf.KindUnion {
			counts[key{k.name, btf.KindFwd, 0}]++
		}
	}
	for id := btf.TypeID(1); id <= dist.TypeCount(); id++ {
		typ := dist.Type(id)
		name := dist.Name(typ)
		switch k := typ.Kind(); {
		case name == "":
			t.Errorf("distilled base type [%d] (%s) is anonymous", id, k)
		case k != btf.KindInt && k != btf.KindFloat && k != btf.KindFwd && k != btf.KindStruct && k != btf.KindUnion && k != btf.KindEnum:
			t.Errorf("distilled base type [%d] %q has kind %s", id, name, k)
		case (k == btf.KindStruct || k == btf.KindUnion || k == btf.KindEnum) && typ.Vlen() != 0:
			t.Errorf("distilled base type [%d] %s %q has %d members or values", id, k, name, typ.Vlen())
		default:
			if n := counts[key{name, k, typ.Size()}]; n != 1 {
				t.Errorf("distilled base type [%d] %s %q size %d has %d counterparts in the vmlinux BTF, want 1", id, k, name, typ.Size(), n)
			}
		}
	}
}

func parseBTFFile(t *testing.T, path string, base *btf.Spec) *btf.Spec {
	t.Helper()
	s, err := btf.Parse(readFile(t, path), base)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyFile(t *testing.T, src, dst string) string {
	t.Helper()
	if err := os.WriteFile(dst, readFile(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestEncodeDistilledNeedsBase checks that distilled_base without --btf_base
// in ELF mode is an error that leaves the file untouched (pahole fails too:
// libbpf cannot distill a base from standalone BTF), and that it is checked
// before the file is even read.
func TestEncodeDistilledNeedsBase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "module.ko")
	before := []byte("not read")
	if err := os.WriteFile(path, before, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := runGobtf("-J", "--btf_features=var,distilled_base", path)
	if err == nil || !strings.Contains(err.Error(), "needs --btf_base") {
		t.Fatalf("error %v, want one saying distilled_base needs --btf_base", err)
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("the file was modified")
	}
}
