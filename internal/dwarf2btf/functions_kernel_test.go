package dwarf2btf

import (
	"os"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestFuncsMatchPaholeVmlinux encodes the functions of the shared vmlinux
// with the kernel build's features and with pahole's defaults, and compares
// the FUNCs (names, parameter names and type shapes) with pahole 1.31's
// references made with the same flags.
func TestFuncsMatchPaholeVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("whole-vmlinux test; skipped with -short")
	}
	vmlinux := testutil.Corpus(t, testutil.VmlinuxName)
	for _, tc := range []struct {
		ref      string
		features string // "" for pahole's defaults
	}{
		{testutil.VmlinuxName + ".kbuild.btf", "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes"},
		{testutil.VmlinuxName + ".default.btf", ""},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			feats := featuresNamed(t, tc.features)
			opts := &Options{Features: feats, Jobs: 1}
			got := funcSigs(convertWithFuncs(t, vmlinux, opts))
			data, err := os.ReadFile(testutil.Reference(t, tc.ref))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := btf.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := funcSigs(ref)
			compareFuncSigs(t, got, want)
		})
	}
}

// compareFuncSigs reports FUNCs missing, extra, or with other parameters.
func compareFuncSigs(t *testing.T, got, want map[string]funcSig) {
	t.Helper()
	var missing, extra, differ []string
	tagged := 0
	for _, name := range sortedKeys(want) {
		g, ok := got[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		if strings.Join(g.params, ", ") != strings.Join(want[name].params, ", ") {
			differ = append(differ, name+": got ("+strings.Join(g.params, ", ")+") want ("+strings.Join(want[name].params, ", ")+")")
		}
		if strings.Join(g.tags, " ") != strings.Join(want[name].tags, " ") {
			differ = append(differ, name+": tags "+strings.Join(g.tags, " ")+" want "+strings.Join(want[name].tags, " "))
		}
		if len(g.tags) > 0 {
			tagged++
		}
	}
	for _, name := range sortedKeys(got) {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	t.Logf("FUNCs: got %d, want %d; missing %d, extra %d, different %d; %d with DECL_TAGs", len(got), len(want), len(missing), len(extra), len(differ), tagged)
	show := func(what string, list []string) {
		if len(list) == 0 {
			return
		}
		if len(list) > 30 {
			list = list[:30]
		}
		t.Errorf("%s:\n  %s", what, strings.Join(list, "\n  "))
	}
	show("missing", missing)
	show("extra", extra)
	show("different", differ)
}
