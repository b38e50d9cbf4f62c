package dedup

import (
	"fmt"
	"math"

	"github.com/gobtf/gobtf/internal/btf"
)

// String marks.
//
// The string pass enters the strings of the own types into the output's
// table in the order of their first reference. A caller that must place
// strings of its own among them, in an order that depends on where in the
// input they belong (pahole keeps the parameter names of every function it
// saved, at the point it saved them, see encoder's string order), asks for
// marks: own type IDs at which the pass records how long the table is. The
// strings before the length recorded at a mark are exactly those first named
// by the types before the mark.
//
// A mark costs one comparison per type in the pass, and recording never
// changes what the pass writes.

// stringMarks holds the marks of one string pass and what it recorded.
type stringMarks struct {
	at   []int    // own type indices (ID - firstID), ascending
	lens []uint32 // the table's length at at[k], for every k < len(lens)
}

// setMarks sets the marks of d's string pass from ascending own type IDs;
// an ID one past the last type marks the end of the pass.
func (d *deduper) setMarks(ids []btf.TypeID) error {
	d.marks = stringMarks{at: make([]int, 0, len(ids))}
	return d.addMarks(ids)
}

// addMarks appends marks, which must not come before those set already.
func (d *deduper) addMarks(ids []btf.TypeID) error {
	for _, id := range ids {
		i := int(id) - int(d.firstID)
		if i < 0 || len(d.marks.at) > 0 && i < d.marks.at[len(d.marks.at)-1] {
			return fmt.Errorf("dedup: string mark %d out of order or below the first own type %d", id, d.firstID)
		}
		d.marks.at = append(d.marks.at, i)
	}
	return nil
}

// next returns the own index of the first mark not recorded yet, or
// math.MaxInt when every mark is.
func (m *stringMarks) next() int {
	if len(m.lens) < len(m.at) {
		return m.at[len(m.lens)]
	}
	return math.MaxInt
}

// reach records nt's length for the marks at or before own index i, and
// returns the next mark's index (as next).
func (m *stringMarks) reach(i int, nt *btf.StringTable) int {
	for len(m.lens) < len(m.at) && m.at[len(m.lens)] <= i {
		m.lens = append(m.lens, nt.Len())
	}
	return m.next()
}

// reset forgets what was recorded (a string pass that starts again).
func (m *stringMarks) reset() { m.lens = m.lens[:0] }
