package btf_test

import (
	"os"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

func benchmarkRoundTrip(b *testing.B, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := btf.Parse(data, nil)
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Marshal(s.ByteOrder())
	}
}

// BenchmarkRoundTripVmlinux decodes and re-encodes the deduplicated
// reference vmlinux BTF (94,547 types).
func BenchmarkRoundTripVmlinux(b *testing.B) {
	benchmarkRoundTrip(b, testutil.Reference(b, testutil.VmlinuxName+".kbuild.btf"))
}

// BenchmarkRoundTripUndeduplicated decodes and re-encodes the 3.4 M-type
// one-to-one conversion of the vmlinux.
func BenchmarkRoundTripUndeduplicated(b *testing.B) {
	benchmarkRoundTrip(b, testutil.Reference(b, testutil.VmlinuxName+".undeduped.btf.xz"))
}
