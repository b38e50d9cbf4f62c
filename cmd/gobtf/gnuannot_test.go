package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// gnuAnnotWant is what dwarves master of 2026-07-23 (1436daf, the first
// pahole to read gcc's DW_TAG_GNU_annotation entries; apt's 1.24 and the
// v1.31 release do not) writes for testdata/pahole/gnuannot.S with no
// flags, as bpftool dumps it. Its deduplication merged the two TYPE_TAG
// "rcu" copies; struct V, nested in U, is numbered first and its DECL_TAGs
// come first. gobtf was compared with it by hand with the kernel-build
// feature list, with type_tag alone, decl_tag alone, neither, and
// --skip_encoding_btf_type_tag too: equal every time (and the kernel
// verifier accepts gobtf's).
const gnuAnnotWant = `[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
[2] TYPE_TAG 'user' type_id=3
[3] TYPE_TAG 'rcu' type_id=1
[4] PTR '(anon)' type_id=2
[5] PTR '(anon)' type_id=3
[6] TYPE_TAG 'percpu' type_id=1
[7] PTR '(anon)' type_id=6
[8] STRUCT 'S' size=16 vlen=2
	'a' type_id=1 bits_offset=0
	'b' type_id=4 bits_offset=64
[9] STRUCT 'T' size=8 vlen=1
	's' type_id=10 bits_offset=0
[10] PTR '(anon)' type_id=8
[11] STRUCT 'V' size=4 vlen=1
	'v1' type_id=1 bits_offset=0
[12] STRUCT 'U' size=8 vlen=2
	'u1' type_id=1 bits_offset=0
	'u2' type_id=11 bits_offset=32
[13] TYPEDEF 'myint' type_id=1
[14] DECL_TAG 'm1' type_id=8 component_idx=0
[15] DECL_TAG 'm2' type_id=8 component_idx=0
[16] DECL_TAG 'sdecl' type_id=8 component_idx=-1
[17] DECL_TAG 'm3' type_id=9 component_idx=0
[18] DECL_TAG 'v1' type_id=11 component_idx=0
[19] DECL_TAG 'vdecl' type_id=11 component_idx=-1
[20] DECL_TAG 'u1' type_id=12 component_idx=0
[21] DECL_TAG 'udecl' type_id=12 component_idx=-1
[22] FUNC_PROTO '(anon)' ret_type_id=1 vlen=2
	'x' type_id=1
	'y' type_id=1
[23] FUNC 'f' type_id=22 linkage=static
[24] DECL_TAG 'ydecl' type_id=23 component_idx=1
[25] DECL_TAG 'fdecl' type_id=23 component_idx=-1
[26] DECL_TAG 'fdecl2' type_id=23 component_idx=-1
`

// gnuAnnotWantNoTags is the same pahole's output with
// --btf_features=encode_force,var,float (no type_tag, no decl_tag).
const gnuAnnotWantNoTags = `[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
[2] PTR '(anon)' type_id=1
[3] STRUCT 'S' size=16 vlen=2
	'a' type_id=1 bits_offset=0
	'b' type_id=2 bits_offset=64
[4] STRUCT 'T' size=8 vlen=1
	's' type_id=5 bits_offset=0
[5] PTR '(anon)' type_id=3
[6] STRUCT 'V' size=4 vlen=1
	'v1' type_id=1 bits_offset=0
[7] STRUCT 'U' size=8 vlen=2
	'u1' type_id=1 bits_offset=0
	'u2' type_id=6 bits_offset=32
[8] TYPEDEF 'myint' type_id=1
[9] FUNC_PROTO '(anon)' ret_type_id=1 vlen=2
	'x' type_id=1
	'y' type_id=1
[10] FUNC 'f' type_id=9 linkage=static
`

// TestGNUAnnotations encodes gcc 16's annotations (a fixture written by
// hand, see its header) and compares the result with pahole's.
func TestGNUAnnotations(t *testing.T) {
	obj := buildPaholeFixture(t, "gcc", "gnuannot.S")
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"default", nil, gnuAnnotWant},
		{"no tags", []string{"--btf_features=encode_force,var,float"}, gnuAnnotWantNoTags},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.btf")
			mustGobtf(t, append(append([]string{"-J"}, tc.flags...), "--btf_encode_detached="+out, obj)...)
			got, _, _, err := runGobtf("dump", out)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("gobtf -J %s:\n%s\nwant (pahole):\n%s", strings.Join(tc.flags, " "), got, tc.want)
			}
		})
	}
}
