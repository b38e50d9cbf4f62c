package core

import (
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/testutil"
)

// moduleKernel is a vmlinux with struct fs {name} and a module split on it
// with its own struct fs {a, b} (named like the vmlinux's), a struct dev
// {id, fs} embedding it, and nothing else.
func moduleKernel() (vm, mod *btf.Spec) {
	vm = btf.NewSpec(nil)
	i := vm.AddInt("int", 4, btf.IntSigned, 32)
	l := vm.AddInt("long", 8, btf.IntSigned, 64)
	vm.AddStruct(false, "fs", 8, []btf.MemberSpec{{Name: "name", Type: l}})
	mod = btf.NewSpec(vm)
	fs := mod.AddStruct(false, "fs", 16, []btf.MemberSpec{{Name: "a", Type: l}, {Name: "b", Type: l, BitOffset: 64}})
	mod.AddStruct(false, "dev", 24, []btf.MemberSpec{{Name: "id", Type: i}, {Name: "fs", Type: fs, BitOffset: 64}})
	return vm, mod
}

// moduleObject reads dev.fs.b (only the module has dev), fs___l.b (the
// vmlinux has an fs, without b: the module's fs is never searched),
// fs.name, and a struct none that nothing has.
func moduleObject(t testing.TB, readName bool) *btfext.Object {
	t.Helper()
	s := btf.NewSpec(nil)
	l := s.AddInt("long", 8, btf.IntSigned, 64)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	fsl := s.AddStruct(false, "fs___l", 8, []btf.MemberSpec{{Name: "b", Type: l}})
	dev := s.AddStruct(false, "dev", 16, []btf.MemberSpec{{Name: "id", Type: i}, {Name: "fs", Type: fsl, BitOffset: 64}})
	fs := s.AddStruct(false, "fs", 8, []btf.MemberSpec{{Name: "name", Type: l}})
	none := s.AddStruct(false, "none", 8, []btf.MemberSpec{{Name: "x", Type: l}})
	sec := s.AddString("prog")
	var recs []testutil.CoreReloRecord
	for k, r := range []struct {
		id  btf.TypeID
		acc string
	}{{dev, "0:1:0"}, {fsl, "0:0"}, {fs, "0:0"}, {none, "0:0"}} {
		if r.id == fs && !readName {
			continue
		}
		recs = append(recs, testutil.CoreReloRecord{InsnOff: uint32(8 * k), TypeID: r.id, AccessStrOff: s.AddString(r.acc), Kind: uint32(btfext.FieldByteOffset)})
	}
	ext, err := btfext.Parse(testutil.BTFExt([]uint32{sec}, [][]testutil.CoreReloRecord{recs}))
	if err != nil {
		t.Fatal(err)
	}
	return btfext.NewObject("mod.o", s, 8, ext)
}

// TestMinimizeModules: candidates are searched in the vmlinux first and
// in the module only where the vmlinux has none; the standalone output
// renames the module's fs, which the output must keep (dev embeds it), so
// that it is no candidate for fs___l, and relocates every relocation as
// the kernel does; the split output keeps the module's fs as it is, in the
// module's file.
func TestMinimizeModules(t *testing.T) {
	vm, mod := moduleKernel()
	newMZ := func() *Minimizer {
		mz := NewMinimizer(NewTarget("vmlinux", vm, 8), NewTarget("m", mod, 8))
		if _, err := mz.Add(moduleObject(t, true)); err != nil {
			t.Fatal(err)
		}
		return mz
	}
	mz := newMZ()
	want := []struct {
		outcome  Outcome
		searched int
		val      uint64
	}{{Resolved, 2, 16}, {NoMatch, 1, 0}, {Resolved, 1, 0}, {NoCandidate, 2, 0}}
	for k, r := range mz.Objects[0].Relocs {
		if w := want[k]; r.Outcome != w.outcome || len(r.Searched) != w.searched || (w.outcome == Resolved && r.New.Val != w.val) {
			t.Errorf("relocation #%d: %v, %d target(s) searched, value %d; want %v, %d, %d", k, r.Outcome, len(r.Searched), r.New.Val, w.outcome, w.searched, w.val)
		}
	}
	out, err := mz.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Mismatches) != 0 {
		t.Errorf("%d relocation(s) relocated otherwise by the output", len(out.Mismatches))
	}
	if len(out.Renamed) != 1 || out.Renamed[0].Name != "fs" || out.Renamed[0].NewName != "m__fs" {
		t.Errorf("renamed %+v, want the module's fs as m__fs", out.Renamed)
	}
	names := map[string]int{}
	for k := range out.Spec.NumTypes() {
		names[out.Spec.Name(out.Spec.Own(k))]++
	}
	if names["fs"] != 1 || names["m__fs"] != 1 || names["dev"] != 1 {
		t.Errorf("output types by name: %v", names)
	}
	// Against the output alone, as libbpf reads btf_custom_path.
	rl := NewRelocator(&Types{Spec: mz.Objects[0].Object.BTF, PtrSize: 8}, []*Target{NewTarget("out", out.Spec, 8)})
	for k, rr := range mz.Objects[0].Relocs {
		got, err := rl.Relocate(rr.Section, rr.Index, rr.Reloc)
		if err != nil {
			t.Fatal(err)
		}
		if (got.Outcome == Resolved) != (rr.Outcome == Resolved) || got.New.Val != rr.New.Val {
			t.Errorf("relocation #%d against the output: %v value %d; against the kernel %v value %d", k, got.Outcome, got.New.Val, rr.Outcome, rr.New.Val)
		}
	}

	split, err := newMZ().BuildSplit()
	if err != nil {
		t.Fatal(err)
	}
	if len(split.Renamed) != 0 || len(split.Mismatches) != 0 || len(split.Modules) != 1 {
		t.Fatalf("split: %d renamed, %d mismatches, %d module(s)", len(split.Renamed), len(split.Mismatches), len(split.Modules))
	}
	m := split.Modules[0]
	if m.Base() != split.Spec || m.NumTypes() != 2 || m.Name(m.Own(0)) != "fs" || m.Name(m.Own(1)) != "dev" {
		t.Errorf("split module: %d types on its base", m.NumTypes())
	}
}

// TestMinimizeModulesStop: with no relocation keeping the vmlinux's fs
// (fs.name is not read), the output still stops the search for fs___l at
// the vmlinux, as the kernel does: the split output keeps the vmlinux's fs
// without members, and the module's own fs (kept for dev) is not
// searched.
func TestMinimizeModulesStop(t *testing.T) {
	vm, mod := moduleKernel()
	for _, split := range []bool{false, true} {
		mz := NewMinimizer(NewTarget("vmlinux", vm, 8), NewTarget("m", mod, 8))
		if _, err := mz.Add(moduleObject(t, false)); err != nil {
			t.Fatal(err)
		}
		build := mz.Build
		if split {
			build = mz.BuildSplit
		}
		out, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Mismatches) != 0 {
			m := out.Mismatches[0]
			t.Errorf("split=%v: %s relocated otherwise by the output: %v %d", split, m.Reloc.Local, m.Got.Outcome, m.Got.New.Val)
		}
		if fs := out.Spec.Type(out.IDs[3]); out.IDs[3] == 0 || fs.Vlen() != 0 {
			t.Errorf("split=%v: the vmlinux's fs is not kept without members", split)
		}
	}
}
