// Package dwarf2btf converts the DWARF debug information of an ELF file into
// BTF the way pahole -J does: every compilation unit's types one to one, the
// functions that have an ELF symbol, and the variables of selected sections.
package dwarf2btf

import (
	"fmt"
	"io"
	"strings"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// Features selects what the encoder emits. The fields read positively ("emit
// X"); pahole keeps several of them as negative "skip" switches internally,
// which is why their feature names turn them on while the older
// --skip_encoding_* flags turn them off.
type Features struct {
	EncodeForce       bool // encode_force: skip invalid symbols instead of failing
	Var               bool // var: VAR and DATASEC for per-CPU variables
	Float             bool // float: FLOAT for floating-point base types (else INT)
	DeclTag           bool // decl_tag: DECL_TAG from btf_decl_tag annotations
	TypeTag           bool // type_tag: TYPE_TAG from btf_type_tag annotations
	Enum64            bool // enum64: ENUM64 for enums wider than 32 bits
	OptimizedFunc     bool // optimized_func: encode functions with optimized-out parameters
	ConsistentFunc    bool // consistent_func: skip functions whose prototypes disagree
	DeclTagKfuncs     bool // decl_tag_kfuncs: bpf_kfunc DECL_TAG on kfuncs
	ReproducibleBuild bool // reproducible_build: output independent of -j (always true here)
	DistilledBase     bool // distilled_base: with --btf_base in ELF mode, also .BTF.base (btf.DistillBase)
	GlobalVar         bool // global_var: variables of every data section, not just per-CPU
	Attributes        bool // attributes: __attribute__ tags as DECL_TAG/TYPE_TAG with kind_flag
	TrueSignature     bool // true_signature: encode the signature after optimization
	Layout            bool // layout: a kind layout section in base (not split) BTF (btf.KindLayouts)
}

// DefaultFeatures returns what pahole encodes when no --btf_features flag is
// given: variables, decl and type tags and 64-bit enums, but no floats and no
// optimized or inconsistency-checked functions.
func DefaultFeatures() Features {
	return Features{Var: true, DeclTag: true, TypeTag: true, Enum64: true}
}

// featureDef ties a --btf_features name to its field. inDefault marks the
// features that "default" (and a leading "+") switch on.
type featureDef struct {
	name      string
	field     func(*Features) *bool
	inDefault bool
}

// featureDefs lists the feature names in pahole's order, which is also the
// order --supported_btf_features prints.
var featureDefs = []featureDef{
	{"encode_force", func(f *Features) *bool { return &f.EncodeForce }, true},
	{"var", func(f *Features) *bool { return &f.Var }, true},
	{"float", func(f *Features) *bool { return &f.Float }, true},
	{"decl_tag", func(f *Features) *bool { return &f.DeclTag }, true},
	{"type_tag", func(f *Features) *bool { return &f.TypeTag }, true},
	{"enum64", func(f *Features) *bool { return &f.Enum64 }, true},
	{"optimized_func", func(f *Features) *bool { return &f.OptimizedFunc }, true},
	{"consistent_func", func(f *Features) *bool { return &f.ConsistentFunc }, true},
	{"decl_tag_kfuncs", func(f *Features) *bool { return &f.DeclTagKfuncs }, true},
	{"reproducible_build", func(f *Features) *bool { return &f.ReproducibleBuild }, false},
	{"distilled_base", func(f *Features) *bool { return &f.DistilledBase }, false},
	{"global_var", func(f *Features) *bool { return &f.GlobalVar }, false},
	{"attributes", func(f *Features) *bool { return &f.Attributes }, false},
	{"true_signature", func(f *Features) *bool { return &f.TrueSignature }, false},
	{"layout", func(f *Features) *bool { return &f.Layout }, false},
}

// SupportedFeatures returns the comma-separated feature names, as
// --supported_btf_features prints them.
func SupportedFeatures() string {
	names := make([]string, len(featureDefs))
	for i, d := range featureDefs {
		names[i] = d.name
	}
	return strings.Join(names, ",")
}

// FeatureSet applies pahole's feature flags in command-line order. The order
// matters, as in pahole: the first --btf_features switches every feature off
// (an opt-in list), so an older flag given before it is overridden, while
// one given after it still applies.
type FeatureSet struct {
	Features
	listed bool // a --btf_features list has been applied
}

// NewFeatureSet returns the set with pahole's defaults.
func NewFeatureSet() *FeatureSet { return &FeatureSet{Features: DefaultFeatures()} }

// ApplyList applies one --btf_features (or, with strict, one
// --btf_features_strict) value: "default" enables the default features, a
// leading "+" adds the listed ones to the defaults, and otherwise exactly the
// listed features are on (over all lists given). Unknown names are ignored,
// unless strict, which makes them an error.
func (s *FeatureSet) ApplyList(list string, strict bool) error {
	if !s.listed {
		s.Features = Features{}
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
		if name == "" {
			continue
		}
		d := findFeature(name)
		switch {
		case d != nil:
			*d.field(&s.Features) = true
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
	for _, d := range featureDefs {
		if d.inDefault {
			*d.field(&s.Features) = true
		}
	}
}

func findFeature(name string) *featureDef {
	for i := range featureDefs {
		if featureDefs[i].name == name {
			return &featureDefs[i]
		}
	}
	return nil
}

// Options configures a conversion.
type Options struct {
	Features Features

	// Jobs is the number of compilation units converted at once (at least 1).
	// The output does not depend on it.
	Jobs int

	// Languages selects compilation units by source language.
	Languages LanguageFilter

	// KabiPrefix, when set, replaces every name that starts with it by the
	// prefix alone (pahole's --kabi_prefix, for kABI-padding members).
	KabiPrefix string

	// Verbose, when set, receives pahole -V's lines, the same for every
	// Jobs: the file's name, then unit by unit in file order the functions
	// without an ELF function and the variables encoded, then the
	// explanation of each function left out of the output ("NAME :
	// skipping BTF encoding of function due to REASON"), in name order
	// (funcs/verbose.go). pahole's listing of the types is not written.
	Verbose io.Writer
}

// LanguageFilter selects compilation units by their DW_AT_language: with
// Exclude, units in one of IDs are skipped; otherwise, when IDs is not
// empty, only units in one of IDs are kept.
type LanguageFilter struct {
	IDs     []uint16
	Exclude bool
}

// Skips reports whether a unit written in lang is filtered out.
func (f LanguageFilter) Skips(lang uint16) bool {
	if len(f.IDs) == 0 {
		return false
	}
	in := false
	for _, id := range f.IDs {
		if id == lang {
			in = true
			break
		}
	}
	return in == f.Exclude
}

// langNames are pahole's names for the DW_LANG_* codes.
var langNames = map[dwarf.Lang]string{
	dwarf.LangC89: "c89", dwarf.LangC: "c", dwarf.LangAda83: "ada83", dwarf.LangCPlusPlus: "c++",
	dwarf.LangCobol74: "cobol74", dwarf.LangCobol85: "cobol85", dwarf.LangFortran77: "fortran77",
	dwarf.LangFortran90: "fortran90", dwarf.LangPascal83: "pascal83", dwarf.LangModula2: "modula2",
	dwarf.LangJava: "java", dwarf.LangC99: "c99", dwarf.LangAda95: "ada95", dwarf.LangFortran95: "fortran95",
	dwarf.LangPLI: "pli", dwarf.LangObjC: "objc", dwarf.LangObjCPlusPlus: "objc++", dwarf.LangUPC: "upc",
	dwarf.LangD: "d", dwarf.LangPython: "python", dwarf.LangOpenCL: "opencl", dwarf.LangGo: "go",
	dwarf.LangModula3: "modula3", dwarf.LangHaskell: "haskell", dwarf.LangCPlusPlus03: "c++03",
	dwarf.LangCPlusPlus11: "c++11", dwarf.LangOCaml: "ocaml", dwarf.LangRust: "rust", dwarf.LangC11: "c11",
	dwarf.LangSwift: "swift", dwarf.LangJulia: "julia", dwarf.LangDylan: "dylan", dwarf.LangCPlusPlus14: "c++14",
	dwarf.LangFortran03: "fortran03", dwarf.LangFortran08: "fortran08", dwarf.LangRenderScript: "renderscript",
	dwarf.LangBLISS: "bliss",
}

// ParseLanguages turns a comma-separated list of language names ("c,rust",
// case-insensitive, "asm" for assembler units) into DW_LANG codes.
func ParseLanguages(list string) ([]uint16, error) {
	var ids []uint16
	for _, name := range strings.Split(list, ",") {
		id, ok := langID(name)
		if !ok {
			return nil, fmt.Errorf("unknown language %q", name)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func langID(name string) (uint16, bool) {
	if strings.EqualFold(name, "asm") {
		return uint16(dwarf.LangMipsAssembler), true
	}
	for id, n := range langNames {
		if strings.EqualFold(n, name) {
			return uint16(id), true
		}
	}
	return 0, false
}
