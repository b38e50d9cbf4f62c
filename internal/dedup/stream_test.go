package dedup

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// streamDedup deduplicates in with a Stream that is shown the prefixes of in
// ending at cuts (numbers of own types, ascending), as a conversion shows it
// its joined units, and returns what Finish returns. The stream is driven on
// the caller's goroutine.
func streamDedup(t testing.TB, in *btf.Spec, cuts []int, opts Options) (*btf.Spec, *Stats) {
	t.Helper()
	out, stats, err := streamDedupErr(in, cuts, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out, stats
}

// streamDedupErr is streamDedup returning Finish's error.
func streamDedupErr(in *btf.Spec, cuts []int, opts Options) (*btf.Spec, *Stats, error) {
	st := NewStream(opts, in.NumTypes())
	st.Stop()
	words, offs := in.Words(), in.TypeOffsets()
	for _, n := range cuts {
		end := len(words)
		if n < len(offs) {
			end = int(offs[n])
		}
		st.advance(part{words: words[:end], offs: offs[:n], strs: in.Strings().Bytes(), strStart: in.Strings().Start()})
	}
	return st.Finish(in)
}

// stoppedWhy returns why a Finish fell back to Dedup, "" if it did not.
func stoppedWhy(st *Stats) string {
	if len(st.Passes) > 0 && strings.HasPrefix(st.Passes[0].Name, "stream stopped") {
		return st.Passes[0].Name
	}
	return ""
}

// closedCuts returns the places s (0 < s < NumTypes) where no own type
// before s references an own type at or after s: the unit boundaries of
// converted BTF, among others.
func closedCuts(s *btf.Spec) []int {
	var cuts []int
	reach := uint32(0) // highest ID referenced by the types so far
	for i := 0; i < s.NumTypes(); i++ {
		if i > 0 && reach < s.FirstID()+uint32(i) {
			cuts = append(cuts, i)
		}
		t := s.Own(i)
		ref2, first, step, end := refPositions(t)
		if ref2 {
			reach = max(reach, t[2])
		}
		for j := first; j < end; j += step {
			reach = max(reach, t[j])
		}
	}
	return cuts
}

// interned returns a copy of s whose string table holds each string once.
func interned(t testing.TB, s *btf.Spec) *btf.Spec {
	out := btf.NewSpec(nil)
	for i := range s.NumTypes() {
		w := append([]uint32(nil), s.Own(i)...)
		btf.Type(w).ForEachStrRef(func(p *uint32) { *p = out.AddString(s.Strings().String(*p)) })
		if _, err := out.Append(w); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestStreamMatchesDedup checks that a stream's output is Dedup's, byte for
// byte, on random converted-like input shown to it unit by unit, and that
// shown it cut in the middle of units it still is (it falls back to Dedup).
func TestStreamMatchesDedup(t *testing.T) {
	ran, stopped := 0, map[string]int{}
	seeds := uint64(120)
	if testing.Short() {
		seeds = 30
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		units := genUnits(seed, 2+int(seed%9), 4+int(seed%23), seed%5 == 0)
		in := concat(units)
		if seed%11 != 0 {
			// As a conversion names types: one offset per string.
			// Otherwise the stream must fall back.
			in = interned(t, in)
		}
		r := rand.New(rand.NewPCG(seed, 7))
		var cuts []int
		n := 0
		for _, u := range units {
			n += u.NumTypes()
			if r.IntN(3) != 0 {
				cuts = append(cuts, n)
			}
		}
		if seed%7 == 0 && in.NumTypes() > 2 {
			// A cut inside a unit: some type before it references one
			// after it, unless by chance the cut is clean.
			cuts = append([]int{1 + r.IntN(in.NumTypes()-1)}, cuts...)
		}
		split := seed%2 == 0 // the reference pass split at the stream's cuts (planRefSplitAt)
		for _, legacy := range []bool{false, true} {
			want, _, err := Dedup(in.Clone(), Options{Workers: 2, Libbpf112: legacy})
			if err != nil {
				t.Fatal(err)
			}
			var restore func()
			if split {
				restore = splitSmall()
			}
			got, st := streamDedup(t, in.Clone(), cuts, Options{InPlace: true, Workers: 2, Libbpf112: legacy})
			if split {
				restore()
			}
			if why := stoppedWhy(st); why != "" {
				stopped[why[:min(len(why), 40)]]++
			} else {
				ran++
			}
			if !bytes.Equal(got.Marshal(got.ByteOrder()), want.Marshal(want.ByteOrder())) {
				t.Fatalf("seed %d, Libbpf112 %v, cuts %v: stream output differs from Dedup's (%d vs %d types)\nstream passes: %v",
					seed, legacy, cuts, got.NumTypes(), want.NumTypes(), st.Passes)
			}
		}
	}
	t.Logf("streams run to the end: %d; stopped: %v", ran, stopped)
	if ran == 0 {
		t.Fatal("no stream ran to the end: the comparison tested only the fallback")
	}
}

// TestStreamVmlinux checks the stream on the undeduplicated vmlinux BTF,
// shown to it in stretches of about 1,500 types ending at unit boundaries,
// as the conversion of that vmlinux shows it: the result must be Dedup's
// (which TestDedupVmlinux holds to libbpf's), without falling back.
func TestStreamVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the 3.4 M-type vmlinux in -short mode")
	}
	undeduped := testutil.Reference(t, testutil.VmlinuxName+".undeduped.btf.xz")
	in := parseFile(t, undeduped, nil)
	var cuts []int
	for _, c := range closedCuts(in) {
		if len(cuts) == 0 || c-cuts[len(cuts)-1] >= 1500 {
			cuts = append(cuts, c)
		}
	}
	t0 := time.Now()
	want, _, err := Dedup(in.Clone(), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	got, st := streamDedup(t, in, cuts, Options{InPlace: true, Workers: 2})
	t.Logf("%d stretches; Dedup %v, stream %v: %v", len(cuts)+1, t1.Sub(t0), time.Since(t1), st.Passes)
	if why := stoppedWhy(st); why != "" {
		t.Errorf("the stream fell back: %s", why)
	}
	if !bytes.Equal(got.Marshal(got.ByteOrder()), want.Marshal(want.ByteOrder())) {
		t.Errorf("stream output differs from Dedup's (%d vs %d types)", got.NumTypes(), want.NumTypes())
	}
}

// TestStreamEnumFwdMovedTwice builds the case of point 3 of Stream where a
// stream's struct pass would decide otherwise than Dedup's: an enum FWD of
// unit 1 is pointed at the full ENUM64 of unit 2, then at the different full
// ENUM of unit 4. Unit 3's enum FWD is mapped to unit 1's (two INTs in unit 2
// grow libbpf's table, which turns the candidate list around so that the
// FWD comes first). Dedup's struct pass sees only the second pointing, so
// unit 3's S has an ENUM FWD member against unit 2's ENUM64 (kinds differ: S
// stays apart); a stream that went on would see both in one class and merge
// the two S. The stream must notice and fall back.
func TestStreamEnumFwdMovedTwice(t *testing.T) {
	structS := func(s *btf.Spec, member btf.TypeID) {
		s.AddStruct(false, "S", 8, []btf.MemberSpec{{Name: "m", Type: member}})
	}
	u1 := btf.NewSpec(nil)
	u1.AddEnum("E", 4, false, false, nil)
	u2 := btf.NewSpec(nil)
	structS(u2, u2.AddEnum("E", 8, false, true, []btf.EnumValueSpec{{Name: "A", Value: 1 << 40}}))
	u2.AddInt("a", 4, btf.IntSigned, 32)
	u2.AddInt("b", 4, btf.IntSigned, 32)
	u3 := btf.NewSpec(nil)
	structS(u3, u3.AddEnum("E", 4, false, false, nil))
	u4 := btf.NewSpec(nil)
	u4.AddEnum("E", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}})
	units := []*btf.Spec{u1, u2, u3, u4}
	in := interned(t, concat(units))
	var cuts []int
	n := 0
	for _, u := range units {
		n += u.NumTypes()
		cuts = append(cuts, n)
	}
	want, _, err := Dedup(in.Clone(), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, st := streamDedup(t, in.Clone(), cuts[:len(cuts)-1], Options{InPlace: true, Workers: 2})
	if why := stoppedWhy(st); !strings.Contains(why, "enum forward declaration") {
		t.Errorf("the stream did not stop for the enum FWD: %v", st.Passes)
	}
	if !bytes.Equal(got.Marshal(got.ByteOrder()), want.Marshal(want.ByteOrder())) {
		t.Errorf("stream output differs from Dedup's:\n%s\nwant:\n%s", dump(t, got), dump(t, want))
	}
	if want.NumTypes() != 6 { // two full enums E, two INTs, two S
		t.Errorf("Dedup made %d types, want 6:\n%s", want.NumTypes(), dump(t, want))
	}
}

// TestStreamAdd runs a stream as gobtf -J does: units appended to a Spec on
// one goroutine, Add after each, the stream's passes on its own goroutine
// (run with -race, this checks that the two share nothing unsynchronized).
func TestStreamAdd(t *testing.T) {
	defer func(v int) { streamStretch = v }(streamStretch)
	streamStretch = 1
	for seed := uint64(1); seed <= 20; seed++ {
		units := genUnits(seed, 3+int(seed%7), 5+int(seed%13), false)
		for i, u := range units {
			units[i] = interned(t, u)
		}
		in := btf.NewSpec(nil)
		for _, u := range units {
			in.AppendSpec(u)
		}
		want, _, err := Dedup(in, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		out := btf.NewSpec(nil)
		st := NewStream(Options{InPlace: true, Workers: 2}, 0)
		for _, u := range units {
			out.AppendSpec(u)
			st.Add(out)
		}
		got, stats, err := st.Finish(out)
		if err != nil {
			t.Fatal(err)
		}
		if why := stoppedWhy(stats); why != "" && !strings.Contains(why, "equivalent to two") {
			t.Errorf("seed %d: the stream fell back: %s", seed, why)
		}
		if !bytes.Equal(got.Marshal(got.ByteOrder()), want.Marshal(want.ByteOrder())) {
			t.Fatalf("seed %d: stream output differs from Dedup's", seed)
		}
	}
}

// TestStreamHold drives a stream as gobtf -J does, with Hold called before
// each unit, as the converters call it, and a lag of two types allowed:
// whenever Hold returns, the stream has processed all but two types of what
// Add reported, and the result is still Dedup's. A stream that stops (a
// type referencing a later one) must let Hold return too.
func TestStreamHold(t *testing.T) {
	defer func(s, l int) { streamStretch, holdLag = s, l }(streamStretch, holdLag)
	streamStretch, holdLag = 1, 2
	for seed := uint64(1); seed <= 20; seed++ {
		units := genUnits(seed, 3+int(seed%7), 5+int(seed%13), false)
		for i, u := range units {
			units[i] = interned(t, u)
		}
		want, _, err := Dedup(concat(units), Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		out := btf.NewSpec(nil)
		st := NewStream(Options{InPlace: true, Workers: 2}, 0)
		for _, u := range units {
			st.Hold()
			if lag := st.joined.Load() - st.processed.Load(); lag > int64(holdLag) && !st.ended.Load() {
				t.Fatalf("seed %d: Hold returned %d types behind", seed, lag)
			}
			out.AppendSpec(u)
			st.Add(out)
		}
		got, _, err := st.Finish(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Marshal(got.ByteOrder()), want.Marshal(want.ByteOrder())) {
			t.Fatalf("seed %d: stream output differs from Dedup's", seed)
		}
	}

	// A pointer to type 9 of 8: the stream stops at its first stretch.
	in := btf.NewSpec(nil)
	for range 8 {
		in.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 9)
	}
	st := NewStream(Options{InPlace: true, Workers: 2}, 0)
	st.Add(in)
	held := make(chan struct{})
	go func() { st.Hold(); close(held) }()
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("Hold still waits on a stream that stopped")
	}
	st.Stop()
}
