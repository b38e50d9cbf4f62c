package dwarf2btf

import (
	"slices"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// encodeWith is Encode with pipe beside the conversion.
func encodeWith(path string, opts *Options, pipe *Pipeline) (*btf.Spec, error) {
	in, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return in.Encode(opts, nil, pipe, nil)
}

// TestConverting checks that Encode calls Pipeline.Converting exactly once, on
// an input with units to convert, before it returns, and tells a merged
// conversion (an LTO program) from a plain one.
func TestConverting(t *testing.T) {
	obj := buildFixture(t, "gcc", "plain.c")
	for _, jobs := range []int{1, 2} {
		calls := 0
		s, err := encodeWith(obj, &Options{Features: DefaultFeatures(), Jobs: jobs}, &Pipeline{Converting: func(merged bool) {
			if merged {
				t.Error("a plain program reported as merged")
			}
			calls++
		}})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 1 || s.NumTypes() == 0 {
			t.Errorf("-j%d: Converting called %d times (%d types encoded), want once", jobs, calls, s.NumTypes())
		}
	}
}

// TestConvertingMerged checks that an LTO program, whose units refer into
// each other, is reported as merged.
func TestConvertingMerged(t *testing.T) {
	bin := buildFixture(t, "gcc", "lto_a.c")
	var got []bool
	pipe := &Pipeline{Converting: func(merged bool) { got = append(got, merged) }}
	if _, err := encodeWith(bin, &Options{Features: DefaultFeatures(), Jobs: 2}, pipe); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0] {
		t.Errorf("Converting calls %v, want one with merged set", got)
	}
}

// TestJoinedReportsFinalTypes checks Pipeline.Joined's promise, on which
// a dedup.Stream relies: each report shows more types than the last, the
// types shown are final (the output's types at the end start with them,
// word for word), and the functions are reported as they are encoded, not
// only the units' types.
func TestJoinedReportsFinalTypes(t *testing.T) {
	defer func(n int) { namesPerReport = n }(namesPerReport)
	namesPerReport = 1
	for _, cc := range []string{"gcc", "clang"} {
		t.Run(cc, func(t *testing.T) {
			bin := buildFixture(t, cc, "plain.c")
			type report struct{ words, offs []uint32 }
			var reports []report
			opts := &Options{Features: DefaultFeatures(), Jobs: 2}
			out, err := encodeWith(bin, opts, &Pipeline{Joined: func(out *btf.Spec) {
				reports = append(reports, report{slices.Clone(out.Words()), slices.Clone(out.TypeOffsets())})
			}})
			if err != nil {
				t.Fatal(err)
			}
			if len(reports) == 0 {
				t.Fatal("Joined was never called")
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
