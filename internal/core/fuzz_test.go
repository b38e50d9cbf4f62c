package core

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/testutil"
)

// richTarget has a type of every kind relocations reach: bitfields, an
// anonymous union, arrays of structs, a flexible array, tagged pointers,
// a FWD behind a typedef, enums of both widths, a function prototype and
// the kinds nothing refers to (FUNC, DECL_TAG).
func richTarget() *btf.Spec {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)             // 1
	u := s.AddInt("unsigned int", 4, 0, 32)                // 2
	l := s.AddInt("long", 8, btf.IntSigned, 64)            // 3
	in := s.AddStruct(false, "inner", 8, []btf.MemberSpec{ // 4
		{Name: "a", Type: i}, {Name: "flags", Type: u, BitOffset: 32, BitfieldSize: 3}, {Name: "mode", Type: u, BitOffset: 35, BitfieldSize: 5},
	})
	un := s.AddStruct(true, "", 8, []btf.MemberSpec{{Name: "x", Type: i}, {Name: "y", Type: l}}) // 5
	arr := s.AddArray(in, u, 4)                                                                  // 6
	tag := s.AddTypeTag("user", i, false)                                                        // 7
	tp := s.AddRef(btf.KindPtr, "", tag)                                                         // 8
	fwd := s.AddFwd("opaque", false)                                                             // 9
	fp := s.AddRef(btf.KindPtr, "", fwd)                                                         // 10
	flex := s.AddArray(i, u, 0)                                                                  // 11
	task := s.AddStruct(false, "task", 80, []btf.MemberSpec{                                     // 12
		{Name: "pid", Type: i}, {Type: un, BitOffset: 64}, {Name: "in", Type: in, BitOffset: 128},
		{Name: "arr", Type: arr, BitOffset: 192}, {Name: "uptr", Type: tp, BitOffset: 448},
		{Name: "op", Type: fp, BitOffset: 512}, {Name: "tail", Type: flex, BitOffset: 576},
	})
	s.AddRef(btf.KindTypedef, "task_t", task)                                                                 // 13
	s.AddRef(btf.KindTypedef, "opaque_p", fp)                                                                 // 14
	s.AddEnum("mode", 4, false, false, []btf.EnumValueSpec{{Name: "M_A", Value: 1}, {Name: "M_B", Value: 2}}) // 15
	s.AddEnum("wide", 8, false, true, []btf.EnumValueSpec{{Name: "W_BIG", Value: 1 << 40}})                   // 16
	proto := s.AddFuncProto(i, []btf.ParamSpec{{Name: "t", Type: s.AddRef(btf.KindPtr, "", task)}})           // 17 ptr, 18
	s.AddFunc("fn", proto, btf.LinkageGlobal)                                                                 // 19
	s.AddDeclTag("tag", task, -1, false)                                                                      // 20
	return s
}

