package hugemem

import (
	"os"
	"runtime"
	"testing"
	"unsafe"
)

// TestDiscard checks that Discard empties exactly the whole pages inside
// each buffer: they read as zero afterwards (where the system supports it),
// while the bytes of the partial pages at either end, which other objects
// may share, keep their values.
func TestDiscard(t *testing.T) {
	ps := os.Getpagesize()
	for _, tc := range []struct {
		name       string
		start, end int // the discarded buffer, in bytes of a 6-page block
	}{
		{"empty", 100, 100},
		{"inside one page", 100, 200},
		{"unaligned", 100, 4*ps + 7},
		{"aligned", ps, 5 * ps},
		{"whole block", 0, 6 * ps},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A page-aligned block: allocations of many pages are.
			block := make([]byte, 7*ps)
			off := ps - int(uintptr(unsafe.Pointer(unsafe.SliceData(block)))%uintptr(ps))
			if off == ps {
				off = 0
			}
			b := block[off : off+6*ps]
			for i := range b {
				b[i] = 0xa5
			}
			Discard(b[tc.start:tc.end:tc.end])
			lo := (tc.start + ps - 1) / ps * ps
			hi := tc.end / ps * ps
			for i := range b {
				inside := i >= lo && i < hi
				switch {
				case !inside && b[i] != 0xa5:
					t.Fatalf("byte %d outside the whole pages of [%d, %d) changed to %#x", i, tc.start, tc.end, b[i])
				case inside && runtime.GOOS == "linux" && b[i] != 0:
					t.Fatalf("byte %d of a discarded page reads %#x, want 0", i, b[i])
				}
			}
		})
	}
}
