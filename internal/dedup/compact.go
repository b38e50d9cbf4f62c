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
	// Three passes over chunks of the input, each on all workers: count
	// each chunk's representatives and their words; number them and copy
	// them to their places in out, which the counts give; rewrite the
	// copies' IDs and names. None of the three is serial, so no CPU idles
	// while another finishes one.
	// On a kernel the rewrite is the dearest (each reference resolved
	// through the canonical map, each name looked up in the string map,
	// both out of the cache), and every chunk writes only its own types.
	const scanChunk = 1 << 16
	n := int(d.count - d.firstID)
	chunks := (n + scanChunk - 1) / scanChunk
	type count struct{ types, words int }
	counts := make([]count, chunks+1) // counts[c+1]: chunk c's; then the sums before chunk c+1
	// chunkIDs returns the own IDs of chunk c, lo to hi-1.
	chunkIDs := func(c int) (lo, hi uint32) {
		return d.firstID + uint32(c*scanChunk), d.firstID + uint32(min(n, (c+1)*scanChunk))
	}
	d.parallel(chunks, func(c int) {
		var k count
		lo, hi := chunkIDs(c)
		for id := lo; id < hi; id++ {
			if d.canon[id] == id {
				k.types++
				k.words += len(d.typ(id))
			}
		}
		counts[c+1] = k
	})
	for c := 1; c <= chunks; c++ {
		counts[c].types += counts[c-1].types
		counts[c].words += counts[c-1].words
	}
	first := out.TypeCount() + 1
	offs, words, base := out.AppendBlank(counts[chunks].types, counts[chunks].words)
	reps := make([]uint32, counts[chunks].types) // input ID of output type first+i
	d.parallel(chunks, func(c int) {
		k, w := counts[c].types, counts[c].words
		lo, hi := chunkIDs(c)
		for id := lo; id < hi; id++ {
			if d.canon[id] == id {
				newID[id] = d.firstID + uint32(k)
				reps[k] = id
				offs[k] = base + uint32(w)
				w += copy(words[w:], d.typ(id))
				k++
			}
		}
	})
	const chunk = 1 << 13
	rchunks := (len(reps) + chunk - 1) / chunk
	errs := make([]error, rchunks)
	d.parallel(rchunks, func(c int) {
		for i := c * chunk; i < min(len(reps), (c+1)*chunk); i++ {
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
	return nil
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
