package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// pahole master's -J bytes, where CI cannot run pahole master: the SHA-256 of
// its outputs for the C fixtures of testdata (built here by the commands of
// masterFixtures) and for the shared modules with the flag sets the shared
// reference lacks, in testdata/pahole/master.sha256. The file is made by
//
//	go test ./cmd/gobtf -run '^TestEncodeBytesMatchMaster$' -args -pahole-master=PATH
//
// with PATH a pahole master binary (1436daf, built with libbpf f7081a6, as
// docs/testing.md says), which also checks gobtf against it directly. The
// file records each compiler's version line: a fixture built by another
// version is skipped, as its DWARF, and so pahole's output, may differ.
var paholeMaster = flag.String("pahole-master", "", "pahole master binary: rewrite testdata/pahole/master.sha256 with its outputs")

// masterFixture is an object built from testdata for the comparison: cmd is
// a shell command run in a scratch folder, $T standing for the testdata
// folder and $OUT for the object; cc is the compiler whose version decides
// whether the stored digest applies ("" for objects kept in testdata).
type masterFixture struct {
	name, cc, cmd string
}

var masterFixtures = []masterFixture{
	{"classlayout/layout.gcc.o", "", "cp $T/classlayout/layout.gcc.o $OUT"},
	{"classlayout/layout.clang.o", "", "cp $T/classlayout/layout.clang.o $OUT"},
	{"classlayout/reorg.gcc.o", "", "cp $T/classlayout/reorg.gcc.o $OUT"},
	{"classlayout/reorg.clang.o", "", "cp $T/classlayout/reorg.clang.o $OUT"},
	{"types/basic.gcc4", "gcc", "gcc -g -O0 -gdwarf-4 -c $T/types/basic.c -o $OUT"},
	{"types/basic.gcc5", "gcc", "gcc -g -O0 -gdwarf-5 -c $T/types/basic.c -o $OUT"},
	{"types/basic.clang", "clang", "clang -g -O0 -c $T/types/basic.c -o $OUT"},
	{"types/twocu.gcc", "gcc", "gcc -g -O0 -c $T/types/twocu_a.c -o a.o && gcc -g -O0 -c $T/types/twocu_b.c -o b.o && gcc -r -nostdlib a.o b.o -o $OUT"},
	{"types/twocu.clang", "clang", "clang -g -O0 -c $T/types/twocu_a.c -o a.o && clang -g -O0 -c $T/types/twocu_b.c -o b.o && clang -r -nostdlib a.o b.o -o $OUT"},
	{"types/tags.clang", "clang", "clang -g -O0 -c $T/types/tags.c -o $OUT"},
	{"types/tags.clang-19", "clang-19", "clang-19 -g -O0 -c $T/types/tags.c -o $OUT"},
	{"types/percpu.gcc", "gcc", "gcc -g -O0 -shared -nostdlib -fPIC $T/types/percpu.c -o $OUT && objcopy --rename-section .data=.data..percpu $OUT"},
	{"types/cxx.g++", "g++", "g++ -g -O0 -c $T/types/cxx.cc -o $OUT"},
	{"cdump/layout.gcc", "gcc", "gcc -g -O0 -c $T/cdump/layout.c -o $OUT"},
	{"cdump/layout.clang", "clang", "clang -g -O0 -c $T/cdump/layout.c -o $OUT"},
	{"funcs/plain.gcc", "gcc", "gcc -O2 -g -std=gnu11 -fno-inline -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/plain.c"},
	{"funcs/plain.clang", "clang", "clang -O2 -g -std=gnu11 -fno-inline -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/plain.c"},
	{"funcs/rules.gcc", "gcc", "gcc -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/rules_a.c $T/funcs/rules_b.c"},
	{"funcs/rules.clang", "clang", "clang -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/rules_a.c $T/funcs/rules_b.c"},
	{"funcs/skips.gcc", "gcc", "gcc -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/skips_a.c $T/funcs/skips_b.c"},
	{"funcs/skips.clang", "clang", "clang -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/skips_a.c $T/funcs/skips_b.c"},
	{"funcs/lto.gcc", "gcc", "gcc -O2 -g -flto -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/lto_a.c $T/funcs/lto_b.c"},
	{"funcs/nocall.clang-19", "clang-19", "clang-19 -O2 -g -std=gnu11 -nostdlib -static -Wl,-e,main -o $OUT $T/funcs/nocall.c"},
	{"pahole/gnuannot", "as", "gcc -c $T/pahole/gnuannot.S -o $OUT"},
	{"pahole/layout", "as", "gcc -c $T/pahole/layout.S -o $OUT"},
}