// richObject is an object reading richTarget through flavors, with one
// relocation of each kind.
func richObject() (*btf.Spec, []byte) {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	u := s.AddInt("unsigned int", 4, 0, 32)
	in := s.AddStruct(false, "inner___l", 8, []btf.MemberSpec{{Name: "a", Type: i}, {Name: "mode", Type: u, BitOffset: 32, BitfieldSize: 5}})
	arr := s.AddArray(in, u, 4)
	tag := s.AddTypeTag("user", i, false)
	tp := s.AddRef(btf.KindPtr, "", tag)
	task := s.AddStruct(false, "task___l", 64, []btf.MemberSpec{
		{Name: "pid", Type: i}, {Name: "x", Type: i, BitOffset: 32}, {Name: "in", Type: in, BitOffset: 64},
		{Name: "arr", Type: arr, BitOffset: 128}, {Name: "uptr", Type: tp, BitOffset: 384}, {Name: "absent", Type: i, BitOffset: 448},
	}) // 7
	td := s.AddRef(btf.KindTypedef, "task_t", task)                                                                        // 8
	e := s.AddEnum("mode___l", 4, false, false, []btf.EnumValueSpec{{Name: "M_B___l", Value: 0}, {Name: "M_C", Value: 1}}) // 9
	w := s.AddEnum("wide", 8, false, true, []btf.EnumValueSpec{{Name: "W_BIG", Value: 0}})                                 // 10
	fwd := s.AddFwd("opaque", false)
	fp := s.AddRef(btf.KindPtr, "", fwd)
	op := s.AddRef(btf.KindTypedef, "opaque_p", fp) // 13
	sec := s.AddString("kprobe/x")
	relocs := []struct {
		id     btf.TypeID
		access string
		kind   btfext.RelocKind
	}{
		{task, "0:0", btfext.FieldByteOffset},
		{task, "0:1", btfext.FieldExists},      // x: in the anonymous union
		{task, "0:2:1", btfext.FieldLShiftU64}, // in.mode
		{task, "0:2:1", btfext.FieldRShiftU64},
		{task, "0:2:1", btfext.FieldByteSize},
		{task, "0:2:1", btfext.FieldSigned},
		{task, "0:3:2:0", btfext.FieldByteOffset}, // arr[2].a
		{task, "0:4", btfext.FieldByteOffset},     // through a tagged pointer
		{task, "0:5", btfext.FieldExists},         // absent
		{task, "1:0", btfext.FieldByteOffset},     // p[1].pid
		{td, "0", btfext.TypeMatches},
		{td, "0", btfext.TypeSize},
		{td, "0", btfext.TypeIDTarget},
		{td, "0", btfext.TypeIDLocal},
		{op, "0", btfext.TypeExists},
		{e, "0", btfext.EnumvalValue},
		{e, "1", btfext.EnumvalExists},
		{w, "0", btfext.EnumvalValue},
		{w, "0", btfext.TypeMatches},
	}
	var recs []testutil.CoreReloRecord
	for k, r := range relocs {
		recs = append(recs, testutil.CoreReloRecord{InsnOff: uint32(8 * k), TypeID: r.id, AccessStrOff: s.AddString(r.access), Kind: uint32(r.kind)})
	}
	return s, testutil.BTFExt([]uint32{sec}, [][]testutil.CoreReloRecord{recs})
}

// TestRichObject checks the rich seed's relocations resolve as libbpf's
// rules say (the values are C layout: the kernel's offsets of the
// target's members) and that the output relocates them alike.
func TestRichObject(t *testing.T) {
	local, ext := richObject()
	mz, out := minimizeBytes(t, richTarget().Marshal(binary.LittleEndian), local.Marshal(binary.LittleEndian), ext)
	if mz == nil {
		t.Fatal("the seed does not parse")
	}
	var got []string
	for _, r := range mz.Objects[0].Relocs {
		got = append(got, r.Outcome.String())
	}
	// x is inside the target's anonymous union, so the field exists but
	// the struct does not match by names; M_C is not in the target.
	want := []uint64{0, 1, 64 - (35 + 5 - 4*8), 64 - 5, 4, 0, 24 + 2*8, 56, 0, 80, 0, 80, 13, 8, 1, 2, 0, 1 << 40, 1}
	for i, r := range mz.Objects[0].Relocs {
		if r.New.Val != want[i] {
			t.Errorf("relocation %d (%s %s): value %d, want %d (%v)", i, r.Reloc.Kind, r.Local.RawString(), r.New.Val, want[i], r.Outcome)
		}
	}
	if len(out.Mismatches) != 0 {
		t.Errorf("%d relocations come out otherwise against the output", len(out.Mismatches))
	}
}

