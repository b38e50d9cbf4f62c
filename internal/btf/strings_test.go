package btf_test

import (
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

func TestStringTableIntern(t *testing.T) {
	st := btf.NewStringTable(nil)
	if off := st.Add(""); off != 0 {
		t.Fatalf("empty string at %d, want 0", off)
	}
	a := st.Add("task_struct")
	b := st.Add("pid")
	if a != 1 || b != 1+uint32(len("task_struct"))+1 {
		t.Fatalf("offsets %d, %d: want assignment in order of addition", a, b)
	}
	if again := st.Add("task_struct"); again != a {
		t.Fatalf("re-adding gave %d, want %d", again, a)
	}
	// Enough strings to force several rehashes of the index.
	offs := make(map[string]uint32)
	for i := 0; i < 5000; i++ {
		s := fmt.Sprintf("name_%d", i)
		offs[s] = st.Add(s)
	}
	for s, off := range offs {
		if got := st.Add(s); got != off {
			t.Fatalf("%q: %d then %d", s, off, got)
		}
		if got := st.String(off); got != s {
			t.Fatalf("offset %d holds %q, want %q", off, got, s)
		}
	}
	if _, ok := st.Lookup(st.Len()); ok {
		t.Error("lookup past the end succeeded")
	}
}

func TestStringTableSplit(t *testing.T) {
	base := btf.NewStringTable(nil)
	shared := base.Add("int")
	split := btf.NewStringTable(base)
	if split.Start() != base.Len() || split.Len() != base.Len() {
		t.Fatalf("split starts at %d, length %d; want both %d", split.Start(), split.Len(), base.Len())
	}
	if got := split.Add("int"); got != shared {
		t.Errorf("string in base: split gave %d, want base offset %d", got, shared)
	}
	own := split.Add("xfs_inode")
	if own != base.Len() {
		t.Errorf("first own string at %d, want %d", own, base.Len())
	}
	if split.String(shared) != "int" || split.String(own) != "xfs_inode" {
		t.Error("lookups through a split table failed")
	}
	if got := split.Add(""); got != 0 {
		t.Errorf("empty string in split table at %d, want 0 (the base's)", got)
	}
	if len(split.Bytes()) != len("xfs_inode")+1 {
		t.Errorf("split bytes %q", split.Bytes())
	}
}

// TestStringTableDecoded checks interning on top of decoded bytes, which may
// hold duplicates and suffix-shared strings: Add must find the existing
// strings rather than append copies.
func TestStringTableDecoded(t *testing.T) {
	s := btf.NewSpec(nil)
	s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddInt("unsigned int", 4, 0, 32)
	d, err := btf.Parse(s.Marshal(s.ByteOrder()), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(d.Strings().Bytes())
	for _, str := range []string{"", "int", "unsigned int"} {
		off := d.AddString(str)
		if d.Strings().String(off) != str {
			t.Errorf("%q at %d reads back %q", str, off, d.Strings().String(off))
		}
	}
	if len(d.Strings().Bytes()) != n {
		t.Errorf("adding existing strings grew the table from %d to %d bytes", n, len(d.Strings().Bytes()))
	}
}

func BenchmarkStringTableAdd(b *testing.B) {
	names := make([]string, 4096)
	for i := range names {
		names[i] = fmt.Sprintf("member_name_%d", i)
	}
	b.ReportAllocs()
	st := btf.NewStringTable(nil)
	for i := 0; b.Loop(); i++ {
		st.Add(names[i%len(names)])
	}
}

func TestStringTableResetClone(t *testing.T) {
	st := btf.NewStringTable(nil)
	a := st.Add("alpha")
	c := st.Clone()
	st.Reset()
	if st.Len() != 1 || st.String(0) != "" {
		t.Fatalf("after Reset: length %d", st.Len())
	}
	if b := st.Add("beta"); b != a {
		t.Errorf("first string after Reset at %d, want %d", b, a)
	}
	if got := st.Add("alpha"); got == a {
		t.Error("Reset kept an old string in the index")
	}
	if c.String(a) != "alpha" || c.Add("alpha") != a || c.Add("gamma") != uint32(len("alpha")+2) {
		t.Error("the clone lost its strings or its interning")
	}
}
