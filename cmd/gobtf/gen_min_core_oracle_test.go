package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// The oracles of "gobtf gen min_core_btf", run at test time:
//
//   - Debian's bpftool 7.1 ("bpftool gen min_core_btf"): OUTPUT is its
//     bytes wherever it succeeds, and "bpftool -d" prints libbpf 1.1's
//     debug lines of every relocation (local spec, each candidate matching
//     or not), which gobtf's -d must print alike;
//   - corerelo (../shared/tools, libbpf 1.8): the final instructions of
//     every program relocated against a BTF; OUTPUT must give the lines
//     INPUT gives, or the same failure.

// bpftoolMinCore runs "bpftool [-d] gen min_core_btf in out objs..." and
// returns its exit status and stderr; it skips the test without bpftool.
func bpftoolMinCore(t *testing.T, debug bool, in, out string, objs ...string) (int, string) {
	t.Helper()
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("skipping: bpftool is not installed (the oracle of gen min_core_btf)")
	}
	args := append([]string{"gen", "min_core_btf", in, out}, objs...)
	if debug {
		args = append([]string{"-d"}, args...)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bpftool, args...)
	cmd.Stderr = &stderr
	err = cmd.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stderr.String()
		}
		t.Fatalf("bpftool: %v", err)
	}
	return 0, stderr.String()
}

// coreRelo is what corerelo printed for some objects against one target.
type coreRelo struct {
	lines  []string // "OBJ PROG IDX CODE DST SRC OFF IMM"
	stderr string
	code   int
}

// runCoreRelo runs corerelo on each object separately (an object libbpf
// rejects fails alone) against target. It skips the test without root or
// the tool.
func runCoreRelo(t *testing.T, target string, objs ...string) []coreRelo {
	t.Helper()
	testutil.RequireRoot(t)
	tool := testutil.Tool(t, "corerelo")
	var out []coreRelo
	for _, o := range objs {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(tool, target, o)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		r := coreRelo{}
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("corerelo: %v", err)
			}
			r.code = ee.ExitCode()
		}
		r.lines = strings.Split(strings.TrimSpace(stdout.String()), "\n")
		r.stderr = stderr.String()
		out = append(out, r)
	}
	return out
}

// typeNamer names type IDs of a BTF file as "KIND name", to compare the
// type IDs TYPE_ID_TARGET relocations write (which minimizing renumbers).
type typeNamer struct{ spec *btf.Spec }