// minimizeBytes runs a Minimizer on a target, an object's BTF and its
// .BTF.ext given as bytes; it returns nil when the inputs do not parse,
// and fails the test on anything but a ParseError (ObjectError).
func minimizeBytes(t *testing.T, target, local, ext []byte) (*Minimizer, *Output) {
	tspec, err := btf.Parse(target, nil)
	if err != nil || CheckStandalone(tspec) != nil {
		return nil, nil
	}
	lspec, err := btf.Parse(local, nil)
	if err != nil || CheckStandalone(lspec) != nil {
		return nil, nil
	}
	e, err := btfext.Parse(ext)
	if err != nil {
		return nil, nil
	}
	for _, s := range e.Relocs {
		if _, ok := lspec.Strings().Lookup(s.NameOff); !ok {
			return nil, nil
		}
	}
	mz := NewMinimizer(NewTarget("target", tspec, GuessPointerSize(tspec)))
	if _, err := mz.Add(btfext.NewObject("obj", lspec, 8, e)); err != nil {
		if !IsObjectError(err) {
			t.Fatalf("an error that is not the object's: %v", err)
		}
		return nil, nil
	}
	out, err := mz.Build()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return mz, out
}

// FuzzRelocate runs the candidate search, the relocation calculator, the
// marking and the builder on a mutated target, object BTF and .BTF.ext:
// they end with a result or an object error, never a panic or a hang; the
// output is standalone BTF that re-reads to the same types; and when the
// target is BTF the kernel would load, the output relocates every
// relocation as the target does.
func FuzzRelocate(f *testing.F) {
	local, ext := richObject()
	f.Add(richTarget().Marshal(binary.LittleEndian), local.Marshal(binary.LittleEndian), ext)
	obj := localObject(f, [3]any{btf.TypeID(3), "0:0", btfext.FieldByteOffset}, [3]any{btf.TypeID(3), "0:1", btfext.FieldByteOffset},
		[3]any{btf.TypeID(3), "0:2", btfext.FieldByteOffset}, [3]any{btf.TypeID(4), "0:0", btfext.FieldByteOffset})
	f.Add(twoTasks().Marshal(binary.LittleEndian), obj.BTF.Marshal(binary.LittleEndian), testutil.BTFExt([]uint32{obj.Ext.Relocs[0].NameOff}, [][]testutil.CoreReloRecord{records(obj)}))
	addClangSeeds(f)
	f.Fuzz(func(t *testing.T, target, local, ext []byte) {
		mz, out := minimizeBytes(t, target, local, ext)
		if mz == nil {
			return
		}
		data := out.Spec.Marshal(binary.LittleEndian)
		back, err := btf.Parse(data, nil)
		if err != nil || CheckStandalone(back) != nil || back.NumTypes() != out.Spec.NumTypes() {
			t.Fatalf("the output does not re-read: %v", err)
		}
		if mz.Target.Types.Spec.Validate() == nil && len(out.Mismatches) != 0 {
			m := out.Mismatches[0]
			t.Fatalf("valid target, yet %d relocations come out otherwise against the output, first %s %s: %v %d, then %v %d",
				len(out.Mismatches), m.Reloc.Reloc.Kind, m.Reloc.Local, m.Reloc.Outcome, m.Reloc.New.Val, m.Got.Outcome, m.Got.New.Val)
		}
	})
}

// records returns an object's relocation records for testutil.BTFExt.
func records(o *btfext.Object) []testutil.CoreReloRecord {
	var out []testutil.CoreReloRecord
	for _, r := range o.Ext.Relocs[0].Relocs {
		out = append(out, testutil.CoreReloRecord{InsnOff: r.InsnOff, TypeID: r.TypeID, AccessStrOff: r.AccessStrOff, Kind: uint32(r.Kind)})
	}
	return out
}

