package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// globals is C source defining n global ints (all in .bss).
func globals(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "int v%d;\n", i)
	}
	return b.String()
}

// params is C source defining a function f of n int parameters.
func params(n int) string {
	var b strings.Builder
	b.WriteString("int f(")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "int a%d", i)
	}
	b.WriteString(") { return a0; }\n")
	return b.String()
}

// TestVlenLimits: kernels before 7.1 read a type's vlen in 16 bits, so what
// gobtf converts keeps to 65,535 elements a type. A DATASEC (with
// global_var, every global of a section) and a function's FUNC_PROTO of
// 65,535 entries are encoded whole; one more is an error naming the file
// and the section or function, where gobtf used to crash on the DATASEC and
// give an internal word-count error on the function.
func TestVlenLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: compiles C files of 65,535 and 65,536 globals and parameters")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = btf.MaxEncodedVlen
	tests := []struct {
		name  string
		src   string
		flags string
		kind  btf.Kind // on success, the one type of this kind must have vlen n
		want  string   // the error, or "" for success
	}{
		{name: "65535 globals", src: globals(n), flags: "--btf_features=var,global_var", kind: btf.KindDatasec},
		{name: "65536 globals", src: globals(n + 1), flags: "--btf_features=var,global_var",
			want: `section \.bss: 65536 variables, more than BTF's limit of 65535 in one DATASEC`},
		{name: "65535 parameters", src: params(n), flags: "--btf_features=default", kind: btf.KindFuncProto},
		{name: "65536 parameters", src: params(n + 1), flags: "--btf_features=default",
			want: `function f: 65536 parameters, more than BTF's limit of 65535`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := testutil.CompileC(t, dir, tc.src, "-O0", "-fno-common")
			out := filepath.Join(dir, "out.btf")
			r := runChild(t, exe, nil, "-J", tc.flags, "--btf_encode_detached="+out, in)
			if tc.want != "" {
				expectFailure(t, r, in, tc.want)
				if _, err := os.Stat(out); err == nil {
					t.Error("output written despite the error")
				}
				return
			}
			if r.code != 0 {
				t.Fatalf("exit status %d: %s", r.code, r.stderr)
			}
			s := parseBTFFile(t, out, nil)
			var vlens []int
			for id := btf.TypeID(1); int(id) <= s.NumTypes(); id++ {
				if typ := s.Type(id); typ.Kind() == tc.kind {
					vlens = append(vlens, typ.Vlen())
				}
			}
			if len(vlens) != 1 || vlens[0] != n {
				t.Errorf("%v vlens %v, want one of %d", tc.kind, vlens, n)
			}
		})
	}
}
