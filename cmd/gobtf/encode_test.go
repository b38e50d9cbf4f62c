package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/pahole"
)

// parseEncode parses args as the root command would and returns the
// resulting conversion options.
func parseEncode(t *testing.T, args ...string) (dwarf2btf.Options, *encodeOptions, error) {
	t.Helper()
	opts := &encodeOptions{}
	root := newRootCmdWith(&bytes.Buffer{}, &bytes.Buffer{}, opts)
	if err := root.ParseFlags(spelledOut(t, root, args)); err != nil {
		return dwarf2btf.Options{}, opts, err
	}
	o, err := opts.options()
	return o, opts, err
}

func TestEncodeFlags(t *testing.T) {
	kflags := []string{"-j2", "--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes", "--lang_exclude=rust"}
	o, eo, err := parseEncode(t, append([]string{"-J"}, kflags...)...)
	if err != nil {
		t.Fatal(err)
	}
	want := dwarf2btf.Features{EncodeForce: true, Var: true, Float: true, Enum64: true, DeclTag: true, TypeTag: true,
		OptimizedFunc: true, ConsistentFunc: true, DeclTagKfuncs: true, Attributes: true}
	if o.Features != want || o.Jobs != 2 || !eo.encode {
		t.Errorf("kernel-build flags: %+v jobs %d encode %v", o.Features, o.Jobs, eo.encode)
	}
	if !o.Languages.Exclude || len(o.Languages.IDs) != 1 || o.Languages.IDs[0] != 0x1c {
		t.Errorf("--lang_exclude=rust gave %+v", o.Languages)
	}

	// Linux 6.1's scripts/link-vmlinux.sh gen_btf() flags.
	o, _, err = parseEncode(t, "-J", "--btf_gen_floats", "-j", "--lang_exclude=rust", "--skip_encoding_btf_inconsistent_proto", "--btf_gen_optimized")
	if err != nil {
		t.Fatal(err)
	}
	want = dwarf2btf.DefaultFeatures()
	want.Float, want.ConsistentFunc, want.OptimizedFunc = true, true, true
	if o.Features != want || o.Jobs < 1 {
		t.Errorf("6.1 flags: %+v jobs %d", o.Features, o.Jobs)
	}

	// Order matters as in pahole: the list resets what came before it.
	o, _, _ = parseEncode(t, "-J", "--btf_gen_floats", "--btf_features=var")
	if o.Features.Float {
		t.Error("--btf_gen_floats before --btf_features survived")
	}
	o, _, _ = parseEncode(t, "-J", "--btf_features=var", "--btf_gen_floats")
	if !o.Features.Float {
		t.Error("--btf_gen_floats after --btf_features was lost")
	}

	_, eo, _ = parseEncode(t, "--btf_encode_detached=out.btf", "x")
	if !eo.encode || eo.detached != "out.btf" {
		t.Errorf("--btf_encode_detached: encode %v detached %q", eo.encode, eo.detached)
	}
	for _, args := range [][]string{{"--jobs=3"}, {"-j3"}} {
		if o, _, _ := parseEncode(t, args...); o.Jobs != 3 {
			t.Errorf("%v: jobs %d, want 3", args, o.Jobs)
		}
	}
	if o, _, _ := parseEncode(t); o.Jobs != 1 {
		t.Errorf("no -j: jobs %d, want 1 as pahole", o.Jobs)
	}
}

func TestLangExcludeEnv(t *testing.T) {
	t.Setenv("PAHOLE_LANG_EXCLUDE", "rust")
	o, _, err := parseEncode(t, "-J")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Languages.Skips(0x1c) || o.Languages.Skips(0x0c) {
		t.Errorf("PAHOLE_LANG_EXCLUDE=rust gave %+v", o.Languages)
	}
	o, _, _ = parseEncode(t, "-J", "--lang=c")
	if !o.Languages.Skips(0x1c) || o.Languages.Skips(0x02) {
		t.Errorf("--lang=c with PAHOLE_LANG_EXCLUDE set gave %+v (the flag must win)", o.Languages)
	}
}

func TestEncodeCommand(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{args: []string{"--version"}, code: 0, out: "v1.31\n"},
		{args: []string{"--supported_btf_features"}, code: 0, out: pahole.SupportedFeatures() + "\n"},
		{args: []string{"-J"}, code: 64, err: "expected one FILE to encode, got no argument"},
		{args: []string{"-J", "a", "b"}, code: 64, err: "expected one FILE to encode, got 2 argument(s)"},
		// pahole's words and statuses: it refuses these as it reads them.
		{args: []string{"-J", "--btf_features_strict=nope", "x"}, code: 1, err: "Feature 'nope' in 'nope' is not supported."},
		{args: []string{"-J", "--lang=klingon", "x"}, code: 1, err: `pahole: unknown language "klingon"`},
		{args: []string{"-J", "--no_such_flag", "x"}, code: 64, err: "unrecognized option '--no_such_flag'"},
		// Without -J, gobtf prints layouts, as pahole does: a first operand
		// that is no file names a type of the running kernel, which here
		// has no type information.
		{args: []string{"x"}, code: 1, err: "pahole: couldn't find any debug information on this system."},
	}
	noKernel(t)
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, _, code, err := runGobtf(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d (%v), want %d", code, err, tc.code)
			}
			if tc.out != "" && stdout != tc.out {
				t.Errorf("stdout %q, want %q", stdout, tc.out)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want one mentioning %q", err, tc.err)
			}
		})
	}
}
