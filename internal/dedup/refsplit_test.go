package dedup

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// splitSmall makes the reference pass split inputs of any size, looking
// for unit boundaries within a few dozen types, until the returned function
// is called.
func splitSmall() (restore func()) {
	minTypes, window := refSplitMin, refSplitWindow
	refSplitMin, refSplitWindow = 0, 48
	return func() { refSplitMin, refSplitWindow = minTypes, window }
}

// ptrs returns the own PTRs of s whose target is not a reference type, in
// ID order: pointing one PTR at another of them makes no cycle.
func ptrs(s *btf.Spec) []btf.TypeID {
	var out []btf.TypeID
	for id := s.FirstID(); id < s.FirstID()+btf.TypeID(s.NumTypes()); id++ {
		t := s.Type(id)
		if btf.InfoKind(t[1]) != btf.KindPtr || t[2] == 0 {
			continue
		}
		switch btf.InfoKind(s.Type(btf.TypeID(t[2]))[1]) {
		case btf.KindStruct, btf.KindUnion, btf.KindFwd, btf.KindInt:
			out = append(out, id)
		}
	}
	return out
}

// withFunctions appends to s what converted BTF ends with: functions whose
// prototypes reference types of every unit.
func withFunctions(s *btf.Spec, seed uint64, n int) *btf.Spec {
	r := rand.New(rand.NewPCG(seed, 1))
	last := s.FirstID() + btf.TypeID(s.NumTypes()) - 1
	if last == 0 {
		return s
	}
	for i := range n {
		var params []btf.ParamSpec
		for j := range r.IntN(4) {
			params = append(params, btf.ParamSpec{Name: fmt.Sprintf("p%d", j), Type: 1 + btf.TypeID(r.IntN(int(last)))})
		}
		ret := btf.TypeID(0)
		if r.IntN(2) == 0 {
			ret = 1 + btf.TypeID(r.IntN(int(last)))
		}
		// Every other function has the prototype of the one before.
		proto := s.AddFuncProto(ret, params)
		s.AddFunc(fmt.Sprintf("fn%d", i), proto, btf.LinkageGlobal)
		if i%2 == 1 {
			s.AddFunc(fmt.Sprintf("fn%d_again", i), proto, btf.LinkageStatic)
		}
	}
	return s
}

// repoint points own PTR from (index into ptrs) at the target PTR to.
func repoint(s *btf.Spec, from, to float64) *btf.Spec {
	p := ptrs(s)
	a, b := p[int(from*float64(len(p)-1))], p[int(to*float64(len(p)-1))]
	s.Type(a)[2] = uint32(b)
	return s
}

// cycle points two own PTRs near position at (0 to 1, in ptrs) at each
// other: a cycle of reference types, which the reference pass rejects.
func cycle(s *btf.Spec, at float64) *btf.Spec {
	p := ptrs(s)
	i := int(at * float64(len(p)-2))
	s.Type(p[i])[2], s.Type(p[i+1])[2] = uint32(p[i+1]), uint32(p[i])
	return s
}

// TestRefSplit compares the split reference pass (refsplit.go) with the
// serial one, byte for byte, in both libbpf modes and with 2 to 8 regions:
// where every region's walk finishes, where walks stop at the functions at
// the end or at a reference back in the middle, where the plan fails (a
// reference into a later region), and where the input has a cycle of
// reference types, whose error must be the serial pass's.
func TestRefSplit(t *testing.T) {
	defer splitSmall()()
	cases := []struct {
		name  string
		in    func() *btf.Spec
		split bool // the plan holds
		stops bool // some region's walk stops
	}{
		{"units", func() *btf.Spec { return genInput(5, 40, 12) }, true, false},
		{"units and functions", func() *btf.Spec { return withFunctions(genInput(6, 40, 12), 6, 60) }, true, true},
		{"back reference in the middle", func() *btf.Spec { return repoint(genInput(7, 40, 12), 0.6, 0.1) }, true, true},
		{"back reference at the end", func() *btf.Spec { return repoint(genInput(8, 40, 12), 1, 0) }, true, true},
		{"reference into a later region", func() *btf.Spec { return repoint(genInput(9, 40, 12), 0.1, 0.9) }, false, false},
		{"cycle late", func() *btf.Spec { return cycle(genInput(10, 40, 12), 0.9) }, true, false},
		{"cycles early and late", func() *btf.Spec { return cycle(cycle(genInput(11, 40, 12), 0.9), 0.1) }, true, false},
	}
	for _, tc := range cases {
		for _, legacy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/legacy=%v", tc.name, legacy), func(t *testing.T) {
				in := reparse(t, tc.in(), nil)
				want, _, wantErr := Dedup(in, Options{Workers: 1, Libbpf112: legacy})
				for _, workers := range []int{2, 3, 8} {
					d, got, _, err := run(in, Options{Workers: workers, Libbpf112: legacy})
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Fatalf("%d workers: error %v, serially %v", workers, err, wantErr)
					}
					if err != nil {
						continue
					}
					if (d.split != nil) != tc.split {
						t.Fatalf("%d workers: split plan used: %v, want %v", workers, d.split != nil, tc.split)
					}
					if d.split != nil && (d.split.stopped > 0) != tc.stops {
						t.Fatalf("%d workers: %d regions stopped, want some: %v", workers, d.split.stopped, tc.stops)
					}
					w, g := want.Marshal(binary.LittleEndian), got.Marshal(binary.LittleEndian)
					if !bytes.Equal(w, g) {
						t.Fatalf("%d workers: output differs from the serial pass's; %s", workers, testutil.FirstDiff(dump(t, got), dump(t, want)))
					}
				}
			})
		}
	}
}

// FuzzRefSplit is the open-ended version of TestRefSplit: random units,
// functions after them, and references moved across units.
func FuzzRefSplit(f *testing.F) {
	f.Add(uint64(1), uint8(20), uint8(8), uint8(10), uint8(0), uint8(0))
	f.Add(uint64(2), uint8(40), uint8(12), uint8(0), uint8(60), uint8(10))
	f.Add(uint64(3), uint8(30), uint8(5), uint8(30), uint8(10), uint8(90))
	f.Fuzz(func(t *testing.T, seed uint64, units, structs, funcs, from, to uint8) {
		defer splitSmall()()
		s := genInput(seed, 2+int(units%60), 1+int(structs%30))
		if funcs%2 == 1 {
			s = withFunctions(s, seed, int(funcs))
		}
		if from != to && len(ptrs(s)) > 1 {
			s = repoint(s, float64(from)/255, float64(to)/255)
		}
		in := reparse(t, s, nil)
		for _, legacy := range []bool{false, true} {
			want, _, wantErr := Dedup(in, Options{Workers: 1, Libbpf112: legacy})
			got, _, err := Dedup(in, Options{Workers: 4, Libbpf112: legacy})
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("legacy=%v: error %v, serially %v", legacy, err, wantErr)
			}
			if err == nil && !bytes.Equal(want.Marshal(binary.LittleEndian), got.Marshal(binary.LittleEndian)) {
				t.Fatalf("legacy=%v: output differs from the serial pass's; %s", legacy, testutil.FirstDiff(dump(t, got), dump(t, want)))
			}
		}
	})
}
