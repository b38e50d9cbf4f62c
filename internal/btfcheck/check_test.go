package btfcheck_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfcheck"
)

func TestParseKernel(t *testing.T) {
	tests := []struct {
		in        string
		want      string // "MAJOR.MINOR"
		rules     btf.KernelRules
		distilled bool
		err       string
	}{
		{in: "6.1", want: "6.1", rules: btf.KernelRules{DatasecIdentNames: true, TagKindFlagRefused: true}},
		{in: "6.1.0-56-cloud-amd64", want: "6.1", rules: btf.KernelRules{DatasecIdentNames: true, TagKindFlagRefused: true}},
		{in: "6.8", want: "6.8", rules: btf.KernelRules{DatasecIdentNames: true, TagKindFlagRefused: true}},
		{in: "6.9", want: "6.9", rules: btf.KernelRules{TagKindFlagRefused: true}},
		{in: "6.11", want: "6.11", rules: btf.KernelRules{TagKindFlagRefused: true}, distilled: true},
		{in: "6.12.117", want: "6.12", rules: btf.KernelRules{TagKindFlagRefused: true}, distilled: true},
		{in: "6.14", want: "6.14", rules: btf.KernelRules{TagKindFlagRefused: true}, distilled: true},
		{in: "6.15", want: "6.15", distilled: true},
		{in: "6.18.44-fc-v857", want: "6.18", distilled: true},
		{in: "5.15", err: "knows the BTF rules of 6.1 and later"},
		{in: "7.0", err: "up to 6.18"},
		{in: "six", err: "want MAJOR.MINOR"},
		{in: "6", err: "want MAJOR.MINOR"},
	}
	for _, tc := range tests {
		k, err := btfcheck.ParseKernel(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if k.String() != tc.want || k.Rules != tc.rules || k.DistilledBase != tc.distilled {
			t.Errorf("%s: got %s %+v distilled=%v, want %s %+v distilled=%v", tc.in, k, k.Rules, k.DistilledBase, tc.want, tc.rules, tc.distilled)
		}
	}
}

// Hand-built BTF on the differences between kernel versions and between
// the kernel's three checks. Each expectation is read from the kernels'
// kernel/bpf/btf.c (Debian's linux-source-6.1 and 6.12; the 6.18 ones are
// also checked against the running kernel by TestCheckRulesKernel in
// internal/btf): the function that decides is named in the case.

// vmlinuxSpec is a small vmlinux-like base: an int, a struct, a pointer.
func vmlinuxSpec() *btf.Spec {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddStruct(false, "list_head", 16, []btf.MemberSpec{{Name: "next", Type: 3}, {Name: "prev", Type: 3, BitOffset: 64}})
	s.AddRef(btf.KindPtr, "", 2)
	_ = i
	return s
}

type ruleDiff struct {
	name  string
	split bool                  // a module's split BTF on vmlinuxSpec
	build func(s *btf.Spec)     // adds the types
	blob  func(b []byte) []byte // rewrites the encoded blob, if set
	// want is the first fault's reason per "path version" ("load 6.1",
	// "module 6.12", ...): "" for accepted; a missing key means as
	// for the nearest listed version of the same path below it.
	want map[string]string
}

var ruleDiffs = []ruleDiff{
	{name: "DATASEC named with a space (btf_name_valid_section)",
		build: func(s *btf.Spec) {
			i := s.AddInt("int", 4, btf.IntSigned, 32)
			v := s.AddVar("v", i, btf.LinkageGlobal)
			s.AddDatasec(".data a", 4, []btf.SecInfoSpec{{Type: v, Size: 4}})
		},
		want: map[string]string{"load 6.1": "Invalid name", "load 6.12": "", "vmlinux 6.1": "Invalid name", "vmlinux 6.12": ""}},
	{name: "TYPE_TAG with kind_flag (btf_ref_type_check_meta)",
		build: func(s *btf.Spec) { s.AddTypeTag("attr", s.AddInt("int", 4, btf.IntSigned, 32), true) },
		want:  map[string]string{"load 6.1": "Invalid btf_info kind_flag", "load 6.18": "", "vmlinux 6.1": "Invalid btf_info kind_flag", "vmlinux 6.18": ""}},
	{name: "DECL_TAG with kind_flag (btf_decl_tag_check_meta)",
		build: func(s *btf.Spec) {
			i := s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddDeclTag("attr", s.AddVar("v", i, btf.LinkageGlobal), -1, true)
		},
		want: map[string]string{"load 6.1": "Invalid btf_info kind_flag", "load 6.18": "", "vmlinux 6.1": "Invalid btf_info kind_flag", "vmlinux 6.18": ""}},
	{name: "member of a type that does not exist (no resolve pass on the module path)", split: true,
		build: func(s *btf.Spec) {
			s.AddStruct(false, "m", 8, []btf.MemberSpec{{Name: "x", Type: 1000}})
		},
		want: map[string]string{"load 6.1": "Invalid member", "module 6.1": ""}},
	{name: "PTR to a VAR (no resolve pass on the vmlinux path)",
		build: func(s *btf.Spec) {
			i := s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddRef(btf.KindPtr, "", s.AddVar("v", i, btf.LinkageGlobal))
		},
		want: map[string]string{"load 6.1": "Invalid type_id", "vmlinux 6.1": ""}},
	{name: "TYPEDEF of a type that does not exist (btf_check_type_tags: refused without a log line)", split: true,
		build: func(s *btf.Spec) { s.AddRef(btf.KindTypedef, "t", 1000) },
		want:  map[string]string{"load 6.1": "Invalid type_id", "module 6.1": "(silent)"}},
	{name: "no types (btf_parse_type_sec's check only)",
		build: func(s *btf.Spec) {},
		want:  map[string]string{"load 6.1": "No type found", "vmlinux 6.1": ""}},
	{name: "name in the middle of a base string (accepted everywhere)", split: true,
		build: func(s *btf.Spec) { s.AddRef(btf.KindTypedef, "", 2) },
		blob: func(b []byte) []byte {
			le := binary.LittleEndian
			hl := le.Uint32(b[4:])
			le.PutUint32(b[hl:], 1) // "nt", inside "int"
			return b
		},
		want: map[string]string{"load 6.1": "", "module 6.1": ""}},
}

// lookup returns the expectation for path at version v.
func (c ruleDiff) lookup(path, v string) (string, bool) {
	order := []string{"6.18", "6.12", "6.1"}
	i := 0
	for order[i] != v {
		i++
	}
	for ; i < len(order); i++ {
		if w, ok := c.want[path+" "+order[i]]; ok {
			return w, true
		}
	}
	return "", false
}

func TestRuleDifferences(t *testing.T) {
	dir := t.TempDir()
	base := vmlinuxSpec()
	basePath := filepath.Join(dir, "vmlinux.btf")
	if err := os.WriteFile(basePath, base.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range ruleDiffs {
		t.Run(tc.name, func(t *testing.T) {
			var s *btf.Spec
			if tc.split {
				s = btf.NewSpec(base)
			} else {
				s = btf.NewSpec(nil)
			}
			tc.build(s)
			blob := s.Marshal(binary.LittleEndian)
			if tc.blob != nil {
				blob = tc.blob(blob)
			}
			path := filepath.Join(dir, "blob.btf")
			if err := os.WriteFile(path, blob, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, as := range []btfcheck.As{btfcheck.AsLoad, btfcheck.AsModule, btfcheck.AsVmlinux} {
				pathName := map[btfcheck.As]string{btfcheck.AsLoad: "load", btfcheck.AsModule: "module", btfcheck.AsVmlinux: "vmlinux"}[as]
				if as == btfcheck.AsVmlinux && tc.split || as == btfcheck.AsModule && !tc.split {
					continue
				}
				for _, v := range []string{"6.1", "6.12", "6.18"} {
					want, ok := tc.lookup(pathName, v)
					if !ok {
						continue
					}
					k, err := btfcheck.ParseKernel(v)
					if err != nil {
						t.Fatal(err)
					}
					opts := btfcheck.Options{As: as, Kernel: k}
					if tc.split {
						opts.Base = basePath
					}
					var res btfcheck.Result
					if err := btfcheck.Run([]string{path}, opts, func(r btfcheck.Result) { res = r }); err != nil {
						t.Fatal(err)
					}
					got := ""
					if res.Err != nil {
						t.Fatalf("%s %s: %v", pathName, v, res.Err)
					}
					if !res.Accepted {
						got = res.Faults[0].Kernel
						if res.Faults[0].Form == btf.FormSilent {
							got = "(silent)"
						}
					}
					if got != want {
						t.Errorf("%s check of %s: %q, want %q", pathName, v, got, want)
					}
				}
			}
		})
	}
}

// TestRefusedBase checks modules on a vmlinux BTF the kernel refuses at
// boot (by 6.1's rules, a DATASEC named with a space): the kernel then has
// no BTF to read modules on, and refuses each module's with the error of
// the vmlinux's parse; by 6.18's rules both are accepted.
func TestRefusedBase(t *testing.T) {
	dir := t.TempDir()
	base := vmlinuxSpec()
	v := base.AddVar("v", 1, btf.LinkageGlobal)
	base.AddDatasec(".data a", 4, []btf.SecInfoSpec{{Type: v, Size: 4}})
	basePath := filepath.Join(dir, "vmlinux.btf")
	os.WriteFile(basePath, base.Marshal(binary.LittleEndian), 0o644)
	split := btf.NewSpec(base)
	split.AddRef(btf.KindPtr, "", 1)
	modPath := filepath.Join(dir, "m.btf")
	os.WriteFile(modPath, split.Marshal(binary.LittleEndian), 0o644)
	for _, v := range []string{"6.1", "6.18"} {
		k, _ := btfcheck.ParseKernel(v)
		var got []btfcheck.Result
		if err := btfcheck.Run([]string{basePath, modPath}, btfcheck.Options{Base: basePath, Kernel: k}, func(r btfcheck.Result) { got = append(got, r) }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Accepted != (v != "6.1") || got[1].Accepted != (v != "6.1") {
			t.Fatalf("%s: %+v", v, got)
		}
		if v == "6.1" && !strings.Contains(got[1].Faults[0].Rule, "refuses the vmlinux BTF") {
			t.Errorf("6.1: the module's fault: %v", got[1].Faults[0].ValidationError)
		}
	}
}
