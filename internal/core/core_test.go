package core

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/testutil"
)

// The rules below are libbpf's, as relo_core.c states them; the oracle
// tests of the command (bpftool's bytes and debug lines, corerelo's
// instructions) check the whole on real objects.

func TestEssentialNameLen(t *testing.T) {
	for _, c := range []struct {
		name string
		want int
	}{
		{"task_struct", 11},
		{"task_struct___v2", 11},
		{"some_struct_name___with_flavor", 16},
		{"a___b___c", 5}, // the last separator counts
		{"a____b", 6},    // four underscores: none has non-underscores on both sides
		{"___x", 4},      // nothing before the separator
		{"x___", 4},      // nothing after it
		{"_a___b", 2},    // "_a" is the essential name
		{"a___b", 1},     // the shortest flavored name
		{"", 0},
	} {
		if got := EssentialNameLen(c.name); got != c.want {
			t.Errorf("EssentialNameLen(%q) = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestParseAccess(t *testing.T) {
	for _, c := range []struct {
		s    string
		want string // "" for an error
	}{
		{"0", "0"},
		{"0:1:2", "0:1:2"},
		{"3:0", "3:0"},
		{"0: 1", "0:1"}, // sscanf's %d skips white space
		{"+2", "2"},
		{"0:", ""},
		{":0", ""},
		{"0::1", ""},
		{"-1", ""},
		{"0:a", ""},
		{"", ""},
		{"4294967296", ""},
		{strings.Repeat("0:", 64) + "0", ""}, // 65 steps
	} {
		raw, err := parseAccess(c.s)
		got := ""
		if err == nil {
			got = (&Spec{Raw: raw}).RawString()
		}
		if got != c.want {
			t.Errorf("parseAccess(%q) = %q, %v; want %q", c.s, got, err, c.want)
		}
	}
}

// twoTasks is a target with two structs named task, as a kernel's BTF has
// two syscall_tp_t: [3] {pid, ret} and [4] {pid, args}, and a third with
// pid at another offset under a flavored name.
func twoTasks() *btf.Spec {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	l := s.AddInt("long", 8, btf.IntSigned, 64)
	s.AddStruct(false, "task", 16, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "ret", Type: l, BitOffset: 64}})
	s.AddStruct(false, "task", 16, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "args", Type: l, BitOffset: 64}})
	s.AddStruct(false, "other", 16, []btf.MemberSpec{{Name: "pid", Type: i}})
	s.AddStruct(false, "other___2", 16, []btf.MemberSpec{{Name: "pid", Type: i, BitOffset: 32}})
	return s
}

// localObject is an object's BTF with struct task___x {pid, ret, args} and
// struct other {pid}, and relocations given as (type, access, kind).
func localObject(t testing.TB, relocs ...[3]any) *btfext.Object {
	t.Helper()
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	l := s.AddInt("long", 8, btf.IntSigned, 64)
	s.AddStruct(false, "task___x", 24, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "ret", Type: l, BitOffset: 64}, {Name: "args", Type: l, BitOffset: 128}})
	s.AddStruct(false, "other", 4, []btf.MemberSpec{{Name: "pid", Type: i}})
	sec := s.AddString("prog")
	var recs []testutil.CoreReloRecord
	for k, r := range relocs {
		recs = append(recs, testutil.CoreReloRecord{InsnOff: uint32(8 * k), TypeID: r[0].(btf.TypeID), AccessStrOff: s.AddString(r[1].(string)), Kind: uint32(r[2].(btfext.RelocKind))})
	}
	ext, err := btfext.Parse(testutil.BTFExt([]uint32{sec}, [][]testutil.CoreReloRecord{recs}))
	if err != nil {
		t.Fatal(err)
	}
	return btfext.NewObject("local.o", s, 8, ext)
}

