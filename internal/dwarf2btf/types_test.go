package dwarf2btf

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// fixture is an object file built from testdata/types for one compiler and
// DWARF version.
type fixture struct {
	name string // e.g. "gcc-dwarf5/basic"
	obj  string
}

// buildFixtures compiles the C fixtures of testdata/types with every
// available compiler at DWARF 4 and 5 (and once with compressed debug
// sections), skipping what a compiler cannot build.
func buildFixtures(t *testing.T) (types, vars, linked []fixture) {
	t.Helper()
	src := filepath.Join(testutil.RepoRoot(), "testdata", "types")
	dir := t.TempDir()
	var out []fixture
	cc := func(compiler string, args ...string) error {
		cmd := exec.Command(compiler, args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Logf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, b)
			return err
		}
		return nil
	}
	for _, compiler := range []string{"gcc", "clang"} {
		if _, err := exec.LookPath(compiler); err != nil {
			t.Logf("no %s: its fixtures are skipped", compiler)
			continue
		}
		for _, v := range []string{"4", "5"} {
			tag := compiler + "-dwarf" + v
			build := func(name string, srcs ...string) {
				var objs []string
				for _, s := range srcs {
					obj := tag + "-" + strings.TrimSuffix(s, ".c") + ".o"
					if cc(compiler, "-g", "-c", "-O0", "-gdwarf-"+v, filepath.Join(src, s), "-o", obj) != nil {
						return
					}
					objs = append(objs, obj)
				}
				obj := objs[0]
				if len(objs) > 1 {
					obj = tag + "-" + name + ".o"
					if cc(compiler, append([]string{"-r", "-nostdlib", "-o", obj}, objs...)...) != nil {
						return
					}
				}
				out = append(out, fixture{tag + "/" + name, filepath.Join(dir, obj)})
			}
			build("basic", "basic.c")
			build("twocu", "twocu_a.c", "twocu_b.c")
			if compiler == "clang" {
				build("tags", "tags.c")
			}
			for _, name := range []string{"basic", "tags"} {
				if name == "tags" && compiler != "clang" {
					continue
				}
				obj := tag + "-" + name + ".so"
				if cc(compiler, "-g", "-O0", "-gdwarf-"+v, "-shared", "-nostdlib", "-fPIC", filepath.Join(src, name+".c"), "-o", obj) == nil {
					linked = append(linked, fixture{tag + "/" + name + ".so", filepath.Join(dir, obj)})
				}
			}
			obj := tag + "-percpu.so"
			if cc(compiler, "-g", "-O0", "-gdwarf-"+v, "-shared", "-nostdlib", "-fPIC", filepath.Join(src, "percpu.c"), "-o", obj) == nil &&
				cc("objcopy", "--rename-section", ".data=.data..percpu", obj) == nil {
				vars = append(vars, fixture{tag + "/percpu", filepath.Join(dir, obj)})
				linked = append(linked, vars[len(vars)-1])
			}
		}
		// C++, and for clang 32-bit and big-endian targets (freestanding,
		// as no cross C library is installed). Go's debug/dwarf cannot
		// read clang's DWARF 5 for s390x objects, hence DWARF 4 there.
		cxx := map[string]string{"gcc": "g++", "clang": "clang++"}[compiler]
		if _, err := exec.LookPath(cxx); err == nil {
			obj := compiler + "-cxx.o"
			if cc(cxx, "-g", "-c", "-O0", filepath.Join(src, "cxx.cc"), "-o", obj) == nil {
				out = append(out, fixture{compiler + "/cxx", filepath.Join(dir, obj)})
			}
		}
		if compiler == "clang" {
			for _, tgt := range []struct{ name, target, dwarf string }{
				{"i386", "i386-linux-gnu", "-gdwarf-5"}, {"s390x", "s390x-linux-gnu", "-gdwarf-4"},
			} {
				obj := "clang-" + tgt.name + "-basic.o"
				if cc(compiler, "--target="+tgt.target, "-ffreestanding", tgt.dwarf, "-g", "-c", "-O0", filepath.Join(src, "basic.c"), "-o", obj) == nil {
					out = append(out, fixture{"clang-" + tgt.name + "/basic", filepath.Join(dir, obj)})
				}
			}
		}
		obj := compiler + "-zlib-basic.o"
		if cc(compiler, "-g", "-c", "-O0", "-gz=zlib", filepath.Join(src, "basic.c"), "-o", obj) == nil {
			out = append(out, fixture{compiler + "-zlib/basic", filepath.Join(dir, obj)})
		}
	}
	if len(out) == 0 {
		t.Skip("skipping: no C compiler could build the fixtures")
	}
	return out, vars, linked
}

