// Package dwarf2btf converts the DWARF debug information of an ELF file into
// BTF the way pahole -J does: every compilation unit's types one to one, the
// functions that have an ELF symbol, and the variables of selected sections.
package dwarf2btf

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
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

// featureNames ties each feature's name, as pahole's --btf_features names
// it, to its field, in pahole's order.
var featureNames = []struct {
	name  string
	field func(*Features) *bool
}{
	{"encode_force", func(f *Features) *bool { return &f.EncodeForce }},
	{"var", func(f *Features) *bool { return &f.Var }},
	{"float", func(f *Features) *bool { return &f.Float }},
	{"decl_tag", func(f *Features) *bool { return &f.DeclTag }},
	{"type_tag", func(f *Features) *bool { return &f.TypeTag }},
	{"enum64", func(f *Features) *bool { return &f.Enum64 }},
	{"optimized_func", func(f *Features) *bool { return &f.OptimizedFunc }},
	{"consistent_func", func(f *Features) *bool { return &f.ConsistentFunc }},
	{"decl_tag_kfuncs", func(f *Features) *bool { return &f.DeclTagKfuncs }},
	{"reproducible_build", func(f *Features) *bool { return &f.ReproducibleBuild }},
	{"distilled_base", func(f *Features) *bool { return &f.DistilledBase }},
	{"global_var", func(f *Features) *bool { return &f.GlobalVar }},
	{"attributes", func(f *Features) *bool { return &f.Attributes }},
	{"true_signature", func(f *Features) *bool { return &f.TrueSignature }},
	{"layout", func(f *Features) *bool { return &f.Layout }},
}

// FeatureNames returns the names of the features, in pahole's order.
func FeatureNames() []string {
	names := make([]string, len(featureNames))
	for i, d := range featureNames {
		names[i] = d.name
	}
	return names
}

// Enable switches the feature of that name on, and reports whether there
// is one.
func (f *Features) Enable(name string) bool {
	for _, d := range featureNames {
		if d.name == name {
			*d.field(f) = true
			return true
		}
	}
	return false
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

	// Log, when set, is told what pahole -V reports of the conversion
	// (see Log).
	Log Log
}

// Log is told what pahole -V reports of a conversion, in pahole's order and
// the same for every Jobs, by one goroutine at a time: the file, then unit
// by unit in file order the functions without an ELF symbol and the
// variables encoded, then each function left out of the output, and why,
// in name order (funcs.Log). pahole's listing of the types is not
// reported. The command words the reports as pahole does.
type Log interface {
	funcs.Log
	// File is the input, and whether it has the section of the per-CPU
	// variables (named).
	File(path, percpuSection string, hasPercpu bool)
	// NoSymbol is a function of a unit left out for want of an ELF
	// function of its name.
	NoSymbol(function string)
	// Unit is a unit whose variables are looked at (when variables are
	// encoded and the file has symbols).
	Unit(name string)
	// Variable is a variable encoded, from unit, at offset addr of its
	// section.
	Variable(name, unit string, addr uint64)
}

// logEntry is one of a unit's reports to Log, kept until the unit is
// joined: a NoSymbol (unit and addr unset), a Unit (name unset) or a
// Variable.
type logEntry struct {
	kind       logKind
	name, unit string
	addr       uint64
}

type logKind uint8

const (
	logNoSymbol logKind = iota
	logUnit
	logVariable
)

// replay tells log the unit's reports.
func replay(log Log, entries []logEntry) {
	for _, e := range entries {
		switch e.kind {
		case logNoSymbol:
			log.NoSymbol(e.name)
		case logUnit:
			log.Unit(e.unit)
		case logVariable:
			log.Variable(e.name, e.unit, e.addr)
		}
	}
}

// LanguageFilter selects compilation units by their DW_AT_language: with
// Exclude, units in one of IDs are skipped; otherwise, when IDs is not
// empty, only units in one of IDs are kept.
type LanguageFilter struct {
	IDs     []dwarf.Lang
	Exclude bool
}

// Skips reports whether a unit written in lang is filtered out.
func (f LanguageFilter) Skips(lang dwarf.Lang) bool {
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
