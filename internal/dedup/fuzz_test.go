package dedup

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// FuzzDedupBytes feeds arbitrary blobs that parse as BTF to Dedup in both
// modes: it must return a result or an error, never panic or hang, and a
// result must encode and decode again with every reference in range. The
// reference pass split across regions (refsplit.go) must give the serial
// pass's result or error, and so must a Stream shown the input in stretches.
func FuzzDedupBytes(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(genInput(seed, 3, 6).Marshal(binary.LittleEndian))
		// One offset per string, as a conversion names types: a
		// stream runs to the end on these rather than falling back.
		f.Add(interned(f, genInput(seed, 3, 6)).Marshal(binary.LittleEndian))
	}
	s := btf.NewSpec(nil)
	allKinds(s)
	f.Add(s.Marshal(binary.LittleEndian))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer splitSmall()()
		for _, legacy := range []bool{false, true} {
			in, err := btf.Parse(data, nil)
			if err != nil {
				return
			}
			out, _, err := Dedup(in, Options{Workers: 1, Libbpf112: legacy})
			split, _, serr := Dedup(in, Options{Workers: 3, Libbpf112: legacy})
			if fmt.Sprint(err) != fmt.Sprint(serr) {
				t.Fatalf("legacy=%v: split reference pass: error %v, serially %v", legacy, serr, err)
			}
			// A stream shown the input in stretches, wherever they
			// end: it either runs to the end or falls back, and gives
			// Dedup's result or error either way.
			var cuts []int
			for c := 1 + int(data[len(data)-1])%13; c < in.NumTypes(); c += 1 + c%13 {
				cuts = append(cuts, c)
			}
			streamed, _, sterr := streamDedupErr(in.Clone(), cuts, Options{Workers: 3, Libbpf112: legacy})
			if fmt.Sprint(err) != fmt.Sprint(sterr) {
				t.Fatalf("legacy=%v: stream (cuts %v): error %v, Dedup's %v", legacy, cuts, sterr, err)
			}
			if err == nil && !bytes.Equal(out.Marshal(binary.LittleEndian), streamed.Marshal(binary.LittleEndian)) {
				t.Fatalf("legacy=%v: stream (cuts %v): output differs from Dedup's", legacy, cuts)
			}
			if err != nil {
				continue
			}
			if !bytes.Equal(out.Marshal(binary.LittleEndian), split.Marshal(binary.LittleEndian)) {
				t.Fatalf("legacy=%v: split reference pass: output differs from the serial pass's", legacy)
			}
			back, err := btf.Parse(out.Marshal(binary.LittleEndian), nil)
			if err != nil {
				t.Fatalf("result does not decode: %v", err)
			}
			testutil.RefsInRange(t, back)
		}
	})
}
