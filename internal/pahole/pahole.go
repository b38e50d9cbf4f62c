// Package pahole is pahole's command line as gobtf's command reads it and
// pahole's words as it writes them: the --btf_features lists and the order
// in which the flags that set features apply, the language names of --lang,
// and the lines pahole -V prints for what a conversion reports
// (dwarf2btf.Log). Only the command (cmd/gobtf) uses it; the conversion
// takes decisions (dwarf2btf.Features, LanguageFilter) and makes reports,
// and leaves their spelling here.
package pahole

import (
	"fmt"
	"strings"

	"github.com/gobtf/gobtf/internal/dwarf2btf"
)

// defaultSet are the features that "default" (and a leading "+") switch
// on in a --btf_features list.
var defaultSet = []string{"encode_force", "var", "float", "decl_tag", "type_tag", "enum64",
	"optimized_func", "consistent_func", "decl_tag_kfuncs"}

// SupportedFeatures returns the comma-separated feature names, as
// --supported_btf_features prints them.
func SupportedFeatures() string { return strings.Join(dwarf2btf.FeatureNames(), ",") }

// FeatureSet applies pahole's feature flags in command-line order. The order
// matters, as in pahole: the first --btf_features switches every feature off
// (an opt-in list), so an older flag given before it is overridden, while
// one given after it still applies.
type FeatureSet struct {
	dwarf2btf.Features
	listed bool // a --btf_features list has been applied
}

// NewFeatureSet returns the set with pahole's defaults (no --btf_features:
// dwarf2btf.DefaultFeatures).
func NewFeatureSet() *FeatureSet { return &FeatureSet{Features: dwarf2btf.DefaultFeatures()} }

// ApplyList applies one --btf_features (or, with strict, one
// --btf_features_strict) value: "default" enables the default features, a
// leading "+" adds the listed ones to the defaults, and otherwise exactly the
// listed features are on (over all lists given). Unknown names are ignored,
// unless strict, which makes them an error.
func (s *FeatureSet) ApplyList(list string, strict bool) error {
	if !s.listed {
		s.Features = dwarf2btf.Features{}
		s.listed = true
	}
	if list == "default" {
		s.enableDefaults()
		return nil
	}
	if rest, ok := strings.CutPrefix(list, "+"); ok {
		s.enableDefaults()
		list = rest
	}
	for _, name := range strings.Split(list, ",") {
		switch {
		case name == "":
		case s.Enable(name):
		case name == "default":
			s.enableDefaults()
		case strict:
			return fmt.Errorf("feature %q in %q is not supported; supported BTF features are: %s", name, list, SupportedFeatures())
		}
	}
	return nil
}

// ApplyGenAll applies --btf_gen_all. In pahole 1.31 it is a feature list
// naming "all", which is no feature: like any first --btf_features it turns
// every feature off and then enables none.
func (s *FeatureSet) ApplyGenAll() { _ = s.ApplyList("all", false) }

func (s *FeatureSet) enableDefaults() {
	for _, name := range defaultSet {
		s.Enable(name)
	}
}
