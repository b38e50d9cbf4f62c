package btf

import "testing"

// TestResolveSize follows libbpf's btf__resolve_size: qualifiers, typedefs,
// VARs and arrays; no size for FWD and functions, nor past 32 links or 32
// bits.
func TestResolveSize(t *testing.T) {
	s := NewSpec(nil)
	i32 := s.AddInt("int", 4, IntSigned, 32)
	ptr := s.AddRef(KindPtr, "", i32)
	cst := s.AddRef(KindConst, "", ptr)
	td := s.AddRef(KindTypedef, "t", cst)
	arr := s.AddArray(td, i32, 3)
	arr2 := s.AddArray(arr, i32, 5)
	fwd := s.AddFwd("f", false)
	v := s.AddVar("v", arr2, LinkageGlobal)
	proto := s.AddFuncProto(i32, nil)
	huge := s.AddArray(i32, i32, 1<<31)
	chain := i32
	for range MaxResolveDepth {
		chain = s.AddRef(KindTypedef, "c", chain)
	}
	for _, c := range []struct {
		id   TypeID
		ptr  uint32
		want int64
	}{
		{i32, 8, 4}, {ptr, 8, 8}, {ptr, 4, 4}, {td, 8, 8}, {arr, 8, 24}, {arr2, 4, 60}, {v, 8, 120},
		{fwd, 8, -1}, {proto, 8, -1}, {0, 8, -1}, {huge, 8, -1}, {chain, 8, -1}, {chain - 1, 8, 4},
	} {
		if got := s.ResolveSize(c.id, c.ptr); got != c.want {
			t.Errorf("ResolveSize(%d, %d) = %d, want %d", c.id, c.ptr, got, c.want)
		}
	}
	if id, typ := s.SkipQualifiers(td); id != ptr || typ.Kind() != KindPtr {
		t.Errorf("SkipQualifiers(typedef) = %d %v, want %d", id, typ.Kind(), ptr)
	}
	if id, typ := s.SkipQualifiers(0); id != 0 || typ != nil {
		t.Errorf("SkipQualifiers(void) = %d %v", id, typ)
	}
}

// TestPointerSize: libbpf takes the first long-named INT of 4 or 8 bytes.
func TestPointerSize(t *testing.T) {
	s := NewSpec(nil)
	if got := s.PointerSize(); got != 8 {
		t.Errorf("no long: %d, want 8", got)
	}
	s.AddInt("long", 2, IntSigned, 16) // not 4 or 8 bytes
	s.AddInt("long unsigned int", 4, 0, 32)
	s.AddInt("long int", 8, IntSigned, 64)
	if got := s.PointerSize(); got != 4 {
		t.Errorf("got %d, want 4", got)
	}
}

// TestAlignments follows libbpf's btf__align_of: scalars capped at the
// pointer size, a struct's largest member, 1 for one that must be packed.
func TestAlignments(t *testing.T) {
	s := NewSpec(nil)
	i8 := s.AddInt("char", 1, IntSigned, 8)
	i32 := s.AddInt("int", 4, IntSigned, 32)
	i128 := s.AddInt("__int128", 16, IntSigned, 128)
	plain := s.AddStruct(false, "plain", 8, []MemberSpec{{Name: "a", Type: i8}, {Name: "b", Type: i32, BitOffset: 32}})
	packed := s.AddStruct(false, "packed", 5, []MemberSpec{{Name: "a", Type: i8}, {Name: "b", Type: i32, BitOffset: 8}})
	short := s.AddStruct(false, "short", 6, []MemberSpec{{Name: "b", Type: i32}})
	arr := s.AddArray(plain, i32, 2)
	a := NewAlignments(s, 8)
	for _, c := range []struct {
		id   TypeID
		want int
	}{{i8, 1}, {i32, 4}, {i128, 8}, {plain, 4}, {packed, 1}, {short, 1}, {arr, 4}, {0, 0}} {
		if got := a.Of(c.id); got != c.want {
			t.Errorf("Of(%d) = %d, want %d", c.id, got, c.want)
		}
	}
	if a.Packed(s.Type(plain)) || !a.Packed(s.Type(packed)) || !a.Packed(s.Type(short)) {
		t.Error("Packed: want plain unpacked, packed and short packed")
	}
}
