package dedup

import (
	"encoding/binary"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// FuzzDedupBytes feeds arbitrary blobs that parse as BTF to Dedup in both
// modes: it must return a result or an error, never panic or hang, and a
// result must encode and decode again with every reference in range.
func FuzzDedupBytes(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(genInput(seed, 3, 6).Marshal(binary.LittleEndian))
	}
	s := btf.NewSpec(nil)
	allKinds(s)
	f.Add(s.Marshal(binary.LittleEndian))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, legacy := range []bool{false, true} {
			in, err := btf.Parse(data, nil)
			if err != nil {
				return
			}
			out, _, err := Dedup(in, Options{Libbpf112: legacy})
			if err != nil {
				continue
			}
			back, err := btf.Parse(out.Marshal(binary.LittleEndian), nil)
			if err != nil {
				t.Fatalf("result does not decode: %v", err)
			}
			testutil.RefsInRange(t, back)
		}
	})
}
