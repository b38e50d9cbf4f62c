package btfext

import (
	"encoding/binary"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// FuzzParse: Parse ends with an Ext or a FormatError, never a panic; an
// accepted Ext's records lie inside the data, each decoded from the bytes
// at its offset, in increasing order.
func FuzzParse(f *testing.F) {
	f.Add(sampleExt())
	f.Add(testutil.BTFExt([]uint32{0}, [][]testutil.CoreReloRecord{{{InsnOff: 1, TypeID: 2, AccessStrOff: 3, Kind: 12}}}))
	short := sampleExt()
	binary.LittleEndian.PutUint32(short[4:], 24)
	f.Add(short)
	f.Fuzz(func(t *testing.T, data []byte) {
		ext, err := Parse(data)
		if err != nil {
			if _, ok := err.(*FormatError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		last := -1
		for _, s := range ext.Relocs {
			if s.Offset <= last || len(s.Relocs) == 0 {
				t.Fatalf("section at %d after %d, %d records", s.Offset, last, len(s.Relocs))
			}
			last = s.Offset
			for _, r := range s.Relocs {
				if r.Offset <= last || r.Offset+16 > len(data) {
					t.Fatalf("record at %d after %d in %d bytes", r.Offset, last, len(data))
				}
				last = r.Offset
				le := hostOrder
				if got := (Reloc{le.Uint32(data[r.Offset:]), le.Uint32(data[r.Offset+4:]), le.Uint32(data[r.Offset+8:]), RelocKind(le.Uint32(data[r.Offset+12:])), r.Offset}); got != r {
					t.Fatalf("record %+v, bytes say %+v", r, got)
				}
			}
		}
		if ext.NumRelocs() > len(data)/16 {
			t.Fatalf("%d records in %d bytes", ext.NumRelocs(), len(data))
		}
	})
}