// masterFlagSets are the -J flag sets compared: pahole's defaults and the
// kernel build's.
var masterFlagSets = map[string][]string{"default": nil, "kbuild": kbuildFlags}

// TestEncodeBytesMatchMaster compares gobtf's -J output with pahole master's,
// byte for byte, through the stored digests (or, with -pahole-master, with
// pahole master itself, rewriting them): every fixture of masterFixtures
// with both flag sets, and each shared module as split BTF on the reference
// vmlinux BTF of pahole's defaults, with its defaults, and in ELF mode with
// distilled_base on the kernel-build reference (both sections). The shared
// vmlinux and the modules with the kernel-build flags are compared with the
// shared reference files themselves (TestEncodeVmlinux, TestEncodeModules).
func TestEncodeBytesMatchMaster(t *testing.T) {
	file := filepath.Join(testutil.RepoRoot(), "testdata", "pahole", "master.sha256")
	stored, versions := readMasterDigests(t, file)
	update := *paholeMaster != ""
	got := map[string]string{}       // case -> gobtf's digest
	master := map[string]string{}    // case -> master's digest, with -pahole-master
	compilers := map[string]string{} // compiler -> version line, of those used
	compare := func(t *testing.T, name string, ours []byte, theirs func() []byte) {
		t.Helper()
		got[name] = digest(ours)
		if update {
			master[name] = digest(theirs())
			if master[name] != got[name] {
				t.Errorf("%s: gobtf's output differs from pahole master's", name)
			}
			return
		}
		want, ok := stored[name]
		if !ok {
			t.Fatalf("%s: no digest of pahole master's output in %s (remake it with -pahole-master)", name, file)
		}
		if want != got[name] {
			t.Errorf("%s: gobtf's output (sha256 %s) differs from pahole master's (%s)", name, got[name], want)
		}
	}
	runMaster := func(t *testing.T, args ...string) {
		t.Helper()
		if out, err := exec.Command(*paholeMaster, args...).CombinedOutput(); err != nil {
			t.Fatalf("pahole master %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	t.Run("fixtures", func(t *testing.T) {
		testdata := filepath.Join(testutil.RepoRoot(), "testdata")
		for _, fx := range masterFixtures {
			t.Run(fx.name, func(t *testing.T) {
				if fx.cc != "" {
					v := compilerVersion(t, fx.cc)
					if !update && versions[fx.cc] != v {
						t.Skipf("skipping: %s is %q, pahole master's digests were made with %q", fx.cc, v, versions[fx.cc])
					}
					compilers[fx.cc] = v
				}
				dir := t.TempDir()
				obj := filepath.Join(dir, "obj")
				cmd := exec.Command("sh", "-c", fx.cmd)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "T="+testdata, "OUT="+obj)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Skipf("skipping: %s: %v\n%s", fx.cmd, err, out)
				}
				for _, set := range sortedKeys(masterFlagSets) {
					ours, theirs := filepath.Join(dir, set+".gobtf"), filepath.Join(dir, set+".master")
					mustGobtf(t, append([]string{"-J", "--btf_encode_detached=" + ours, obj}, masterFlagSets[set]...)...)
					compare(t, fx.name+"."+set, readFile(t, ours), func() []byte {
						runMaster(t, append([]string{"-J", "--btf_encode_detached=" + theirs, obj}, masterFlagSets[set]...)...)
						return readFile(t, theirs)
					})
				}
			})
		}
	})

	t.Run("modules", func(t *testing.T) {
		if testing.Short() {
			t.Skip("skipping the shared modules in -short mode")
		}
		defBase := testutil.Reference(t, testutil.VmlinuxName+".default.btf")
		kbuildBase := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
		objcopy, err := exec.LookPath("objcopy")
		if err != nil {
			t.Skip("skipping: needs objcopy to read sections")
		}
		distilled := append([]string{kbuildFlags[0] + ",distilled_base"}, kbuildFlags[1:]...)
		for _, m := range testutil.ModuleNames {
			t.Run(m, func(t *testing.T) {
				ko := testutil.Corpus(t, "modules/"+m+".ko")
				dir := t.TempDir()
				ours, theirs := filepath.Join(dir, "gobtf.btf"), filepath.Join(dir, "master.btf")
				mustGobtf(t, "-J", "-j2", "--btf_base", defBase, "--btf_encode_detached="+ours, ko)
				compare(t, "modules/"+m+".default", readFile(t, ours), func() []byte {
					runMaster(t, "-J", "-j2", "--btf_base", defBase, "--btf_encode_detached="+theirs, ko)
					return readFile(t, theirs)
				})

				sections := func(t *testing.T, who string, encode func(ko string)) map[string][]byte {
					t.Helper()
					inPlace := copyFile(t, ko, filepath.Join(dir, who+".ko"))
					encode(inPlace)
					split, base := inPlace+".BTF", inPlace+".BTF.base"
					if out, err := exec.Command(objcopy, "--dump-section", ".BTF="+split, "--dump-section", ".BTF.base="+base, inPlace).CombinedOutput(); err != nil {
						t.Fatalf("objcopy: %v\n%s", err, out)
					}
					return map[string][]byte{".BTF": readFile(t, split), ".BTF.base": readFile(t, base)}
				}
				mine := sections(t, "gobtf", func(ko string) {
					mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", kbuildBase, ko}, distilled...)...)
				})
				var theirsSecs map[string][]byte
				for _, sec := range []string{".BTF", ".BTF.base"} {
					compare(t, "distilled/"+m+sec, mine[sec], func() []byte {
						if theirsSecs == nil {
							theirsSecs = sections(t, "master", func(ko string) {
								runMaster(t, append([]string{"-J", "-j2", "--btf_base", kbuildBase, ko}, distilled...)...)
							})
						}
						return theirsSecs[sec]
					})
				}
			})
		}
	})

	if update && !t.Failed() {
		writeMasterDigests(t, file, master, compilers)
	}
}

