package encoder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/pahole"
	"github.com/gobtf/gobtf/internal/testutil"
)

// kbuildFeatures is the feature list the kernel's build passes to pahole
// for the shared kernel, with which the reference BTF was made.
const kbuildFeatures = "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes"

// kbuildOptions returns Encode's options for a module build as Kbuild runs
// pahole, on base.
func kbuildOptions(t *testing.T, base, detached string) Options {
	t.Helper()
	fs := pahole.NewFeatureSet()
	if err := fs.ApplyList(kbuildFeatures, true); err != nil {
		t.Fatal(err)
	}
	rust, err := pahole.ParseLanguages("rust")
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Convert: dwarf2btf.Options{
			Features:  fs.Features,
			Jobs:      2,
			Languages: dwarf2btf.LanguageFilter{IDs: rust, Exclude: true},
		},
		Base:     base,
		Detached: detached,
	}
}

// TestEncodeModules runs Encode from Go, without the command line, on two
// shared modules as split BTF on pahole's kernel BTF and compares the
// output's types, with their IDs, with pahole's split BTF of the module.
func TestEncodeModules(t *testing.T) {
	basePath := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	base := testutil.ParseFile(t, basePath, nil)
	for _, m := range []string{"nls_utf8", "tcp_bbr"} {
		t.Run(m, func(t *testing.T) {
			ko := testutil.Corpus(t, "modules/"+m+".ko")
			out := filepath.Join(t.TempDir(), m+".btf")
			st, err := Encode(context.Background(), ko, kbuildOptions(t, basePath, out))
			if err != nil {
				t.Fatal(err)
			}
			if !st.Written || st.Dedup == nil || st.TypesOut == 0 {
				t.Errorf("stats: written %v, dedup %v, %d types", st.Written, st.Dedup != nil, st.TypesOut)
			}
			got := testutil.DumpSplitFile(t, out, base)
			want := testutil.DumpSplitFile(t, testutil.Reference(t, "modules/"+m+".btf"), base)
			if d := testutil.FirstDiff(got, want); d != "" {
				t.Errorf("gobtf's split BTF differs from pahole's: %s", d)
			}
		})
	}
}

// TestEncodeErrors checks that Encode fails before reading its input on a
// canceled context (with the context's error) and on the distilled_base
// feature without a base. (A file without DWARF is covered by
// TestEncodeNoDWARF in cmd/gobtf.)
func TestEncodeErrors(t *testing.T) {
	dir := t.TempDir()
	noDWARF := filepath.Join(dir, "nodwarf")
	if err := os.WriteFile(noDWARF, []byte("not an ELF file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	var distilled Options
	distilled.Convert.Features.DistilledBase = true
	for _, tc := range []struct {
		name string
		ctx  context.Context
		path string
		opts Options
		is   error
	}{
		{"canceled", canceled, noDWARF, Options{}, context.Canceled},
		{"distilled without base", context.Background(), noDWARF, distilled, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encode(tc.ctx, tc.path, tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
}