// addClangSeeds adds testdata/core's tagged target and program, compiled
// by clang 19 when it is installed.
func addClangSeeds(f *testing.F) {
	if _, err := exec.LookPath("clang-19"); err != nil {
		return
	}
	if _, err := os.Stat("/usr/include/bpf/bpf_core_read.h"); err != nil {
		return
	}
	dir := f.TempDir()
	objs := map[string]string{}
	for _, name := range []string{"tagged_target.c", "tagged.bpf.c"} {
		obj := filepath.Join(dir, name+".o")
		if err := testutil.BuildFixture(f, filepath.Join(testutil.RepoRoot(), "testdata", "core", name), obj, map[string]string{"CC": "clang-19"}); err != nil {
			return
		}
		objs[name] = obj
	}
	target, err := btfext.ReadObject(objs["tagged_target.c"])
	prog, err2 := btfext.ReadObject(objs["tagged.bpf.c"])
	if errors.Join(err, err2) != nil {
		f.Fatal(errors.Join(err, err2))
	}
	var secs []uint32
	var recs [][]testutil.CoreReloRecord
	for _, s := range prog.Ext.Relocs {
		secs = append(secs, s.NameOff)
		var rs []testutil.CoreReloRecord
		for _, r := range s.Relocs {
			rs = append(rs, testutil.CoreReloRecord{InsnOff: r.InsnOff, TypeID: r.TypeID, AccessStrOff: r.AccessStrOff, Kind: uint32(r.Kind)})
		}
		recs = append(recs, rs)
	}
	f.Add(target.BTF.Marshal(binary.LittleEndian), prog.BTF.Marshal(binary.LittleEndian), testutil.BTFExt(secs, recs))
}

// FuzzRelocateModules is FuzzRelocate with a module: a vmlinux, a module's
// split BTF on it, an object's BTF and .BTF.ext. Both outputs (one
// standalone BTF, and the split form) must re-read, the split module on the
// split vmlinux; and when both inputs are BTF the kernel would load, the
// split output relocates every relocation as the kernel's search does.
func FuzzRelocateModules(f *testing.F) {
	vm, mod := moduleKernel()
	obj := moduleObject(f, true)
	f.Add(vm.Marshal(binary.LittleEndian), mod.Marshal(binary.LittleEndian), obj.BTF.Marshal(binary.LittleEndian),
		testutil.BTFExt([]uint32{obj.Ext.Relocs[0].NameOff}, [][]testutil.CoreReloRecord{records(obj)}))
	f.Fuzz(func(t *testing.T, vmData, modData, local, ext []byte) {
		vm, err := btf.Parse(vmData, nil)
		if err != nil || CheckStandalone(vm) != nil {
			return
		}
		mod, err := btf.Parse(modData, vm)
		if err != nil {
			return
		}
		lspec, err := btf.Parse(local, nil)
		if err != nil || CheckStandalone(lspec) != nil {
			return
		}
		e, err := btfext.Parse(ext)
		if err != nil {
			return
		}
		for _, s := range e.Relocs {
			if _, ok := lspec.Strings().Lookup(s.NameOff); !ok {
				return
			}
		}
		valid := vm.Validate() == nil && mod.Validate() == nil
		for _, split := range []bool{false, true} {
			ptr := GuessPointerSize(vm)
			mz := NewMinimizer(NewTarget("vmlinux", vm, ptr), NewTarget("mod", mod, ptr))
			if _, err := mz.Add(btfext.NewObject("obj", lspec, 8, e)); err != nil {
				if !IsObjectError(err) {
					t.Fatalf("an error that is not the object's: %v", err)
				}
				return
			}
			build := mz.Build
			if split {
				build = mz.BuildSplit
			}
			out, err := build()
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			back, err := btf.Parse(out.Spec.Marshal(binary.LittleEndian), nil)
			if err != nil || CheckStandalone(back) != nil {
				t.Fatalf("split=%v: the output does not re-read: %v", split, err)
			}
			if split {
				if _, err := btf.Parse(out.Modules[0].Marshal(binary.LittleEndian), back); err != nil {
					t.Fatalf("the split module does not re-read on the split vmlinux: %v", err)
				}
				if valid && len(out.Mismatches) != 0 {
					m := out.Mismatches[0]
					t.Fatalf("valid inputs, yet %d relocations come out otherwise against the split output, first %s %s: %v %d, then %v %d (extra %v)",
						len(out.Mismatches), m.Reloc.Reloc.Kind, m.Reloc.Local, m.Reloc.Outcome, m.Reloc.New.Val, m.Got.Outcome, m.Got.New.Val, m.Extra)
				}
			}
		}
	})
}
