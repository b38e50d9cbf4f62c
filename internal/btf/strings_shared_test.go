package btf_test

import (
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestSharedStrings checks a NewSharedStrings table: offsets are section
// offsets plus one, mid-string offsets read the tail, LongAt answers from
// the spans without reading, and sections it cannot take give nil.
func TestSharedStrings(t *testing.T) {
	long := strings.Repeat("x", btf.KernelMaxNameLen+10)
	pad := strings.Repeat("a\x00", 2000) // to reach blocks without long strings
	sec := []byte("int\x00next\x00" + long + "\x00task_struct\x00" + pad + "far\x00\x00")
	st := btf.NewSharedStrings(sec)
	if st == nil {
		t.Fatal("nil table")
	}
	for _, tc := range []struct {
		secOff int
		want   string
		long   bool
		whole  bool // a whole string, which Find finds
		empty  bool
	}{
		{0, "int", false, true, false},
		{4, "next", false, true, false},
		{6, "xt", false, false, false}, // tail merging: the middle of "next"
		{9, long, true, true, false},
		{9 + 9, long[9:], true, false, false},
		{9 + 10, long[10:], false, false, false}, // exactly KernelMaxNameLen left
		{9 + len(long) + 1, "task_struct", false, true, false},
		{9 + len(long) + 1 + 12 + len(pad), "far", false, true, false},
		{9 + len(long) + 1 + 12 + len(pad) + 4, "", false, false, true},
	} {
		off := uint32(tc.secOff + 1)
		if got := st.String(off); got != tc.want {
			t.Errorf("String(%d) = %.20q, want %.20q", off, got, tc.want)
		}
		if got := st.LongAt(off); got != tc.long {
			t.Errorf("LongAt(%d) = %v, want %v", off, got, tc.long)
		}
		if got := st.EmptyAt(off); got != tc.empty {
			t.Errorf("EmptyAt(%d) = %v, want %v", off, got, tc.empty)
		}
		if off2, ok := st.Find(tc.want); tc.whole && (!ok || off2 != off) {
			t.Errorf("Find(%.20q) = %d, %v; want %d", tc.want, off2, ok, off)
		}
	}
	for _, bad := range [][]byte{nil, []byte("no terminator")} {
		if btf.NewSharedStrings(bad) != nil {
			t.Errorf("NewSharedStrings(%q) is not nil", bad)
		}
	}
}

// TestAppendSpecShared joins two units whose string tables are split tables
// on one shared table into a Spec on a copy of it: shared offsets stay,
// the units' own strings are interned once, after the shared bytes.
func TestAppendSpecShared(t *testing.T) {
	shared := btf.NewSharedStrings([]byte("int\x00long\x00"))
	out := btf.NewSpec(nil)
	out.SetStrings(shared.CopyShared())
	intOff, longOff := uint32(1), uint32(5)
	var want []string
	for u := range 2 {
		part := btf.NewSpec(nil)
		part.SetStrings(btf.NewStringTable(shared))
		if got := part.AddString("int"); got != intOff {
			t.Fatalf("unit %d: AddString(int) = %d, want the shared %d", u, got, intOff)
		}
		own := part.AddString("inline")
		if own < shared.Len() {
			t.Fatalf("unit %d: own string at %d, inside the shared %d bytes", u, own, shared.Len())
		}
		part.MustAppend(intOff, btf.Info(btf.KindInt, false, 0), 4, btf.IntWord(btf.IntSigned, 0, 32))
		part.MustAppend(longOff, btf.Info(btf.KindInt, false, 0), 8, btf.IntWord(btf.IntSigned, 0, 64))
		part.MustAppend(own, btf.Info(btf.KindTypedef, false, 0), 1)
		out.AppendSpec(part)
		want = append(want, "int", "long", "inline")
	}
	for i, w := range want {
		id := btf.TypeID(i + 1)
		if got := out.Name(out.Type(id)); got != w {
			t.Errorf("type %d named %q, want %q", id, got, w)
		}
	}
	if a, b := out.Type(3)[0], out.Type(6)[0]; a != b || a != shared.Len() {
		t.Errorf("own strings at %d and %d, want both at %d (interned once, after the shared bytes)", a, b, shared.Len())
	}
	if got := out.Type(6)[2]; got != 4 {
		t.Errorf("second unit's typedef refers to %d, want 4 (shifted)", got)
	}
}
