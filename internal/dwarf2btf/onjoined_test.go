package dwarf2btf

import (
	"slices"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestOnJoinedReportsFinalTypes checks Options.OnJoined's promise, on which
// a dedup.Stream relies: each report shows more types than the last, the
// types shown are final (the output's types at the end start with them,
// word for word), and the functions are reported as they are encoded, not
// only the units' types.
func TestOnJoinedReportsFinalTypes(t *testing.T) {
	defer func(n int) { namesPerReport = n }(namesPerReport)
	namesPerReport = 1
	for _, cc := range []string{"gcc", "clang"} {
		t.Run(cc, func(t *testing.T) {
			bin := buildFixture(t, cc, "plain.c")
			type report struct{ words, offs []uint32 }
			var reports []report
			opts := &Options{Features: NewFeatureSet().Features, Jobs: 2}
			opts.OnJoined = func(out *btf.Spec) {
				reports = append(reports, report{slices.Clone(out.Words()), slices.Clone(out.TypeOffsets())})
			}
			out, err := Encode(bin, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(reports) == 0 {
				t.Fatal("OnJoined was never called")
			}
			final := out.Words()
			for i, r := range reports {
				if i > 0 && len(r.offs) <= len(reports[i-1].offs) {
					t.Errorf("report %d: %d types, after %d", i, len(r.offs), len(reports[i-1].offs))
				}
				if len(r.words) > len(final) || !slices.Equal(r.words, final[:len(r.words)]) {
					t.Errorf("report %d (%d types): its words are not the start of the output's", i, len(r.offs))
				}
			}
			last := reports[len(reports)-1]
			funcs := 0
			for _, off := range last.offs {
				if btf.InfoKind(last.words[off+1]) == btf.KindFunc {
					funcs++
				}
			}
			if funcs == 0 {
				t.Errorf("the last report (%d of %d types) holds no FUNC: the functions were not reported", len(last.offs), out.NumTypes())
			}
		})
	}
}
