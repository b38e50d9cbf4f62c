package dedup

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
)

// compact appends the representatives, in their original order, to out and
// rewrites every type ID they reference to the new ID of its representative.
// Base IDs are kept; own representatives are numbered from firstID on.
//
// Established: out holds exactly one type per equivalence class found, no
// type references a dropped type, and the string offsets are those of the
// deduplicated table already in out: the words' own, or, after a deferred
// string pass, their translation by strs.
func (d *deduper) compact(out *btf.Spec, strs *strMap) error {
	// newID is written for the representatives only: a reference always
	// resolves to one, which remap checks, so the other entries are never
	// read (and writing all 3.4 M of a kernel's cost more than the rest).
	newID := d.hypot // free again: reused as old ID -> new ID
	for id := uint32(0); id < d.firstID; id++ {
		newID[id] = id
	}
	var reps []uint32
	next := d.firstID
	words := 0
	for id := d.firstID; id < d.count; id++ {
		if d.canon[id] == id {
			newID[id] = next
			next++
			words += len(d.typ(id))
			reps = append(reps, id)
		}
	}
	out.Reserve(len(reps), words)
	var bad error
	remap := func(p *uint32) {
		r := d.resolve(*p)
		if d.canon[r] != r && bad == nil {
			bad = fmt.Errorf("dedup: reference to type %d has no representative", *p)
		}
		*p = newID[r]
	}
	for _, id := range reps {
		nid, err := out.Append(d.typ(id))
		if err != nil {
			return fmt.Errorf("dedup: copying type %d: %w", id, err)
		}
		out.Type(nid).ForEachTypeRef(remap)
		if bad != nil {
			return bad
		}
		if strs != nil && !strs.translateNames(out.Type(nid)) {
			return fmt.Errorf("dedup: type %d names a string the string pass did not see", id)
		}
	}
	return nil
}

// mappedID returns the ID in the compacted output of input type id: the new
// ID of its representative. It is valid only after compact, which leaves
// the old-to-new map in hypot.
func (d *deduper) mappedID(id uint32) uint32 { return d.hypot[d.resolve(id)] }
