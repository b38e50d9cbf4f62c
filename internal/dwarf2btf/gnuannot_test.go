package dwarf2btf

import "testing"

// TestGNUAnnotationChain follows chains of annotation entries: in order,
// stopping where fn says, at an offset that is no annotation, and after as
// many entries as there are when the chain loops (corrupt input; pahole
// would follow it forever).
func TestGNUAnnotationChain(t *testing.T) {
	g := gnuAnnotations{annots: map[uint64]gnuAnnot{
		10: {value: "a", next: 20},
		20: {value: "b", next: 30}, // 30 is no annotation
		40: {value: "c", next: 50},
		50: {value: "d", next: 40}, // a loop
	}}
	for _, tc := range []struct {
		from    uint64
		stopAt  string
		visited string
	}{
		{10, "", "ab"},
		{20, "", "b"},
		{10, "a", "a"},
		{30, "", ""},
		{0, "", ""},
		{40, "", "cdcd"},
	} {
		got := ""
		g.chain(tc.from, func(a *gnuAnnot) bool {
			got += a.value
			return a.value != tc.stopAt
		})
		if got != tc.visited {
			t.Errorf("chain from %d (stop at %q): visited %q, want %q", tc.from, tc.stopAt, got, tc.visited)
		}
	}
}
