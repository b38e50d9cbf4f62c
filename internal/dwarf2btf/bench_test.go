package dwarf2btf

import (
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// BenchmarkEncodeVmlinux converts the shared vmlinux with the kernel build's
// features on one converter, the conversion's CPU cost without the
// scheduling of -j and, after the first iteration, on memory the process
// already holds (gobtf's own runs start on fresh memory; see README).
func BenchmarkEncodeVmlinux(b *testing.B) {
	vmlinux := testutil.Corpus(b, testutil.VmlinuxName)
	opts := &Options{Features: featuresNamed(b, kbuildFeatures), Jobs: 1}
	b.ReportAllocs()
	for b.Loop() {
		s, err := Encode(vmlinux, opts, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(s.NumTypes()), "types")
	}
}