func newTypeNamer(t *testing.T, path string) typeNamer {
	t.Helper()
	data, err := elfio.ReadBTF(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.Parse(data, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return typeNamer{spec}
}

func (n typeNamer) name(imm string) string {
	id, err := strconv.ParseUint(imm, 10, 32)
	if err != nil || id == 0 || id > uint64(n.spec.TypeCount()) {
		return "?" + imm
	}
	ty := n.spec.Type(btf.TypeID(id))
	return ty.Kind().String() + " " + n.spec.Name(ty)
}

// hasTargetTypeID reports whether an object has a TYPE_ID_TARGET
// relocation, whose value is a type ID of the target.
func hasTargetTypeID(t *testing.T, obj string) bool {
	t.Helper()
	o, err := btfext.ReadObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range o.Ext.Relocs {
		for _, r := range s.Relocs {
			if r.Kind == btfext.TypeIDTarget {
				return true
			}
		}
	}
	return false
}

// checkCoreRelo checks that libbpf relocates every object against out as
// against in: the same instructions, or the same failure. An immediate may
// differ only where the object has TYPE_ID_TARGET relocations, and then it
// must name a type of the same kind and name in out as in in.
func checkCoreRelo(t *testing.T, in, out string, objs ...string) {
	t.Helper()
	want, got := runCoreRelo(t, in, objs...), runCoreRelo(t, out, objs...)
	var inNames, outNames typeNamer
	for i, o := range objs {
		w, g := want[i], got[i]
		if w.code != g.code {
			t.Errorf("%s: corerelo exits %d against %s, %d against %s:\n%s\n%s", o, w.code, in, g.code, out, w.stderr, g.stderr)
			continue
		}
		if w.code != 0 {
			if typeIDRE.ReplaceAllString(w.stderr, "[ID]") != typeIDRE.ReplaceAllString(g.stderr, "[ID]") {
				t.Errorf("%s: libbpf fails otherwise against %s than against %s:\n%s\n%s", o, out, in, g.stderr, w.stderr)
			}
			continue
		}
		if len(w.lines) != len(g.lines) {
			t.Errorf("%s: %d instructions against %s, %d against %s", o, len(w.lines), in, len(g.lines), out)
			continue
		}
		ids := false
		for k := range w.lines {
			if w.lines[k] == g.lines[k] {
				continue
			}
			wf, gf := strings.Fields(w.lines[k]), strings.Fields(g.lines[k])
			if len(wf) != 8 || len(gf) != 8 || strings.Join(wf[:7], " ") != strings.Join(gf[:7], " ") {
				t.Errorf("%s: instruction differs:\n  %s: %s\n  %s: %s", o, in, w.lines[k], out, g.lines[k])
				break
			}
			if !ids {
				if !hasTargetTypeID(t, o) {
					t.Errorf("%s: immediate differs without a TYPE_ID_TARGET relocation:\n  %s: %s\n  %s: %s", o, in, w.lines[k], out, g.lines[k])
					break
				}
				if inNames.spec == nil {
					inNames, outNames = newTypeNamer(t, in), newTypeNamer(t, out)
				}
				ids = true
			}
			if a, b := inNames.name(wf[7]), outNames.name(gf[7]); a != b || strings.HasPrefix(a, "?") {
				t.Errorf("%s: type ID %s (%s) against %s became %s (%s) against %s", o, wf[7], a, in, gf[7], b, out)
			}
		}
	}
}

// typeIDRE matches the type IDs in libbpf's messages, which minimizing
// renumbers.
var typeIDRE = regexp.MustCompile(`\[\d+\]`)

// relocatesAlike reports whether corerelo prints the same for every object
// against a as against b (instructions, or the failure).
func relocatesAlike(t *testing.T, a, b string, objs ...string) bool {
	t.Helper()
	want, got := runCoreRelo(t, a, objs...), runCoreRelo(t, b, objs...)
	for i := range objs {
		if want[i].code != got[i].code || strings.Join(want[i].lines, "\n") != strings.Join(got[i].lines, "\n") {
			return false
		}
	}
	return true
}

// debugLineRE selects libbpf's debug lines of CO-RE relocation, the ones
// gobtf's -d reproduces (warnings word errors otherwise).
var debugLineRE = regexp.MustCompile(`^(CO-RE relocating |prog '[^']*': relo #\d+: (<|matching candidate|non-matching candidate|no matching targets found))`)

// targetNameRE is the name of the target BTF in candidate lines: bpftool
// calls it vmlinux, gobtf by its path.
var targetNameRE = regexp.MustCompile(` in \[[^]]*\]$`)

// debugLines returns the CO-RE debug lines of a log, each without its
// prefix ("libbpf: " from bpftool, "debug: " from gobtf) and with the
// target's name made "vmlinux".
func debugLines(log, prefix string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		l, ok := strings.CutPrefix(l, prefix)
		if !ok || !debugLineRE.MatchString(l) {
			continue
		}
		out = append(out, targetNameRE.ReplaceAllString(l, " in [vmlinux]"))
	}
	return out
}

// checkDebugLines compares gobtf's -d lines for objs against in with
// bpftool -d's, as far as bpftool gets (it stops at the first failure).
func checkDebugLines(t *testing.T, in string, objs ...string) {
	t.Helper()
	dir := t.TempDir()
	_, bstderr := bpftoolMinCore(t, true, in, filepath.Join(dir, "b.btf"), objs...)
	_, gstderr, _, _ := runGobtf(append([]string{"gen", "min_core_btf", "-d", in, filepath.Join(dir, "g.btf")}, objs...)...)
	want, got := debugLines(bstderr, "libbpf: "), debugLines(gstderr, "debug: ")
	if len(want) == 0 {
		t.Fatalf("bpftool -d printed no CO-RE debug lines:\n%s", bstderr)
	}
	if len(got) < len(want) {
		t.Fatalf("gobtf -d printed %d CO-RE debug lines, bpftool -d %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("debug line %d differs:\n  bpftool: %s\n  gobtf:   %s", i, want[i], got[i])
		}
	}
}

// checkMinCore runs gobtf gen min_core_btf on in and objs and checks its
// output against the oracles: bpftool's bytes where bpftool succeeds,
// bpftool -d's debug lines, and corerelo's instructions. It returns
// gobtf's stderr.
func checkMinCore(t *testing.T, in string, objs ...string) string {
	t.Helper()
	dir := t.TempDir()
	out, bout := filepath.Join(dir, "gobtf.btf"), filepath.Join(dir, "bpftool.btf")
	_, stderr, code, err := runGobtf(append([]string{"gen", "min_core_btf", in, out}, objs...)...)
	if code != 0 {
		t.Fatalf("gobtf gen min_core_btf: exit %d: %v\n%s", code, err, stderr)
	}
	if bcode, bstderr := bpftoolMinCore(t, false, in, bout, objs...); bcode == 0 {
		got, _ := os.ReadFile(out)
		want, _ := os.ReadFile(bout)
		if !bytes.Equal(got, want) {
			// Allowed only where bpftool's output relocates otherwise
			// than INPUT: corerelo wins over bpftool's bytes.
			if relocatesAlike(t, in, bout, objs...) {
				t.Errorf("OUTPUT (%d bytes) differs from bpftool's (%d bytes), which relocates as INPUT does: %s", len(got), len(want),
					testutil.FirstDiff(string(btfDump(t, out)), string(btfDump(t, bout))))
			} else {
				t.Logf("OUTPUT differs from bpftool's, which relocates otherwise than INPUT")
			}
		}
	} else {
		t.Logf("bpftool fails (exit %d): %s", bcode, strings.TrimSpace(bstderr))
	}
	checkDebugLines(t, in, objs...)
	checkCoreRelo(t, in, out, objs...)
	return stderr
}

// btfDump is bpftool's raw dump of a BTF file.
func btfDump(t *testing.T, path string) []byte {
	t.Helper()
	return testutil.Bpftool(t, "", "btf", "dump", "file", path)
}

// coreObjects are the test programs of testdata/core, compiled once per
// test binary run against the shared kernel's vmlinux.h, into the test
// cache (rebuilt by every run).
var coreObjects struct {
	once sync.Once
	dir  string
	err  string // why they cannot be built: the tests skip
	objs map[string]string
}

// buildCoreObjects compiles testdata/core (each file by its "// build:"
// line, with clang 19) against gobtf's "dump --format c" header of the
// shared vmlinux BTF, and returns the objects by source name ("fields",
// "tagged_target", ...). It skips the test when clang 19, libbpf's headers
// or the shared files are missing.
func buildCoreObjects(t *testing.T) map[string]string {
	t.Helper()
	vmlinux := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	if _, err := exec.LookPath("clang-19"); err != nil {
		t.Skip("skipping: clang-19 is not installed (it builds the CO-RE test programs)")
	}
	if _, err := os.Stat("/usr/include/bpf/bpf_core_read.h"); err != nil {
		t.Skip("skipping: libbpf's headers (libbpf-dev) are not installed")
	}
	coreObjects.once.Do(func() {
		dir, err := scratchDir(t, "core-objects")
		if err != nil {
			coreObjects.err = err.Error()
			return
		}
		coreObjects.dir = dir
		coreObjects.objs = map[string]string{}
		if err := os.WriteFile(filepath.Join(dir, "vmlinux.h"), []byte(dumpC(t, vmlinux, "")), 0o644); err != nil {
			coreObjects.err = err.Error()
			return
		}
		srcs, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "core", "*.c"))
		for _, src := range srcs {
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(src), ".c"), ".bpf")
			obj := filepath.Join(dir, name+".o")
			if err := testutil.BuildFixture(t, src, obj, map[string]string{"CC": "clang-19", "INC": dir}); err != nil {
				coreObjects.err = err.Error()
				return
			}
			coreObjects.objs[name] = obj
		}
	})
	if coreObjects.err != "" {
		t.Fatalf("building testdata/core: %s", coreObjects.err)
	}
	return coreObjects.objs
}
