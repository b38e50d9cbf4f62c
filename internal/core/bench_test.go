package core

import (
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// kernelTarget reads the shared vmlinux BTF.
func kernelTarget(b *testing.B) *btf.Spec {
	data, err := elfio.ReadBTF(testutil.Reference(b, testutil.VmlinuxName+".kbuild.btf"))
	if err != nil {
		b.Fatal(err)
	}
	spec, err := btf.Parse(data, nil)
	if err != nil {
		b.Fatal(err)
	}
	return spec
}

// BenchmarkTargetIndex: the essential-name index of a kernel's BTF, built
// once per target.
func BenchmarkTargetIndex(b *testing.B) {
	spec := kernelTarget(b)
	b.ReportAllocs()
	for b.Loop() {
		t := NewTarget("vmlinux", spec, 8)
		t.index()
	}
}

// BenchmarkMinimize: an object reading task_struct fields through a
// flavor, minimized against a kernel's BTF (the index included).
func BenchmarkMinimize(b *testing.B) {
	spec := kernelTarget(b)
	l := btf.NewSpec(nil)
	i := l.AddInt("int", 4, btf.IntSigned, 32)
	c := l.AddInt("char", 1, 0, 8)
	comm := l.AddArray(c, i, 16)
	task := l.AddStruct(false, "task_struct___l", 32, []btf.MemberSpec{
		{Name: "pid", Type: i}, {Name: "tgid", Type: i, BitOffset: 32}, {Name: "comm", Type: comm, BitOffset: 64},
	})
	sec := l.AddString("kprobe/x")
	var recs []testutil.CoreReloRecord
	for k, a := range []string{"0:0", "0:1", "0:2", "0:2:3"} {
		recs = append(recs, testutil.CoreReloRecord{InsnOff: uint32(8 * k), TypeID: task, AccessStrOff: l.AddString(a)})
	}
	recs = append(recs, testutil.CoreReloRecord{InsnOff: 40, TypeID: task, AccessStrOff: l.AddString("0"), Kind: uint32(btfext.TypeSize)})
	ext, err := btfext.Parse(testutil.BTFExt([]uint32{sec}, [][]testutil.CoreReloRecord{recs}))
	if err != nil {
		b.Fatal(err)
	}
	obj := btfext.NewObject("o", l, 8, ext)
	b.ReportAllocs()
	for b.Loop() {
		mz := NewMinimizer(NewTarget("vmlinux", spec, 8))
		if _, err := mz.Add(obj); err != nil {
			b.Fatal(err)
		}
		out, err := mz.Build()
		if err != nil || out.Spec.NumTypes() == 0 {
			b.Fatal(err)
		}
	}
}
