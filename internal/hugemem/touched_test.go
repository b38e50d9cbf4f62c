package hugemem

import (
	"runtime"
	"testing"
)

// TestMakeTouched checks that MakeTouched's slices are zeroed and of the
// length asked for, below and above the size it populates, also when the
// memory is reused from the heap after holding other data.
func TestMakeTouched(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"empty", 0},
		{"small", 100},
		{"just below minTouched", minTouched/8 - 1},
		{"minTouched", minTouched / 8},
		{"large", 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 3 {
				s := MakeTouched[uint64](tc.n)
				if len(s) != tc.n {
					t.Fatalf("round %d: len %d, want %d", round, len(s), tc.n)
				}
				for i, v := range s {
					if v != 0 {
						t.Fatalf("round %d: s[%d] = %#x, want 0", round, i, v)
					}
				}
				// Dirty the memory and free it, so that the next round
				// may get it back from the heap.
				for i := range s {
					s[i] = ^uint64(i)
				}
				s = nil
				runtime.GC()
			}
		})
	}
}
