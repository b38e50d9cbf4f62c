package prettify

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// records builds records of struct hdr (type u32, misc u16, size u16) with
// the given sizes, each filled past its header with its index; a record
// shorter than its header still has all of it.
func records(sizes ...uint16) []byte {
	var b []byte
	for i, n := range sizes {
		r := make([]byte, max(int(n), 8))
		binary.LittleEndian.PutUint32(r, uint32(i%3))
		binary.LittleEndian.PutUint16(r[4:], uint16(i))
		binary.LittleEndian.PutUint16(r[6:], n)
		for j := 8; j < len(r); j++ {
			r[j] = byte(i)
		}
		b = append(b, r...)
	}
	return b
}

// TestWalk: records are read one after another, their size from the
// sizeof= member, passed over by the filter then --skip, up to --count
// or --size_bytes, as pahole's loop reads them.
func TestWalk(t *testing.T) {
	sized := walkSpec{size: 8, sizeOff: 6, sizeSize: 2, sizeBytes: ^uint64(0)}
	data := records(8, 16, 12, 8, 20, 8)
	for _, c := range []struct {
		name  string
		spec  walkSpec
		data  []byte
		miscs []int // the records emitted, by their misc (index)
		sizes []int
		short bool
	}{
		{"fixed", walkSpec{size: 8, sizeBytes: ^uint64(0)}, data[:24], []int{0, 1, 0x101}, []int{8, 8, 8}, false},
		{"sizeof", sized, data, []int{0, 1, 2, 3, 4, 5}, []int{8, 16, 12, 8, 20, 8}, false},
		{"count", func() walkSpec { s := sized; s.count = 2; return s }(), data, []int{0, 1}, []int{8, 16}, false},
		{"skip", func() walkSpec { s := sized; s.skip = 4; return s }(), data, []int{4, 5}, []int{20, 8}, false},
		{"skip past the end", func() walkSpec { s := sized; s.skip = 40; return s }(), data, nil, nil, false},
		{"filter", func() walkSpec { s := sized; s.filterSize, s.filterRight = 4, 1; return s }(), data, []int{1, 4}, []int{16, 20}, false},
		{"filter then skip", func() walkSpec {
			s := sized
			s.filterSize, s.filterRight, s.skip = 4, 1, 1
			return s
		}(), data, []int{4}, []int{20}, false},
		// --size_bytes counts the records read, filtered out or not, and
		// stops after the record that reaches it.
		{"size_bytes", func() walkSpec { s := sized; s.sizeBytes = 25; return s }(), data, []int{0, 1, 2}, []int{8, 16, 12}, false},
		{"size_bytes 0", func() walkSpec { s := sized; s.sizeBytes = 0; return s }(), data, []int{0}, []int{8}, false},
		{"cut header", sized, data[:len(data)-3], []int{0, 1, 2, 3, 4}, []int{8, 16, 12, 8, 20}, false},
		{"cut tail", sized, data[:34], []int{0, 1}, []int{8, 16}, true},
		{"short size", sized, records(4, 8), []int{0, 1}, []int{4, 8}, false}, // the next header starts at 8
		{"empty", sized, nil, nil, nil, false},
		{"no size", walkSpec{sizeBytes: ^uint64(0)}, data, nil, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var miscs, sizes []int
			err := walk(NewInput(bytes.NewReader(c.data)), &c.spec, func(r *record) {
				miscs = append(miscs, int(binary.LittleEndian.Uint16(r.buf[4:])))
				sizes = append(sizes, r.size)
				if r.offset != -1 {
					t.Errorf("offset %d of a record read from a reader that is no file", r.offset)
				}
			})
			if isShortRecord(err) != c.short || (err != nil && !c.short) {
				t.Errorf("error %v; want a cut record: %v", err, c.short)
			}
			if !equalInts(miscs, c.miscs) || !equalInts(sizes, c.sizes) {
				t.Errorf("records %v of sizes %v; want %v of sizes %v", miscs, sizes, c.miscs, c.sizes)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestInputFile: on a file, positions are ftell's and skipping seeks,
// failing past the end as pahole's pipe_seek fails there.
func TestInputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, records(8, 16, 12), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := NewInput(f)
	b := make([]byte, 8)
	if !in.ReadFull(b) || in.Tell() != 8 {
		t.Fatalf("after 8 bytes: at %d", in.Tell())
	}
	if !in.Skip(16) || in.Tell() != 24 || !in.ReadFull(b[:4]) || binary.LittleEndian.Uint16(b[:4]) != 2 {
		t.Fatalf("after skipping 16: at %d, read %x", in.Tell(), b[:4])
	}
	if in.Skip(100) || in.Tell() != 36 {
		t.Fatalf("skipping past the end: at %d", in.Tell())
	}
	if !in.Skip(0) || in.Skip(-1) || in.ReadFull(b) {
		t.Fatalf("at the end: skips or reads")
	}
	var offsets []int64
	in2 := NewInput(bytes.NewReader(records(8, 16)))
	walk(in2, &walkSpec{size: 8, sizeOff: 6, sizeSize: 2, sizeBytes: ^uint64(0)}, func(r *record) { offsets = append(offsets, r.offset) })
	if len(offsets) != 2 || offsets[0] != -1 || offsets[1] != -1 {
		t.Errorf("offsets on a pipe %v; want ftell's -1", offsets)
	}
}

// FuzzWalk: any input walks to its end or to a cut record, reading no
// more than it holds, each record at least as long as its type or as its
// sizeof= says, in a buffer no longer than the longest record; never a
// panic.
func FuzzWalk(f *testing.F) {
	f.Add(records(8, 16, 12, 8), uint8(8), uint8(6), uint8(2), uint8(0), uint32(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0x7f, 1}, uint8(8), uint8(6), uint8(2), uint8(3), uint32(5))
	f.Add([]byte{1, 2, 3}, uint8(0), uint8(0), uint8(0), uint8(0), uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, size, sizeOff, sizeSize, skip uint8, sizeBytes uint32) {
		spec := walkSpec{size: int(size % 64), sizeOff: int(sizeOff % 64), sizeSize: int(sizeSize % 9),
			skip: uint32(skip % 8), count: uint32(skip % 5), sizeBytes: uint64(sizeBytes)}
		if spec.sizeSize != 0 && spec.sizeOff+spec.sizeSize > spec.size {
			spec.sizeSize = 0 // a sizeof= member lies inside its struct
		}
		read := 0
		err := walk(NewInput(bytes.NewReader(data)), &spec, func(r *record) {
			n := max(r.size, spec.size)
			if read += n; read > len(data) {
				t.Fatalf("records of %d bytes out of %d", read, len(data))
			}
			if len(r.buf) > max(spec.size, len(data)) {
				t.Fatalf("a buffer of %d bytes for %d bytes of input", len(r.buf), len(data))
			}
		})
		if err != nil && !isShortRecord(err) {
			t.Fatalf("error %v", err)
		}
	})
}
