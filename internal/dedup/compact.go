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
	// resolves to one, which rewrite checks, so the other entries are never
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
	// The words are copied in order first, then the IDs and names are
	// rewritten in place, in chunks on all workers: on a kernel that
	// rewriting is most of the pass (each reference resolved through the
	// canonical map, each name looked up in the string map, both out of
	// the cache), and every chunk writes only its own types. An error
	// of the copy at representative k is reported unless a rewrite of an
	// earlier one fails, as when each type was copied and rewritten in
	// turn; among rewrites, the earliest failing chunk reports.
	first := out.TypeCount() + 1
	copied := len(reps)
	var copyErr error
	for i, id := range reps {
		if _, err := out.Append(d.typ(id)); err != nil {
			copied, copyErr = i, fmt.Errorf("dedup: copying type %d: %w", id, err)
			break
		}
	}
	const chunk = 1 << 13
	chunks := (copied + chunk - 1) / chunk
	errs := make([]error, chunks)
	d.parallel(chunks, func(c int) {
		for i := c * chunk; i < min(copied, (c+1)*chunk); i++ {
			if errs[c] = d.rewrite(out.Type(first+btf.TypeID(i)), reps[i], newID, strs); errs[c] != nil {
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return copyErr
}

// rewrite sets the type IDs that t, the copy of representative id, refers
// to to the new IDs of their representatives (newID), and with strs its
// names to their offsets in the deduplicated string table.
func (d *deduper) rewrite(t btf.Type, id uint32, newID []uint32, strs *strMap) error {
	var bad error
	t.ForEachTypeRef(func(p *uint32) {
		r := d.resolve(*p)
		if d.canon[r] != r && bad == nil {
			bad = fmt.Errorf("dedup: reference to type %d has no representative", *p)
		}
		*p = newID[r]
	})
	if bad != nil {
		return bad
	}
	if strs != nil && !strs.translateNames(t) {
		return fmt.Errorf("dedup: type %d names a string the string pass did not see", id)
	}
	return nil
}

// mappedID returns the ID in the compacted output of input type id: the new
// ID of its representative. It is valid only after compact, which leaves
// the old-to-new map in hypot.
func (d *deduper) mappedID(id uint32) uint32 { return d.hypot[d.resolve(id)] }
