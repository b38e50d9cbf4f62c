package dedup

import (
	"math/bits"

	"github.com/gobtf/gobtf/internal/btf"
)

// dedupStructs maps every STRUCT, UNION and TYPEDEF to its representative.
//
// A type is looked up in the candidate table under a hash of its own data
// (name, size, member names and offsets; for a typedef its name), and each
// candidate that is shallowly equal is tried in table order with isEquiv; the
// first whose graph is equivalent becomes the representative, and the pairs
// found along the way are merged into the canonical map (mergeHypot). A type
// with no equivalent candidate becomes a representative and a candidate. A
// type already given a representative by an earlier merge is skipped.
//
// Typedefs take part here rather than with the other reference kinds, as in
// current libbpf, so that typedefs that refer to themselves through other
// types (possible outside C) are deduplicated too; for C input the result is
// the same as treating them as reference types.
//
// Established: every struct, union and typedef has a representative.
// Representatives chosen here never change later, which the reference pass
// relies on; FWDs may have been resolved to definitions.
func (d *deduper) dedupStructs() error {
	next := 0 // index of the next struct-like type's hash in structHashes
	ra := readAhead{words: d.words, offs: d.offs}
	defer func() { d.readSum += ra.sum }()
	for w, m := range d.structBits {
		for ; m != 0; m &= m - 1 {
			id := d.firstID + uint32(w*64+bits.TrailingZeros64(m))
			h := d.structHashes[next]
			next++
			if err := d.dedupStruct(id, h, &d.table, &ra); err != nil {
				return err
			}
		}
	}
	return nil
}

// dedupStruct maps struct-like type id, of hash h, to its representative
// with the candidates of tab: the struct pass's step for one type, in ID
// order (see dedupStructs).
func (d *deduper) dedupStruct(id uint32, h uint64, tab *candTable, ra *readAhead) error {
	k := d.kinds[id]
	if d.mapped(id) || k == btf.KindTypedef && d.legacy {
		return nil
	}
	// Only a check reads words (the types before it need nothing), so the
	// words are read ahead from here.
	ra.upTo(int(id - d.firstID))
	t := d.typ(id)
	newID := id
	if d.watch != nil {
		// Streaming (stream.go): the order of the candidates is not
		// known yet where it matters.
		c, err := d.onlyEquiv(id, t, k, h, tab)
		if err != nil {
			return err
		}
		if c != 0 {
			d.mergeHypot() // onlyEquiv leaves c's check in the map
			newID = c
		}
	} else {
		for e := tab.first(h); e != 0; e = tab.entNext[e-1] {
			c := tab.entID[e-1]
			// The shallow check also keeps a FWD that collides on the hash
			// from being chosen, which would create a FWD <-> STRUCT loop.
			if !shallowCand(t, d.typ(c), k) {
				continue
			}
			d.clearHypot()
			eq, err := d.isEquiv(id, c)
			if err != nil {
				return err
			}
			if !eq {
				continue
			}
			d.mergeHypot()
			if d.hypotAdjustCanon {
				d.stats.BaseFwdKeptApart++
				continue
			}
			newID = c
			break
		}
	}
	d.canon[id] = newID
	if newID == id {
		tab.add(h, id)
		if k != btf.KindTypedef {
			d.compReps = append(d.compReps, id)
		}
	}
	return nil
}

// shallowCand reports whether candidate words ct may be equivalent to t, a
// struct-like type of kind k: shallowly equal, or for a typedef of the same
// name and kind.
func shallowCand(t, ct []uint32, k btf.Kind) bool {
	if k == btf.KindTypedef {
		return equalTypedef(t, ct)
	}
	return shallowEqualStruct(t, ct)
}

// resolveFwds resolves each FWD that is still its own representative to the
// one struct or union representative (base or split) of its name, if there is
// exactly one such representative and its kind is the one the FWD declares.
// It catches FWDs that were never part of a graph compared with a
// definition, e.g. "struct foo *p" in a unit that never defines foo.
//
// Only the base types and the lists compReps and fwdReps are looked at: an
// own struct or union that is its own representative was made one by the
// struct pass, and an own FWD by the primitive pass, and no pass makes a
// mapped type a representative again, so the lists hold every candidate
// (each is checked again, as a list entry may have been mapped since).
//
// Established: no representative FWD remains for which exactly one
// same-named, same-kind definition exists (where the name is shared by a
// struct and a union, nothing is resolved).
func (d *deduper) resolveFwds() {
	// Only the names of FWDs still their own representative matter: a
	// small module has a handful, against the base's tens of thousands of
	// structs and unions, whose names need no map entries of their own.
	const none, ambiguous = 0, ^uint32(0)
	names := make(map[uint32]uint32)
	for _, id := range d.fwdReps {
		if d.canon[id] == id {
			names[d.typ(id)[0]] = none
		}
	}
	if len(names) == 0 {
		return
	}
	enter := func(id uint32) {
		k := d.kinds[id]
		if k != btf.KindStruct && k != btf.KindUnion || d.canon[id] != id {
			return
		}
		name := d.typ(id)[0]
		switch c, ok := names[name]; {
		case !ok:
		case c == none:
			names[name] = id
		default:
			names[name] = ambiguous
		}
	}
	for id := uint32(1); id < d.firstID; id++ {
		enter(id)
	}
	for _, id := range d.compReps {
		enter(id)
	}
	for _, id := range d.fwdReps {
		if d.canon[id] != id {
			continue
		}
		t := d.typ(id)
		c := names[t[0]]
		if c == none || c == ambiguous {
			continue
		}
		if d.kindOf(c) != fwdKind(t) {
			continue
		}
		d.canon[id] = c
	}
}