// TestRelocateNarrowing follows libbpf's candidate list: a field both
// tasks have matches both and keeps both; one only the first has narrows
// the list to it; then one only the second has finds nothing.
func TestRelocateNarrowing(t *testing.T) {
	target := NewTarget("vmlinux", twoTasks(), 8)
	obj := localObject(t,
		[3]any{btf.TypeID(3), "0:0", btfext.FieldByteOffset},
		[3]any{btf.TypeID(3), "0:1", btfext.FieldByteOffset},
		[3]any{btf.TypeID(3), "0:2", btfext.FieldByteOffset},
	)
	mz := NewMinimizer(target)
	res, err := mz.Add(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		outcome Outcome
		cands   int
		matches int
		val     uint64
	}{{Resolved, 2, 2, 0}, {Resolved, 2, 1, 8}, {NoMatch, 1, 0, 0}}
	for i, w := range want {
		r := res.Relocs[i]
		if r.Outcome != w.outcome || r.Candidates != w.cands || len(r.Matches) != w.matches || r.New.Val != w.val {
			t.Errorf("relocation %d: %v, %d candidates, %d matches, value %d; want %v, %d, %d, %d",
				i, r.Outcome, r.Candidates, len(r.Matches), r.New.Val, w.outcome, w.cands, w.matches, w.val)
		}
	}
	if !res.Relocs[2].New.Poison {
		t.Errorf("the unmatched byte offset is not poisoned")
	}
	out, err := mz.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Mismatches) != 0 || len(out.Widened) != 0 {
		t.Errorf("%d mismatches, %d widened", len(out.Mismatches), len(out.Widened))
	}
	// bpftool's marking: the first task with pid and ret, their types.
	if n := out.Spec.NumTypes(); n != 3 || out.IDs[3] == 0 || out.IDs[4] != 0 {
		t.Errorf("output has %d types, ids %v", n, out.IDs)
	}
}

// TestRelocateAmbiguous: two candidates with pid at different offsets.
func TestRelocateAmbiguous(t *testing.T) {
	target := NewTarget("vmlinux", twoTasks(), 8)
	obj := localObject(t, [3]any{btf.TypeID(4), "0:0", btfext.FieldByteOffset})
	mz := NewMinimizer(target)
	res, err := mz.Add(obj)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Relocs[0]
	if r.Outcome != Ambiguous || r.Err == nil || !strings.Contains(r.Err.Error(), "field offset ambiguity: 32 != 0") {
		t.Fatalf("%v: %v", r.Outcome, r.Err)
	}
	out, err := mz.Build()
	if err != nil {
		t.Fatal(err)
	}
	if out.IDs[5] == 0 || out.IDs[6] == 0 {
		t.Errorf("the ambiguous candidates are not both kept: %v", out.IDs)
	}
}

// TestRelocateObjectErrors: what the object gets wrong is a ParseError.
func TestRelocateObjectErrors(t *testing.T) {
	for _, c := range []struct {
		reloc [3]any
		want  string
	}{
		{[3]any{btf.TypeID(99), "0:0", btfext.FieldByteOffset}, "type [99] is not in the object's BTF"},
		{[3]any{btf.TypeID(3), "0:x", btfext.FieldByteOffset}, `"x" is not a number`},
		{[3]any{btf.TypeID(3), "0:7", btfext.FieldByteOffset}, "member 7 of type [3], which has 3"},
		{[3]any{btf.TypeID(3), "0:1", btfext.TypeExists}, `has access string "0:1"`},
		{[3]any{btf.TypeID(3), "0", btfext.RelocKind(42)}, "unknown relocation kind 42"},
		{[3]any{btf.TypeID(3), "0:0", btfext.EnumvalValue}, "is not an enumerator"},
		{[3]any{btf.TypeID(1), "0:0", btfext.FieldByteOffset}, "not a struct, union or array"},
	} {
		mz := NewMinimizer(NewTarget("vmlinux", twoTasks(), 8))
		_, err := mz.Add(localObject(t, c.reloc))
		var pe *ParseError
		if !errors.As(err, &pe) || !IsObjectError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want a ParseError with %q", c.reloc, err, c.want)
		}
	}
}