// digest returns the hex SHA-256 of b.
func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// compilerVersion returns the first line of cc --version, skipping the test
// when cc is not installed.
func compilerVersion(t *testing.T, cc string) string {
	t.Helper()
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("skipping: %s is not installed", cc)
	}
	out, err := exec.Command(cc, "--version").Output()
	if err != nil {
		t.Skipf("skipping: %s --version: %v", cc, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// readMasterDigests reads the digest file: "# cc NAME: VERSION" lines and
// "CASE SHA256" lines. A missing file reads as empty.
func readMasterDigests(t *testing.T, path string) (digests, versions map[string]string) {
	t.Helper()
	digests, versions = map[string]string{}, map[string]string{}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return digests, versions
	} else if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# cc "); ok {
			name, v, _ := strings.Cut(rest, ": ")
			versions[name] = v
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if name, sum, ok := strings.Cut(line, " "); ok {
			digests[name] = sum
		}
	}
	return digests, versions
}

// writeMasterDigests rewrites the digest file.
func writeMasterDigests(t *testing.T, path string, digests, compilers map[string]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# SHA-256 of pahole master's -J output (dwarves 1436daf, libbpf f7081a6), made by\n")
	b.WriteString("#   go test ./cmd/gobtf -run '^TestEncodeBytesMatchMaster$' -args -pahole-master=PATH\n")
	b.WriteString("# (cases: cmd/gobtf/master_bytes_test.go). The fixtures were built with:\n")
	for _, cc := range sortedKeys(compilers) {
		fmt.Fprintf(&b, "# cc %s: %s\n", cc, compilers[cc])
	}
	for _, name := range sortedKeys(digests) {
		fmt.Fprintf(&b, "%s %s\n", name, digests[name])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
