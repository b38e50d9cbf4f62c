package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// kbuildFlags are the pahole flags of Linux 6.7 to 6.18's scripts/Makefile.btf
// with which shared/reference's kbuild.btf was made (less -j).
var kbuildFlags = []string{
	"--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes",
	"--lang_exclude=rust",
}

// tool runs one of the shared verification tools and fails the test with its
// output unless it exits 0.
func tool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(testutil.Tool(t, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestEncodeVmlinux runs gobtf -J with the kernel-build flags on the shared
// vmlinux and checks the result against pahole master's reference byte for
// byte (detached and in ELF mode, kernel-build and default flags), type for
// type and line for line in a dump (which say where a difference is); the
// kernel verifier; libbpf's dedup of the one-to-one conversion; and
// byte-identical output for -j1, -j2 and -j8.
func TestEncodeVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the whole-vmlinux encoding in -short mode")
	}
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	ref := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	dir := t.TempDir()
	outs := map[string]string{}
	for _, j := range []string{"-j1", "-j2", "-j8"} {
		out := filepath.Join(dir, "vmlinux"+j+".btf")
		mustGobtf(t, append([]string{"-J", j, "--btf_encode_detached=" + out, vmlinux}, kbuildFlags...)...)
		outs[j] = out
	}
	j2, _ := os.ReadFile(outs["-j2"])
	for _, j := range []string{"-j1", "-j8"} {
		if b, _ := os.ReadFile(outs[j]); !bytes.Equal(b, j2) {
			t.Errorf("%s output differs from -j2", j)
		}
	}
	// pahole master's bytes (its string section included), which needs
	// each unit's types numbered in pahole's order and its strings entered
	// in pahole's order (encoder's strorder.go); the structural and dump
	// comparisons say where a difference is.
	if !bytes.Equal(j2, readFile(t, ref)) {
		t.Errorf("the output differs from pahole master's reference bytes")
	}
	tool(t, "btfdiff", outs["-j2"], ref)
	if d := testutil.FirstDiff(testutil.DumpFile(t, outs["-j2"]), testutil.DumpFile(t, ref)); d != "" {
		t.Errorf("the dump differs from pahole's reference (got: gobtf): %s", d)
	}
	if os.Geteuid() == 0 {
		tool(t, "btfload", outs["-j2"])
	}

	// pahole's defaults (no feature flags): no floats, everything else on.
	def := filepath.Join(dir, "default.btf")
	mustGobtf(t, "-J", "--btf_encode_detached="+def, vmlinux)
	defRef := testutil.Reference(t, testutil.VmlinuxName+".default.btf")
	if !bytes.Equal(readFile(t, def), readFile(t, defRef)) {
		t.Errorf("the output with pahole's default flags differs from pahole master's reference bytes")
	}
	tool(t, "btfdiff", def, defRef)

	// ELF mode: .BTF replaced in a copy of the vmlinux holds the same
	// bytes.
	inPlace := copyFile(t, vmlinux, filepath.Join(dir, "vmlinux"))
	mustGobtf(t, append([]string{"-J", "-j2", inPlace}, kbuildFlags...)...)
	if !bytes.Equal(sectionData(t, inPlace, ".BTF"), j2) {
		t.Errorf(".BTF written into the vmlinux differs from the detached output")
	}
	os.Remove(inPlace)

	raw := filepath.Join(dir, "raw.btf")
	mustGobtf(t, append([]string{"-J", "-j2", "--skip_dedup", "--btf_encode_detached=" + raw, vmlinux}, kbuildFlags...)...)
	libbpf := filepath.Join(dir, "raw.libbpf.btf")
	tool(t, "btfdedup", raw, libbpf)
	tool(t, "btfdiff", libbpf, outs["-j2"])
}

