package merge

import (
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/testutil"
)

// BenchmarkMerge merges the shared vmlinux BTF and xfs's split BTF.
func BenchmarkMerge(b *testing.B) {
	vf, err := btffile.Open(testutil.Reference(b, testutil.VmlinuxName+".kbuild.btf"), btffile.Options{})
	if err != nil {
		b.Fatal(err)
	}
	mf, err := btffile.Open(testutil.Reference(b, "modules/xfs.btf"), btffile.Options{Base: vf.Spec})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Merge(vf.Spec, []*btf.Spec{mf.Spec}); err != nil {
			b.Fatal(err)
		}
	}
}
