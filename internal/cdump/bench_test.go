package cdump_test

import (
	"io"
	"os"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/cdump"
	"github.com/gobtf/gobtf/internal/testutil"
)

// BenchmarkVmlinux prints the reference vmlinux BTF as a header (the BTF is
// decoded once, outside the loop).
func BenchmarkVmlinux(b *testing.B) {
	data, err := os.ReadFile(testutil.Reference(b, testutil.VmlinuxName+".kbuild.btf"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := btf.Parse(data, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := cdump.Write(io.Discard, s); err != nil {
			b.Fatal(err)
		}
	}
}
