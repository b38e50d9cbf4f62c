package funcs

import (
	"testing"

	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// BenchmarkElfFuncsVmlinux builds the function table of the shared vmlinux
// from its symbols, as every conversion of it does beside the indexing of
// its units.
func BenchmarkElfFuncsVmlinux(b *testing.B) {
	f, err := elfio.Open(testutil.Corpus(b, testutil.VmlinuxName))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		b.Fatal(err)
	}
	opts := &Options{}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewTable(&ELF{Symbols: syms}, opts); err != nil {
			b.Fatal(err)
		}
	}
}
