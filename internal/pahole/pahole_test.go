package pahole

import (
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
)

// TestFeatureSet follows pahole 1.31's parse_btf_features: the first list
// switches everything off, "default" and "+" enable the default set, lists
// accumulate, unknown names are ignored unless strict.
func TestFeatureSet(t *testing.T) {
	kbuild := "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes"
	tests := []struct {
		name   string
		lists  []string
		strict bool
		want   dwarf2btf.Features
		err    string
	}{
		{name: "no flag", want: dwarf2btf.Features{Var: true, DeclTag: true, TypeTag: true, Enum64: true}},
		{name: "only var", lists: []string{"var"}, want: dwarf2btf.Features{Var: true}},
		{name: "kernel build", lists: []string{kbuild}, want: dwarf2btf.Features{EncodeForce: true, Var: true, Float: true, Enum64: true,
			DeclTag: true, TypeTag: true, OptimizedFunc: true, ConsistentFunc: true, DeclTagKfuncs: true, Attributes: true}},
		{name: "out-of-tree module build", lists: []string{kbuild + ",distilled_base"}, strict: true, want: dwarf2btf.Features{EncodeForce: true,
			Var: true, Float: true, Enum64: true, DeclTag: true, TypeTag: true, OptimizedFunc: true, ConsistentFunc: true,
			DeclTagKfuncs: true, Attributes: true, DistilledBase: true}},
		{name: "default", lists: []string{"default"}, want: dwarf2btf.Features{EncodeForce: true, Var: true, Float: true, DeclTag: true,
			TypeTag: true, Enum64: true, OptimizedFunc: true, ConsistentFunc: true, DeclTagKfuncs: true}},
		{name: "plus", lists: []string{"+global_var"}, want: dwarf2btf.Features{EncodeForce: true, Var: true, Float: true, DeclTag: true,
			TypeTag: true, Enum64: true, OptimizedFunc: true, ConsistentFunc: true, DeclTagKfuncs: true, GlobalVar: true}},
		{name: "default inside a list", lists: []string{"true_signature,default"}, want: dwarf2btf.Features{EncodeForce: true, Var: true,
			Float: true, DeclTag: true, TypeTag: true, Enum64: true, OptimizedFunc: true, ConsistentFunc: true, DeclTagKfuncs: true,
			TrueSignature: true}},
		{name: "lists accumulate", lists: []string{"var", "float"}, want: dwarf2btf.Features{Var: true, Float: true}},
		{name: "unknown ignored", lists: []string{"var,no_such_feature"}, want: dwarf2btf.Features{Var: true}},
		{name: "unknown strict", lists: []string{"var,no_such_feature"}, strict: true, err: `feature "no_such_feature"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := NewFeatureSet()
			var err error
			for _, l := range tc.lists {
				if err = fs.ApplyList(l, tc.strict); err != nil {
					break
				}
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one mentioning %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fs.Features != tc.want {
				t.Errorf("got %+v\nwant %+v", fs.Features, tc.want)
			}
		})
	}
}

// TestFeatureOrder checks that an older flag given before the first
// --btf_features is overridden by it, and one given after still applies.
func TestFeatureOrder(t *testing.T) {
	fs := NewFeatureSet()
	fs.Float = true // --btf_gen_floats
	_ = fs.ApplyList("var", false)
	if fs.Float {
		t.Error("--btf_gen_floats before --btf_features=var survived")
	}
	fs.Float = true // --btf_gen_floats after the list
	_ = fs.ApplyList("type_tag", false)
	if !fs.Float || !fs.Var || !fs.TypeTag {
		t.Errorf("after a second list: %+v", fs.Features)
	}
	all := NewFeatureSet()
	all.ApplyGenAll()
	if all.Features != (dwarf2btf.Features{}) {
		t.Errorf("--btf_gen_all: %+v, want every feature off as in pahole 1.31", all.Features)
	}
}

func TestLanguages(t *testing.T) {
	ids, err := ParseLanguages("rust,C,asm,c++")
	if err != nil {
		t.Fatal(err)
	}
	want := []dwarf.Lang{dwarf.LangRust, dwarf.LangC, dwarf.LangMipsAssembler, dwarf.LangCPlusPlus}
	if len(ids) != len(want) {
		t.Fatalf("got %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("got %v, want %v", ids, want)
		}
	}
	if _, err := ParseLanguages("klingon"); err == nil {
		t.Error("unknown language accepted")
	}
}

// TestVerboseLines: pahole -V's lines for each report (btf_encoder.c's and
// dwarf_loader.c's format strings).
func TestVerboseLines(t *testing.T) {
	var b strings.Builder
	v := NewVerbose(&b)
	v.File("vmlinux", ".data..percpu", false)
	v.File("m.ko", ".data..percpu", true)
	v.NoSymbol("f")
	v.Unit("a.c")
	v.Variable("x", "a.c", 0x1f0)
	for _, why := range []funcs.Skip{{Reason: funcs.AmbiguousAddress}, {Reason: funcs.InconsistentPrototype},
		{Reason: funcs.CountMismatch, Counts: [2]int{1, 2}}, {Reason: funcs.ParamMismatch, Param: 0, Names: [2]string{"a", "b"}}} {
		v.Skipped("g", why)
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `btf_encoder__new: 'vmlinux' doesn't have '.data..percpu' section
File vmlinux:
File m.ko:
could not find function 'f' in the ELF functions table
search cu 'a.c' for percpu global variables.
Variable 'x' from CU 'a.c' at address 0x1f0 encoded
g : skipping BTF encoding of function due to ambiguous address
g : skipping BTF encoding of function due to inconsistet prototype
g : skipping BTF encoding of function due to param count mismatch; 1 params != 2 params
g : skipping BTF encoding of function due to param type mismatch for param#1 a != b
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