// TestBuildMembers: a struct keeps only its marked members; kind_flag is
// set only when one of them is a bitfield or off a byte (btf__add_field);
// a reference to a type that is not kept becomes void.
func TestBuildMembers(t *testing.T) {
	s := btf.NewSpec(nil)
	u := s.AddInt("unsigned int", 4, 0, 32)
	p := s.AddRef(btf.KindPtr, "", u)
	st := s.AddStruct(false, "flags", 16, []btf.MemberSpec{
		{Name: "a", Type: u}, {Name: "b", Type: u, BitOffset: 32, BitfieldSize: 3}, {Name: "c", Type: p, BitOffset: 64},
	})
	for _, c := range []struct {
		members []int
		kflag   bool
	}{{[]int{0}, false}, {[]int{1}, true}, {[]int{0, 2}, false}} {
		m := NewMarks(NewTarget("t", s, 8))
		m.set(st)
		m.markType(p, false)
		for _, i := range c.members {
			m.setMember(st, i)
		}
		out, ids, err := Build(m)
		if err != nil {
			t.Fatal(err)
		}
		ty := out.Type(ids[st])
		if ty.Vlen() != len(c.members) || ty.KindFlag() != c.kflag {
			t.Errorf("members %v: vlen %d kind_flag %v, want %d %v", c.members, ty.Vlen(), ty.KindFlag(), len(c.members), c.kflag)
		}
		if ptr := out.Type(ids[p]); ptr.Ref() != 0 {
			t.Errorf("the pointer to an unkept int points to [%d], not void", ptr.Ref())
		}
		if data := out.Marshal(binary.LittleEndian); len(data) == 0 {
			t.Fatal("no bytes")
		}
	}
}

// TestBuildWidens: against a target with task A {pid, x} and task B {pid,
// x, y}, x matches both and y then B. Keeping only A's x (bpftool's
// marking) would make x match A alone against the output, narrow the
// candidates to A, and leave y unmatched; Build keeps B's x as well.
func TestBuildWidens(t *testing.T) {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddStruct(false, "task", 8, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "x", Type: i, BitOffset: 32}})
	b := s.AddStruct(false, "task", 12, []btf.MemberSpec{{Name: "pid", Type: i}, {Name: "x", Type: i, BitOffset: 32}, {Name: "y", Type: i, BitOffset: 64}})
	// task___x's members are pid, ret, args: "0:1" is ret; name them x, y
	// in a local type of their own.
	l := btf.NewSpec(nil)
	li := l.AddInt("int", 4, btf.IntSigned, 32)
	lt := l.AddStruct(false, "task___l", 8, []btf.MemberSpec{{Name: "x", Type: li}, {Name: "y", Type: li, BitOffset: 32}})
	sec := l.AddString("prog")
	ext, err := btfext.Parse(testutil.BTFExt([]uint32{sec}, [][]testutil.CoreReloRecord{{
		{InsnOff: 0, TypeID: lt, AccessStrOff: l.AddString("0:0")},
		{InsnOff: 8, TypeID: lt, AccessStrOff: l.AddString("0:1")},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	mz := NewMinimizer(NewTarget("t", s, 8))
	if _, err := mz.Add(btfext.NewObject("o", l, 8, ext)); err != nil {
		t.Fatal(err)
	}
	out, err := mz.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Widened) != 1 || len(out.Mismatches) != 0 {
		t.Fatalf("%d widened, %d mismatches; want 1, 0", len(out.Widened), len(out.Mismatches))
	}
	if bt := out.Spec.Type(out.IDs[b]); bt.Vlen() != 2 {
		t.Errorf("B keeps %d members, want x and y", bt.Vlen())
	}
}
