package dedup

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestStringMarks checks the lengths the string pass records at its marks
// against a count made here from the input alone (the bytes of the distinct
// non-empty strings the types before the mark name, plus the empty string),
// for the serial and the deferred string pass and for a Stream, and that
// marks change nothing in the output.
func TestStringMarks(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		units := genUnits(seed, 2+int(seed%7), 4+int(seed%19), seed%4 == 0)
		in := concat(units)
		if seed%3 != 0 {
			in = interned(t, in)
		}
		n := in.NumTypes()
		r := rand.New(rand.NewPCG(seed, 11))
		var marks []btf.TypeID
		for id := btf.TypeID(1); id <= btf.TypeID(n)+1; id++ {
			if r.IntN(5) == 0 {
				marks = append(marks, id, id) // two marks at one type are allowed
			}
		}
		marks = append(marks, btf.TypeID(n)+1)
		want := expectedMarkLens(in, marks)

		plain, _, err := Dedup(in.Clone(), Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, serial := range []bool{true, false} {
			out, st, err := Dedup(in.Clone(), Options{Workers: 2, StringMarks: marks, serialStrings: serial})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(st.StringMarks, want) {
				t.Fatalf("seed %d, serial strings %v: marks %v recorded %v, want %v", seed, serial, marks, st.StringMarks, want)
			}
			if !slices.Equal(out.Marshal(out.ByteOrder()), plain.Marshal(plain.ByteOrder())) {
				t.Fatalf("seed %d: marks changed the output", seed)
			}
		}

		// A Stream, given its marks as a conversion gives them: before
		// the part that holds the marked type.
		st := NewStream(Options{InPlace: true, Workers: 2}, n)
		st.Stop()
		words, offs := in.Words(), in.TypeOffsets()
		next := 0
		for cut := 1 + r.IntN(3); cut < n; cut += 1 + r.IntN(4) {
			for next < len(marks) && int(marks[next]) <= cut {
				st.MarkStrings(marks[next])
				next++
			}
			st.takeMarks()
			st.advance(part{words: words[:offs[cut]], offs: offs[:cut], strs: in.Strings().Bytes(), strStart: in.Strings().Start()})
		}
		for ; next < len(marks); next++ {
			st.MarkStrings(marks[next])
		}
		out, stats, err := st.Finish(in.Clone())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(stats.StringMarks, want) {
			t.Fatalf("seed %d, stream (stopped: %q): marks %v recorded %v, want %v", seed, stoppedWhy(stats), marks, stats.StringMarks, want)
		}
		if !slices.Equal(out.Marshal(out.ByteOrder()), plain.Marshal(plain.ByteOrder())) {
			t.Fatalf("seed %d: the stream's output with marks differs", seed)
		}
	}
}

// expectedMarkLens returns, for each mark, the length a new string table
// reaches holding the empty string and the distinct strings named by the
// own types before the mark.
func expectedMarkLens(in *btf.Spec, marks []btf.TypeID) []uint32 {
	seen := map[string]bool{"": true}
	size := uint32(1)
	var lens []uint32
	k := 0
	for i := 0; i <= in.NumTypes(); i++ {
		for k < len(marks) && int(marks[k]) <= int(in.FirstID())+i {
			lens = append(lens, size)
			k++
		}
		if i == in.NumTypes() {
			break
		}
		btf.Type(in.Own(i)).ForEachStrRef(func(p *uint32) {
			if s := in.Strings().String(*p); !seen[s] {
				seen[s] = true
				size += uint32(len(s)) + 1
			}
		})
	}
	return lens
}
