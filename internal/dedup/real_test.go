package dedup

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// These tests run the real kernel data: the undeduplicated vmlinux BTF
// (3.4 M types, pahole's conversion with the dedup step skipped), and each
// module's reference split BTF doubled by btfdouble. Expected values come
// from libbpf (the btfdedup tool), from pahole's reference kbuild.btf and
// from btfdiff's structural comparison.

func parseFile(t testing.TB, path string, base *btf.Spec) *btf.Spec {
	t.Helper()
	return testutil.ParseFile(t, path, base)
}

func writeSpec(t *testing.T, s *btf.Spec, path string) {
	t.Helper()
	if err := os.WriteFile(path, s.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runTool runs one of the shared tools and returns its combined output.
func runTool(t *testing.T, tool string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(tool, args...).CombinedOutput()
	return string(out), err
}

// requireEqual runs btfdiff on two files (with base arguments, if any) and
// fails unless it reports them structurally equal.
func requireEqual(t *testing.T, btfdiff string, args ...string) {
	t.Helper()
	out, err := runTool(t, btfdiff, args...)
	if err != nil || !strings.Contains(out, "RESULT: EQUAL") {
		t.Fatalf("btfdiff %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func TestDedupVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the 3.4 M-type vmlinux in -short mode")
	}
	undeduped := testutil.Reference(t, testutil.VmlinuxName+".undeduped.btf.xz")
	kbuild := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	btfdiff := testutil.Tool(t, "btfdiff")
	btfdedup := testutil.Tool(t, "btfdedup")
	dir := t.TempDir()

	libOut := filepath.Join(dir, "libbpf.btf")
	if out, err := runTool(t, btfdedup, undeduped, libOut); err != nil {
		t.Fatalf("btfdedup: %v\n%s", err, out)
	}
	lib, err := os.ReadFile(libOut)
	if err != nil {
		t.Fatal(err)
	}

	for _, mode := range []struct {
		name string
		opts Options
	}{{"current", Options{InPlace: true}}, {"libbpf-1.1.2", Options{InPlace: true, Libbpf112: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			in := parseFile(t, undeduped, nil)
			if in.NumTypes() != 3408561 {
				t.Fatalf("input has %d types, want 3408561", in.NumTypes())
			}
			out, st, err := Dedup(in, mode.opts)
			if err != nil {
				t.Fatal(err)
			}
			in = nil
			if out.NumTypes() != 94547 {
				t.Errorf("got %d types, want 94547 (pahole's and libbpf's count)", out.NumTypes())
			}
			ours := filepath.Join(dir, mode.name+".btf")
			data := out.Marshal(out.ByteOrder())
			if err := os.WriteFile(ours, data, 0o644); err != nil {
				t.Fatal(err)
			}
			requireEqual(t, btfdiff, ours, kbuild)
			requireEqual(t, btfdiff, ours, libOut)
			// Same algorithm, same candidate order, same string order:
			// the bytes should be libbpf's too.
			if !bytes.Equal(data, lib) {
				t.Errorf("output is structurally equal to libbpf's but not byte-identical (%d vs %d bytes)", len(data), len(lib))
			}
			t.Logf("%d -> %d types in %v", st.TypesIn, st.TypesOut, st.Total())
		})
	}
}

func TestDedupModulesDoubled(t *testing.T) {
	kbuild := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	btfdiff := testutil.Tool(t, "btfdiff")
	btfdedup := testutil.Tool(t, "btfdedup")
	btfdouble := testutil.Tool(t, "btfdouble")
	base := parseFile(t, kbuild, nil)
	for _, name := range testutil.ModuleNames {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ref := testutil.Reference(t, "modules/"+name+".btf")
			doubled := filepath.Join(dir, "doubled.btf")
			if out, err := runTool(t, btfdouble, "-base", kbuild, ref, doubled); err != nil {
				t.Fatalf("btfdouble: %v\n%s", err, out)
			}
			libOut := filepath.Join(dir, "libbpf.btf")
			if out, err := runTool(t, btfdedup, doubled, libOut, "--base", kbuild); err != nil {
				t.Fatalf("btfdedup: %v\n%s", err, out)
			}
			// The reference module itself may still hold a few copies of
			// base types (nf_conntrack does); libbpf on the undoubled file
			// tells how many types it deduplicates to.
			libOrigOut := filepath.Join(dir, "libbpf-orig.btf")
			if out, err := runTool(t, btfdedup, ref, libOrigOut, "--base", kbuild); err != nil {
				t.Fatalf("btfdedup: %v\n%s", err, out)
			}
			orig := parseFile(t, ref, base)
			libOrig := parseFile(t, libOrigOut, base)
			lib := parseFile(t, libOut, base)
			varsecs := 0
			for i := range orig.NumTypes() {
				if k := orig.Own(i).Kind(); k == btf.KindVar || k == btf.KindDatasec {
					varsecs++
				}
			}
			for _, mode := range []struct {
				name string
				opts Options
			}{{"current", Options{}}, {"libbpf-1.1.2", Options{Libbpf112: true}}} {
				in := parseFile(t, doubled, base)
				out, _, err := Dedup(in, mode.opts)
				if err != nil {
					t.Fatalf("%s: %v", mode.name, err)
				}
				// A base prepared ahead of time (Options.Base), used
				// for two different inputs, gives the same bytes.
				bi, err := PrepareBase(base, mode.opts)
				if err != nil {
					t.Fatal(err)
				}
				// The third use takes the index (BaseLastUse); the fourth
				// finds it spent and prepares the base again.
				for k, path := range []string{ref, doubled, ref, doubled} {
					plain, _, err := Dedup(parseFile(t, path, base), mode.opts)
					if err != nil {
						t.Fatal(err)
					}
					withBase := mode.opts
					withBase.Base, withBase.BaseLastUse = bi, k == 2
					prepared, _, err := Dedup(parseFile(t, path, base), withBase)
					if err != nil {
						t.Fatalf("%s: prepared base: %v", mode.name, err)
					}
					if !bytes.Equal(prepared.Marshal(prepared.ByteOrder()), plain.Marshal(plain.ByteOrder())) {
						t.Errorf("%s: %s: output with a prepared base differs", mode.name, filepath.Base(path))
					}
				}
				if out.NumTypes() != lib.NumTypes() {
					t.Errorf("%s: %d types, libbpf %d", mode.name, out.NumTypes(), lib.NumTypes())
				}
				if want := libOrig.NumTypes() + varsecs; out.NumTypes() != want {
					t.Errorf("%s: %d types, want the deduplicated module's %d plus its %d VAR/DATASEC copies", mode.name, out.NumTypes(), libOrig.NumTypes(), varsecs)
				}
				single, _, err := Dedup(parseFile(t, ref, base), mode.opts)
				if err != nil {
					t.Fatalf("%s: undoubled: %v", mode.name, err)
				}
				if g, l := dump(t, single), dump(t, libOrig); g != l {
					t.Errorf("%s: undoubled module differs from libbpf's result, %s", mode.name, testutil.FirstDiff(g, l))
				}
				ours := filepath.Join(dir, mode.name+".btf")
				writeSpec(t, out, ours)
				requireEqual(t, btfdiff, "-base", kbuild, ours, libOut)
				if g, l := dump(t, out), dump(t, lib); g != l {
					t.Errorf("%s: output differs from libbpf's, %s", mode.name, testutil.FirstDiff(g, l))
				}
			}
		})
	}
}
