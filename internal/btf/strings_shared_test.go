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

// TestAppendSpecSectionStrings joins parts whose tables are split tables on
// a NewSectionStrings table, as a module's conversion makes them: names the
// parts give by section offset (whole strings, a tail of a string, the same
// string at two offsets, as an unmerged section has it) must come out as
// their strings, each distinct string once in the joined table, and the
// parts' own strings must not be looked up in the section.
func TestAppendSpecSectionStrings(t *testing.T) {
	// Offsets in the table: "int" 1, "long" 5, "x_next" 10 (its tail
	// "next" 12), "int" again 17.
	sec := btf.NewSectionStrings([]byte("int\x00long\x00x_next\x00int\x00"))
	if !sec.ByOffset() || btf.NewSharedStrings([]byte("a\x00")).ByOffset() {
		t.Fatal("ByOffset does not tell the two kinds of table apart")
	}
	tests := []struct {
		name string
		off  uint32 // 0: an own string, added by content
		own  string
		want string
	}{
		{"whole string", 1, "", "int"},
		{"second string", 5, "", "long"},
		{"tail of a string", 12, "", "next"},
		{"same string at another offset", 17, "", "int"},
		{"own string also in the section", 0, "long", "long"},
		{"own string", 0, "inline", "inline"},
	}
	out := btf.NewSpec(nil)
	for u := range 2 {
		part := btf.NewSpec(nil)
		part.SetStrings(btf.NewStringTable(sec))
		for _, tc := range tests {
			off := tc.off
			if off == 0 {
				if off = part.AddString(tc.own); off < sec.Len() {
					t.Fatalf("unit %d, %s: own string at %d, inside the section's %d bytes", u, tc.name, off, sec.Len())
				}
			}
			part.MustAppend(off, btf.Info(btf.KindTypedef, false, 0), 0)
		}
		out.AppendSpec(part)
	}
	offs := map[string]uint32{}
	for i := range 2 * len(tests) {
		tc := tests[i%len(tests)]
		w := out.Type(btf.TypeID(i + 1))[0]
		if got := out.Name(out.Type(btf.TypeID(i + 1))); got != tc.want {
			t.Errorf("type %d (%s): named %q, want %q", i+1, tc.name, got, tc.want)
		}
		if prev, ok := offs[tc.want]; ok && prev != w {
			t.Errorf("type %d (%s): %q at %d and at %d in the joined table", i+1, tc.name, tc.want, prev, w)
		}
		offs[tc.want] = w
	}
	if got, want := len(out.Strings().Bytes()), len("\x00int\x00long\x00next\x00inline\x00"); got != want {
		t.Errorf("joined table of %d bytes, want %d (each distinct string once)", got, want)
	}
}

// TestSectionStringsAnswersLikeShared checks, at every offset of a section
// holding empty, short and over-long strings, that a NewSectionStrings
// table (which reads the string asked about) answers Len, Lookup and LongAt
// as a NewSharedStrings table (which scans the section first) does, and
// EmptyAt for every offset that reads an empty string, a string's
// terminator included (NewSharedStrings lists only the empty strings that
// start where the previous one ends).
func TestSectionStringsAnswersLikeShared(t *testing.T) {
	long := strings.Repeat("a", btf.KernelMaxNameLen)
	sec := []byte("\x00x\x00" + long + "\x00" + long + "b\x00\x00tail\x00")
	shared, byOff := btf.NewSharedStrings(sec), btf.NewSectionStrings(sec)
	if shared.Len() != byOff.Len() {
		t.Fatalf("Len: %d, want %d", byOff.Len(), shared.Len())
	}
	for off := uint32(1); off < shared.Len(); off++ {
		ws, wok := shared.Lookup(off)
		if s, ok := byOff.Lookup(off); s != ws || ok != wok {
			t.Errorf("Lookup(%d) = %q, %v; want %q, %v", off, s, ok, ws, wok)
		}
		if got, want := byOff.LongAt(off), shared.LongAt(off); got != want {
			t.Errorf("LongAt(%d) = %v, want %v", off, got, want)
		}
		if got, want := byOff.EmptyAt(off), wok && ws == ""; got != want {
			t.Errorf("EmptyAt(%d) = %v, want %v", off, got, want)
		}
	}
	if btf.NewSectionStrings([]byte("no NUL")) != nil || btf.NewSectionStrings(nil) != nil {
		t.Error("a section not ending with a NUL gave a table")
	}
}

// TestPlainAt checks PlainAt at every offset of sections that span several
// of its bitmap's blocks, against an answer worked out from the bytes: a
// string start (an offset after a NUL) holding a NUL is an empty string,
// and any offset with more than KernelMaxNameLen bytes before the next NUL
// reads a long one. Long and empty strings sit in the first, a middle and
// the last block, and on block boundaries. A NewSectionStrings table on the
// same bytes must answer alike but for string terminators (see EmptyAt).
func TestPlainAt(t *testing.T) {
	long := strings.Repeat("L", btf.KernelMaxNameLen+1)
	short := strings.Repeat("name_of_a_type\x00", 80) // 1200 bytes: past a block
	for _, tc := range []struct {
		name string
		sec  string
	}{
		{"plain", short + short + short},
		{"empty first", "\x00" + short + short},
		{"long first", long + "\x00" + short + short},
		{"long in the middle", short + short + long + "\x00" + short + short},
		{"empty in the middle", short + short + "\x00" + short + short},
		{"long and empty last", short + short + short + long + "\x00\x00"},
		{"empty on a block boundary", strings.Repeat("x", 1022) + "\x00\x00" + short + short},
		{"small", "a\x00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := "\x00" + tc.sec // the table's bytes: offset k of sec is k+1
			st := btf.NewSharedStrings([]byte(tc.sec))
			for off := 1; off < len(data)+3000; off++ {
				want := false
				if off < len(data) {
					n := strings.IndexByte(data[off:], 0)
					empty := n == 0 && data[off-1] == 0
					want = !empty && n <= btf.KernelMaxNameLen
				}
				if got := st.PlainAt(uint32(off)); got != want {
					t.Fatalf("PlainAt(%d) = %v, want %v", off, got, want)
				}
			}
			// A NewSectionStrings table reads the string asked about,
			// and so also takes a string's terminator for an empty string.
			byOff := btf.NewSectionStrings([]byte(tc.sec))
			for off := 1; off < len(data)+10; off++ {
				want := false
				if off < len(data) {
					n := strings.IndexByte(data[off:], 0)
					want = n != 0 && n <= btf.KernelMaxNameLen
				}
				if got := byOff.PlainAt(uint32(off)); got != want {
					t.Fatalf("NewSectionStrings: PlainAt(%d) = %v, want %v", off, got, want)
				}
			}
		})
	}
}