// TestEncodeModules encodes each shared module as split BTF on pahole's
// reference vmlinux BTF, as Makefile.modfinal does, and compares it with
// pahole master's split output byte for byte and type for type, and loads
// base plus split into the kernel verifier.
func TestEncodeModules(t *testing.T) {
	base := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	for _, m := range testutil.ModuleNames {
		t.Run(m, func(t *testing.T) {
			if testing.Short() && m != "nls_utf8" && m != "tcp_bbr" {
				t.Skip("skipping the larger modules in -short mode")
			}
			ko := testutil.Corpus(t, "modules/"+m+".ko")
			ref := testutil.Reference(t, "modules/"+m+".btf")
			out := filepath.Join(t.TempDir(), m+".btf")
			mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", base, "--btf_encode_detached=" + out, ko}, kbuildFlags...)...)
			if !bytes.Equal(readFile(t, out), readFile(t, ref)) {
				t.Errorf("the split BTF differs from pahole master's reference bytes")
			}
			tool(t, "btfdiff", "-base", base, out, ref)
			if os.Geteuid() == 0 {
				tool(t, "btfload", out, "--base", base)
			}

			// ELF mode, as Makefile.modfinal runs it: .BTF goes into the
			// module itself and holds exactly the detached bytes.
			objcopy, err := exec.LookPath("objcopy")
			if err != nil {
				t.Skip("skipping the ELF-mode check: no objcopy")
			}
			inPlace := filepath.Join(t.TempDir(), m+".ko")
			data, err := os.ReadFile(ko)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(inPlace, data, 0o644); err != nil {
				t.Fatal(err)
			}
			mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", base, inPlace}, kbuildFlags...)...)
			sec := inPlace + ".BTF"
			if b, err := exec.Command(objcopy, "--dump-section", ".BTF="+sec, inPlace).CombinedOutput(); err != nil {
				t.Fatalf("objcopy: %v\n%s", err, b)
			}
			got, _ := os.ReadFile(sec)
			want, _ := os.ReadFile(out)
			if !bytes.Equal(got, want) {
				t.Errorf(".BTF in the module (%d bytes) differs from the detached output (%d bytes)", len(got), len(want))
			}
		})
	}
}

// TestEncodeModuleFuncs compares, per module, the FUNC names of pahole's
// split reference with gobtf's, so that a difference is reported by name.
// Modules depend on the addresses pahole sees through libdwfl's layout of
// relocatable files (elfio.File.OfflineLayout): without it, functions whose
// symbol is a .isra or .constprop clone are dropped where pahole keeps
// them.
func TestEncodeModuleFuncs(t *testing.T) {
	base := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	for _, m := range testutil.ModuleNames {
		t.Run(m, func(t *testing.T) {
			if testing.Short() && m != "nls_utf8" && m != "tcp_bbr" {
				t.Skip("skipping the larger modules in -short mode")
			}
			ko := testutil.Corpus(t, "modules/"+m+".ko")
			out := filepath.Join(t.TempDir(), m+".btf")
			mustGobtf(t, append([]string{"-J", "-j2", "--btf_base", base, "--btf_encode_detached=" + out, ko}, kbuildFlags...)...)
			got := funcNames(t, out, base)
			want := funcNames(t, testutil.Reference(t, "modules/"+m+".btf"), base)
			missing, extra := 0, 0
			for n := range want {
				if !got[n] {
					missing++
					t.Errorf("pahole's FUNC %s is missing", n)
				}
			}
			for n := range got {
				if !want[n] {
					extra++
					t.Errorf("FUNC %s is not in pahole's output", n)
				}
			}
			t.Logf("%s: %d FUNCs, pahole %d; missing %d, extra %d", m, len(got), len(want), missing, extra)
		})
	}
}

// sectionData returns the contents of the named section of the ELF file at
// path.
func sectionData(t *testing.T, path, name string) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(name)
	if sec == nil {
		t.Fatalf("%s: no section %s", path, name)
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatalf("%s: section %s: %v", path, name, err)
	}
	return data
}

// funcNames returns the names of the FUNCs of a split BTF file on base.
func funcNames(t *testing.T, path, basePath string) map[string]bool {
	t.Helper()
	s := parseSplitFile(t, path, basePath)
	names := map[string]bool{}
	for id := s.FirstID(); id <= s.TypeCount(); id++ {
		if typ := s.Type(id); typ.Kind() == btf.KindFunc {
			names[s.Name(typ)] = true
		}
	}
	return names
}

// parseSplitFile parses the raw split BTF file path on the raw base file
// basePath.
func parseSplitFile(t *testing.T, path, basePath string) *btf.Spec {
	t.Helper()
	bdata, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	base, err := btf.Parse(bdata, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(data, base)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