// convertFile converts an object's types with the standard-library reader and
// writes the raw BTF next to it.
func convertFile(t *testing.T, obj string, opts *Options) string {
	t.Helper()
	return convertFileWith(t, obj, opts, false)
}

// convertFileWith converts with gobtf's own decoder when fast is set (for
// linked files only, until relocations are applied by our ELF reader).
func convertFileWith(t *testing.T, obj string, opts *Options, fast bool) string {
	t.Helper()
	f, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ef, err := elfio.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	var s *btf.Spec
	if fast {
		secs, err := SectionsStd(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err = ConvertTypes(f, ef, secs, opts)
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
	} else if s, err = ConvertTypesStd(f, ef, opts); err != nil {
		t.Fatalf("%s: %v", obj, err)
	}
	out := obj + map[bool]string{false: ".gobtf.btf", true: ".gobtf-fast.btf"}[fast]
	if err := os.WriteFile(out, s.Marshal(s.ByteOrder()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// btfdiff runs the shared structural comparator and fails the test with its
// report unless every type on each side has an equivalent on the other.
func btfdiff(t *testing.T, a, b string, args ...string) {
	t.Helper()
	tool := testutil.Tool(t, "btfdiff")
	out, err := exec.Command(tool, append(args, a, b)...).CombinedOutput()
	if err != nil {
		t.Fatalf("btfdiff %s %s: %v\n%s", a, b, err, out)
	}
}

// TestTypesMatchPahole converts each fixture and compares the result, type
// for type by structure, with what apt's pahole produces from the same
// object, with floats on and off.
func TestTypesMatchPahole(t *testing.T) {
	pahole, err := exec.LookPath("pahole")
	if err != nil {
		t.Skip("skipping: pahole (dwarves) is not installed")
	}
	types, _, _ := buildFixtures(t)
	for _, fx := range types {
		for _, floats := range []bool{true, false} {
			name := fx.name + map[bool]string{true: "/floats", false: "/no-floats"}[floats]
			t.Run(name, func(t *testing.T) {
				feats := DefaultFeatures()
				feats.Var = false
				feats.Float = floats
				ours := convertFile(t, fx.obj, &Options{Features: feats, Jobs: 2})
				ref := fx.obj + ".pahole.btf"
				args := []string{"-J", "--skip_encoding_btf_vars", "--btf_encode_detached=" + ref, fx.obj}
				if floats {
					args = append([]string{"--btf_gen_floats"}, args...)
				}
				if out, err := exec.Command(pahole, args...).CombinedOutput(); err != nil {
					t.Fatalf("pahole %v: %v\n%s", args, err, out)
				}
				// pahole deduplicates; so does libbpf's dedup here, which
				// resolves forward declarations across units the same way.
				btfdiff(t, dedupLibbpf(t, ours), ref)
			})
		}
	}
}

// TestVarsMatchPahole checks VAR and DATASEC encoding on shared objects with
// a per-CPU-style section, against pahole with its default features (which
// describe only that section). Functions are left out of the verdict: they
// are another stage's work.
func TestVarsMatchPahole(t *testing.T) {
	pahole, err := exec.LookPath("pahole")
	if err != nil {
		t.Skip("skipping: pahole (dwarves) is not installed")
	}
	_, vars, _ := buildFixtures(t)
	for _, fx := range vars {
		t.Run(fx.name, func(t *testing.T) {
			ours := convertFile(t, fx.obj, &Options{Features: DefaultFeatures(), Jobs: 1})
			ref := fx.obj + ".pahole.btf"
			if out, err := exec.Command(pahole, "-J", "--btf_encode_detached="+ref, fx.obj).CombinedOutput(); err != nil {
				t.Fatalf("pahole: %v\n%s", err, out)
			}
			btfdiff(t, dedupLibbpf(t, ours), ref, "-ignore-kinds", "FUNC,FUNC_PROTO")
			data, err := os.ReadFile(ours)
			if err != nil {
				t.Fatal(err)
			}
			s, err := btf.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			var vars []string
			for id := s.FirstID(); id <= s.TypeCount(); id++ {
				if typ := s.Type(id); typ.Kind() == btf.KindVar {
					vars = append(vars, s.Name(typ))
				}
			}
			// Derived from the source: the per-CPU variables, not the
			// ordinary globals.
			sort.Strings(vars)
			if got := strings.Join(vars, ","); got != "local_seq,pcpu_array,pcpu_name,shared_counter" {
				t.Errorf("VARs %s", got)
			}
		})
	}
}

// TestTypesMatchPaholeVmlinux converts every type of the shared Debian
// vmlinux and compares it with pahole's kernel-build output. Functions and
// their tags are produced by another stage, so their kinds are left out of
// the verdict.
func TestTypesMatchPaholeVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the whole-vmlinux conversion in -short mode")
	}
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	ref := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	feats := Features{EncodeForce: true, Var: true, Float: true, Enum64: true, DeclTag: true, TypeTag: true,
		OptimizedFunc: true, ConsistentFunc: true, DeclTagKfuncs: true, Attributes: true}
	rust := []dwarf.Lang{dwarf.LangRust}
	ours := convertFileWith(t, copyToTemp(t, vmlinux), &Options{Features: feats, Jobs: 2,
		Languages: LanguageFilter{IDs: rust, Exclude: true}}, true)
	data, err := os.ReadFile(ours)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d types before deduplication", s.NumTypes())
	btfdiff(t, dedupLibbpf(t, ours), ref, "-ignore-kinds", "FUNC,FUNC_PROTO,DECL_TAG")
}

// dedupLibbpf runs libbpf's btf__dedup (the shared btfdedup tool) on a raw
// BTF file and returns the output's path.
func dedupLibbpf(t *testing.T, in string) string {
	t.Helper()
	tool := testutil.Tool(t, "btfdedup")
	out := in + ".dedup"
	if b, err := exec.Command(tool, in, out).CombinedOutput(); err != nil {
		t.Fatalf("btfdedup %s: %v\n%s", in, err, b)
	}
	return out
}

// TestFastDecoderMatchesStd converts each linked fixture with gobtf's own
// DIE decoder and with the standard library's, and requires the same types,
// dumped with their names (the same structure, functions aside, where the
// fixture has functions): the digest both fill must not depend on the
// decoder. The bytes may differ in the string section's order: the fast
// path keeps names read from an unmerged .debug_str as offsets until the
// join (btf.NewSectionStrings), which interns them in type order, while the
// standard path interns them as each unit reads them.
func TestFastDecoderMatchesStd(t *testing.T) {
	_, _, linked := buildFixtures(t)
	feats := DefaultFeatures()
	feats.Float = true
	for _, fx := range linked {
		t.Run(fx.name, func(t *testing.T) {
			opts := &Options{Features: feats, Jobs: 2}
			stdPath := convertFileWith(t, fx.obj, opts, false)
			fastPath := convertFileWith(t, fx.obj, opts, true)
			if strings.HasSuffix(fx.name, "percpu") {
				// This fixture defines a function, which only the
				// fast path (the one gobtf -J uses) encodes.
				btfdiff(t, stdPath, fastPath, "-ignore-kinds", "FUNC,FUNC_PROTO")
				return
			}
			if d := testutil.FirstDiff(testutil.DumpFile(t, fastPath), testutil.DumpFile(t, stdPath)); d != "" {
				t.Errorf("the two decoders give different BTF: %s", d)
			}
		})
	}
}

// copyToTemp links (or copies) path into a temp dir so outputs written next
// to it stay out of the shared cache.
func copyToTemp(t *testing.T, path string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.Symlink(path, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestTypeOrderMatchesPahole requires, beyond equal structure, pahole's
// exact result: the same types with the same IDs. After deduplication,
// which keeps the first of equal types, that holds only when every unit's
// types are numbered in pahole's order, which is not plain DIE order (see
// emit): clang nests the anonymous members' types in their struct and puts
// TYPE_TAGs under their pointer. It also decides which copies survive when
// deduplication keeps duplicates, as it does on some kernel modules.
func TestTypeOrderMatchesPahole(t *testing.T) {
	pahole, err := exec.LookPath("pahole")
	if err != nil {
		t.Skip("skipping: pahole (dwarves) is not installed")
	}
	types, _, _ := buildFixtures(t)
	for _, fx := range types {
		t.Run(fx.name, func(t *testing.T) {
			ref := fx.obj + ".pahole-order.btf"
			if out, err := exec.Command(pahole, "-J", "--btf_encode_detached="+ref, fx.obj).CombinedOutput(); err != nil {
				t.Fatalf("pahole: %v\n%s", err, out)
			}
			want := testutil.DumpFile(t, ref)
			s, err := Encode(fx.obj, &Options{Features: DefaultFeatures(), Jobs: 2}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, _, err = dedup.Dedup(s, dedup.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := s.Dump(&got); err != nil {
				t.Fatal(err)
			}
			if d := testutil.FirstDiff(got.String(), want); d != "" {
				t.Fatalf("the dump differs from pahole's (got: gobtf): %s", d)
			}
		})
	}
}

// TestGrow checks grow: room for n more elements, the contents kept, the
// capacity doubled once past doubleFrom and left to append below it.
func TestGrow(t *testing.T) {
	for _, tc := range []struct {
		name        string
		len, cap, n int
		wantCap     int // 0: unchanged (append will grow it)
	}{
		{"room left", 10, 20, 5, 0},
		{"small, full", 20, 20, 5, 0},
		{"large, room left", doubleFrom, doubleFrom + 8, 8, 0},
		{"large, full", doubleFrom, doubleFrom, 1, 2 * doubleFrom},
		{"large, needs more than double", doubleFrom, doubleFrom, 3 * doubleFrom, 4 * doubleFrom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := make([]int32, tc.len, tc.cap)
			for i := range s {
				s[i] = int32(i)
			}
			g := grow(s, tc.n)
			want := tc.wantCap
			if want == 0 {
				want = tc.cap
			}
			if len(g) != tc.len || cap(g) != want {
				t.Fatalf("len %d cap %d, want %d and %d", len(g), cap(g), tc.len, want)
			}
			for i := range g {
				if g[i] != int32(i) {
					t.Fatalf("element %d is %d", i, g[i])
				}
			}
		})
	}
}

// TestResolve checks what a reference resolves to once emit has numbered the
// records: a type's ID; through records that pass through (_Atomic, type
// unit stubs) the ID at the end of the chain; 0 for void, for a chain that
// ends nowhere or loops, and for offsets that are no record's.
func TestResolve(t *testing.T) {
	c := newCUTypes(&Options{}, &target{littleEndian: true, addrSize: 8}, nil)
	c.reset()
	add := func(off, ref uint64, k btf.Kind) {
		d := &digest{}
		d.off, d.typ = off, ref
		c.add(d, k)
	}
	add(100, 0, btf.KindInt)     // ID 1
	add(110, 100, recSkip)       // -> 100
	add(120, 110, recSkip)       // -> 110 -> 100
	add(130, 0, recVoid)         // void
	add(140, 130, recSkip)       // -> void
	add(150, 150, recSkip)       // loops on itself
	add(160, 170, recSkip)       // 160 <-> 170
	add(170, 160, recSkip)       //
	add(180, 999, recSkip)       // to no record
	add(190, 120, btf.KindPtr)   // ID 2, a pointer through the chain
	add(200, 0, recIgnored)      // void too
	add(210, 190, btf.KindConst) // ID 3
	add(100, 0, btf.KindFloat)   // a second record at 100: the first wins
	c.emit()
	for _, tc := range []struct {
		off  uint64
		want btf.TypeID
	}{
		{100, 1}, {110, 1}, {120, 1}, {130, 0}, {140, 0}, {150, 0}, {160, 0},
		{170, 0}, {180, 0}, {190, 2}, {200, 0}, {210, 3}, {0, 0}, {999, 0}, {105, 0},
	} {
		if got := c.resolve(tc.off); got != tc.want {
			t.Errorf("resolve(%d) = %d, want %d", tc.off, got, tc.want)
		}
	}
	// The pointer's words reference the int through the chain.
	if p := c.spec.Type(2); p.Ref() != 1 {
		t.Errorf("the pointer references %d, want 1", p.Ref())
	}
}

// TestOffsetIndex checks the index across units of different sizes, as a
// converter reuses it: every offset put is found with the first index put
// for it, no other offset is, and reset empties it whatever its size.
func TestOffsetIndex(t *testing.T) {
	var x offsetIndex
	prev := uint64(0) // an offset the unit before put, 0 for none
	for _, n := range []int{10, 5000, 3, 70000, 0, 1500, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x.reset()
			if got := x.get(prev); prev != 0 && got != -1 {
				t.Fatalf("get(%d) = %d: the unit before's offset is still there", prev, got)
			}
			base := uint64(n) * 1000
			for i := range n {
				x.put(base+uint64(i)*7+1, int32(i))
				x.put(base+uint64(i)*7+1, -5) // a repeat keeps the first
			}
			for i := range n {
				if got := x.get(base + uint64(i)*7 + 1); got != int32(i) {
					t.Fatalf("get(%d) = %d, want %d", base+uint64(i)*7+1, got, i)
				}
				if got := x.get(base + uint64(i)*7 + 2); got != -1 {
					t.Fatalf("get(%d) = %d for an offset never put", base+uint64(i)*7+2, got)
				}
			}
			if n > 0 {
				prev = base + uint64(n-1)*7 + 1
			}
			if 2*x.n > len(x.slots) {
				t.Fatalf("%d entries in %d slots: more than half full", x.n, len(x.slots))
			}
		})
	}
}
