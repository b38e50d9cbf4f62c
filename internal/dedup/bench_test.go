package dedup

import (
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// BenchmarkDedupVmlinux deduplicates the undeduplicated vmlinux BTF (3.4 M
// types). It needs the shared reference data and skips without it.
func BenchmarkDedupVmlinux(b *testing.B) {
	spec := parseFile(b, testutil.Reference(b, testutil.VmlinuxName+".undeduped.btf.xz"), nil)
	// "copy" is Dedup as a library call that leaves its input alone (it
	// copies the 131 MB word stream first); "in-place" is what gobtf dedup
	// does, with the input cloned outside the timer.
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, _, err := Dedup(spec, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if out.NumTypes() != 94547 {
				b.Fatalf("got %d types, want 94547", out.NumTypes())
			}
		}
	})
	b.Run("in-place", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			in := spec.Clone()
			b.StartTimer()
			out, _, err := Dedup(in, Options{InPlace: true})
			if err != nil {
				b.Fatal(err)
			}
			if out.NumTypes() != 94547 {
				b.Fatalf("got %d types, want 94547", out.NumTypes())
			}
		}
	})
}

// BenchmarkPrepareBase prepares the kernel-build vmlinux BTF (95 k types) as
// a base, what gobtf does before deduplicating each module. It needs the
// shared reference data and skips without it.
func BenchmarkPrepareBase(b *testing.B) {
	base := parseFile(b, testutil.Reference(b, testutil.VmlinuxName+".kbuild.btf"), nil)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := PrepareBase(base, Options{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
