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
// pass's result or error.
func FuzzDedupBytes(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(genInput(seed, 3, 6).Marshal(binary.LittleEndian))
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
