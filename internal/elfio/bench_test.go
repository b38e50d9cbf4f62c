package elfio

import (
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// BenchmarkOpenDWARF opens the shared vmlinux, gets its DWARF sections
// and closes it.
func BenchmarkOpenDWARF(b *testing.B) {
	path := testutil.Corpus(b, testutil.VmlinuxName)
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		d, err := f.DWARFSections()
		if err != nil || len(d.Info) == 0 {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkSymbols decodes the shared vmlinux's symbol table.
func BenchmarkSymbols(b *testing.B) {
	f, err := Open(testutil.Corpus(b, testutil.VmlinuxName))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		syms, err := f.Symbols()
		if err != nil || len(syms) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkModuleDWARF opens xfs.ko and relocates its DWARF sections.
func BenchmarkModuleDWARF(b *testing.B) {
	path := testutil.Corpus(b, "modules/xfs.ko")
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.DWARFSections(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
