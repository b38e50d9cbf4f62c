package dedup

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
)

// dedupRefs maps every remaining type (PTR, CONST, VOLATILE, RESTRICT,
// TYPE_TAG, FUNC, DECL_TAG, ARRAY, FUNC_PROTO) to its representative, see
// dedupRef.
//
// Established: every own type has a representative, and the references
// inside every representative reference type are representatives.
func (d *deduper) dedupRefs() error {
	if d.split != nil {
		return d.dedupRefsSplit(d.split)
	}
	for id := d.firstID; id < d.count; id++ {
		if d.mapped(id) {
			continue
		}
		if _, err := d.dedupRef(id); err != nil {
			return err
		}
	}
	return nil
}

// dedupRef returns the representative of id, computing it first if needed:
// the types id references are deduplicated (recursively) and rewritten to
// their representatives, which makes id's words final; id is then merged
// with an exactly equal candidate of the same hash, or becomes a candidate.
// Recursion ends at kinds settled by the earlier passes. In C only structs
// and unions close cycles, so meeting a type already in progress means a
// cycle of reference types only, which is reported as an error. With an
// error, id itself is returned, so that the caller's reference stays as it
// was: a region's walk that stops (errLeftRegion) is resumed later.
func (d *deduper) dedupRef(id uint32) (uint32, error) {
	// Outside its region a walk may only read settled types (refsplit.go);
	// the region check comes before canon is read, which another region's
	// walk may be writing.
	if id-d.regionLo >= d.regionHi-d.regionLo && id >= d.firstID && d.refPassKind(d.kinds[id]) {
		return id, errLeftRegion
	}
	switch c := d.canon[id]; {
	case c == inProgress:
		return id, fmt.Errorf("dedup: type %d is part of a cycle of reference types", id)
	case c <= maxTypeID:
		return d.resolve(id), nil
	}
	t := d.typ(id)
	d.canon[id] = inProgress

	var h uint64
	var err error
	newID := id
	switch k := btf.InfoKind(t[1]); k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr,
		btf.KindFunc, btf.KindTypeTag, btf.KindTypedef:
		// A TYPEDEF gets here only with Libbpf112; otherwise the struct
		// pass has mapped it.
		if t[2], err = d.dedupRef(t[2]); err != nil {
			return id, err
		}
		h = hashCommon(t)
		// findRef's loop, written out: these kinds are most of the
		// pass, and both the call and taking positions and hash from
		// refPositions and refHash for every kind, as mergeRef does,
		// showed in its time.
		for e := d.table.first(h); e != 0; e = d.table.entNext[e-1] {
			if c := d.table.entID[e-1]; equalCommon(t, d.typ(c)) {
				newID = c
				break
			}
		}
	case btf.KindDeclTag:
		if t[2], err = d.dedupRef(t[2]); err != nil {
			return id, err
		}
		h = hashIntTag(t)
		newID = findRef(d, &d.table, k, h, t, id)
	case btf.KindArray:
		if t[3], err = d.dedupRef(t[3]); err != nil {
			return id, err
		}
		if t[4], err = d.dedupRef(t[4]); err != nil {
			return id, err
		}
		h = hashArray(t)
		newID = findRef(d, &d.table, k, h, t, id)
	case btf.KindFuncProto:
		if t[2], err = d.dedupRef(t[2]); err != nil {
			return id, err
		}
		for j := 4; j < len(t); j += 2 {
			if t[j], err = d.dedupRef(t[j]); err != nil {
				return id, err
			}
		}
		h = hashFuncProto(t)
		newID = findRef(d, &d.table, k, h, t, id)
	default:
		return id, fmt.Errorf("dedup: type %d (%s) left for the reference pass", id, k)
	}
	d.canon[id] = newID
	if newID == id {
		d.table.add(h, id)
	}
	return newID, nil
}

// refHash returns the hash under which reference type t, of kind k and
// with final references, is a candidate.
func refHash(k btf.Kind, t []uint32) uint64 {
	switch k {
	case btf.KindDeclTag:
		return hashIntTag(t)
	case btf.KindArray:
		return hashArray(t)
	case btf.KindFuncProto:
		return hashFuncProto(t)
	}
	return hashCommon(t)
}

// findRef returns the first candidate under h in tab that equals reference
// type t of kind k, or id if there is none. The kinds hashed by hashCommon
// are compared on their three words, as libbpf does; the others on all.
func findRef(d *deduper, tab *candTable, k btf.Kind, h uint64, t []uint32, id uint32) uint32 {
	e := tab.first(h)
	if k != btf.KindDeclTag && k != btf.KindArray && k != btf.KindFuncProto {
		for ; e != 0; e = tab.entNext[e-1] {
			if c := tab.entID[e-1]; equalCommon(t, d.typ(c)) {
				return c
			}
		}
		return id
	}
	for ; e != 0; e = tab.entNext[e-1] {
		if c := tab.entID[e-1]; equalWords(t, d.typ(c)) {
			return c
		}
	}
	return id
}
