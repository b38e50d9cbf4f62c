package dedup

import (
	"os"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// BenchmarkDedupVmlinux deduplicates the undeduplicated vmlinux BTF (3.4 M
// types). It needs the shared reference data and skips without it.
func BenchmarkDedupVmlinux(b *testing.B) {
	path := testutil.Reference(b, testutil.VmlinuxName+".undeduped.btf.xz")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	spec, err := btf.Parse(data, nil)
	if err != nil {
		b.Fatal(err)
	}
	data = nil
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, _, err := Dedup(spec, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if out.NumTypes() != 94547 {
			b.Fatalf("got %d types, want 94547", out.NumTypes())
		}
	}
}
