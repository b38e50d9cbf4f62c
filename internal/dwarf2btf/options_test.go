package dwarf2btf

import (
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// kbuildFeatures are the features of Linux 6.7 to 6.18's pahole flags
// (scripts/Makefile.btf), as the shared reference was made with them.
const kbuildFeatures = "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes"

// featuresNamed returns the features named in the comma-separated list
// ("" for DefaultFeatures).
func featuresNamed(t testing.TB, list string) Features {
	t.Helper()
	if list == "" {
		return DefaultFeatures()
	}
	var f Features
	for _, name := range strings.Split(list, ",") {
		if !f.Enable(name) {
			t.Fatalf("no feature %q", name)
		}
	}
	return f
}

// TestFeatureNames: every name switches on its own field, in pahole's
// order, and no other name does.
func TestFeatureNames(t *testing.T) {
	names := FeatureNames()
	if len(names) != 15 || names[0] != "encode_force" || names[len(names)-1] != "layout" {
		t.Errorf("names %v", names)
	}
	seen := map[Features]bool{}
	for _, n := range names {
		var f Features
		if !f.Enable(n) || f == (Features{}) || seen[f] {
			t.Errorf("%s: %+v", n, f)
		}
		seen[f] = true
	}
	var f Features
	if f.Enable("no_such_feature") || f != (Features{}) {
		t.Error("an unknown name enabled something")
	}
}

// TestLanguageFilter: excluded languages are skipped; with a list to keep,
// the others are.
func TestLanguageFilter(t *testing.T) {
	ex := LanguageFilter{IDs: []dwarf.Lang{dwarf.LangRust}, Exclude: true}
	in := LanguageFilter{IDs: []dwarf.Lang{dwarf.LangRust}}
	if !ex.Skips(dwarf.LangRust) || ex.Skips(dwarf.LangC99) || in.Skips(dwarf.LangRust) || !in.Skips(dwarf.LangC99) ||
		(LanguageFilter{}).Skips(dwarf.LangRust) {
		t.Error("language filter decisions wrong")
	}
}
