package dedup

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
)

// mapped reports whether id already has a representative (possibly itself).
func (d *deduper) mapped(id uint32) bool { return d.canon[id] <= maxTypeID }

// resolve follows the canonical map from id as far as it leads: to id's
// representative when the chain is complete, or to the last mapped type.
func (d *deduper) resolve(id uint32) uint32 {
	for {
		c := d.canon[id]
		if c > maxTypeID || c == id {
			return id
		}
		id = c
	}
}

// resolveFwd returns the struct or union a FWD has been resolved to, or id
// itself when id is no FWD or is not resolved to a definition.
func (d *deduper) resolveFwd(id uint32) uint32 {
	if d.kindOf(id) != btf.KindFwd {
		return id
	}
	r := d.resolve(id)
	if d.kindOf(r) != btf.KindFwd {
		return r
	}
	return id
}

// hypotAdd pairs canonical-graph type from with candidate-graph type to.
// Pairs of which one side is a FWD, STRUCT or UNION (merge) are also listed
// in hypotMerge, in the same order, for mergeHypot: only those can change
// the canonical map, and they are a fraction of all pairs. The caller
// tells them by the kinds in the type words it has read anyway, rather
// than by two more loads from kinds.
func (d *deduper) hypotAdd(from, to uint32, merge bool) {
	d.hypotList = append(d.hypotList, from)
	d.hypot[from] = to + 1
	if merge {
		d.hypotMerge = append(d.hypotMerge, from)
	}
}

func (d *deduper) clearHypot() {
	for _, id := range d.hypotList {
		d.hypot[id] = 0
	}
	d.hypotList = d.hypotList[:0]
	d.hypotMerge = d.hypotMerge[:0]
	d.hypotAdjustCanon = false
}

// settled reports that isEquiv(candID, canonID) would return true at once,
// without walking: both sides already share a representative, or the
// canonical side, not a FWD, is already paired with this very candidate in
// the running walk. Two thirds of the pairs isEquiv's recursion meets on a
// kernel are settled; asking first, inlined, saves their calls.
func (d *deduper) settled(candID, canonID uint32) bool {
	return d.resolve(candID) == d.resolve(canonID) ||
		d.hypot[canonID] == candID+1 && d.kinds[canonID] != btf.KindFwd
}

// isEquiv decides whether the type graph reachable from candID (the
// candidate graph, a type being deduplicated) is equivalent to the one
// reachable from canonID (a candidate representative), by walking both
// graphs side by side, depth first.
//
// Invariants of the walk:
//   - Types already known to share a representative are equivalent.
//   - hypot maps each visited canonical-graph type to the candidate-graph
//     type it was paired with. Meeting a pair again whose canonical side is
//     already paired with the same candidate closes a cycle and is taken as
//     equivalent; paired with another candidate it is a contradiction, unless
//     the two candidate types are structurally identical (compilers do emit
//     identical duplicates within one unit), which identicalTypes checks to
//     a bounded depth.
//   - A FWD matches a STRUCT/UNION of its name and kind. On the canonical
//     side a FWD already resolved to a definition is replaced by it; on the
//     candidate side FWDs are never followed. When a base FWD would have to
//     be resolved to a split definition, hypotAdjustCanon is set: the graphs
//     are then not treated as equivalent (the base cannot change), but the
//     FWD resolution is still recorded by mergeHypot.
//
// A VAR or DATASEC inside a compared graph is an error, as in libbpf.
func (d *deduper) isEquiv(candID, canonID uint32) (bool, error) {
	if d.resolve(candID) == d.resolve(canonID) {
		return true, nil
	}
	return d.isEquivUnsettled(candID, canonID)
}

// isEquivUnsettled is isEquiv for a pair whose two sides are known not to
// share a representative: one settled has answered no for, most of the
// pairs of the walk. It saves resolving both sides again.
//
// It is never inlined. With profile-guided optimization the compiler may
// otherwise inline it into its own recursive calls, which made it four
// times larger and the struct pass measurably slower, depending on the
// profile's samples: remaking default.pgo flipped between the two builds.
//
//go:noinline
func (d *deduper) isEquivUnsettled(candID, canonID uint32) (bool, error) {
	canonID = d.resolveFwd(canonID)
	// The two types' words are looked up before the hypothetical map, so
	// that their cache misses overlap with its own: few calls end at the
	// map, and the words are read next in the others.
	ct, nt := d.typ(candID), d.typ(canonID)
	if h := d.hypot[canonID]; h != 0 {
		h-- // stored plus one
		if h == candID {
			return true, nil
		}
		if d.watch != nil {
			d.watchEnums(candID, canonID, ct, nt)
		}
		d.identSteps = maxIdentSteps
		if d.legacy {
			return d.identicalLegacy(h, candID, maxLegacyDepth), nil
		}
		return d.identicalTypes(h, candID, 16), nil
	}
	ck, nk := btf.InfoKind(ct[1]), btf.InfoKind(nt[1])
	d.hypotAdd(canonID, candID, fwdOrComposite(nk) || fwdOrComposite(ck))

	if ct[0] != nt[0] {
		return false, nil
	}
	if (ck == btf.KindFwd || nk == btf.KindFwd) && ck != nk {
		var real, fk btf.Kind
		if ck == btf.KindFwd {
			real, fk = nk, fwdKind(ct)
		} else {
			real, fk = ck, fwdKind(nt)
			if fk == real && canonID < d.firstID {
				d.hypotAdjustCanon = true
			}
		}
		return fk == real, nil
	}
	if ck != nk {
		if d.watch != nil {
			d.watchEnums(candID, canonID, ct, nt)
		}
		return false, nil
	}

	switch ck {
	case btf.KindInt:
		return equalWords(ct, nt), nil
	case btf.KindEnum, btf.KindEnum64:
		if d.watch != nil {
			d.watchEnums(candID, canonID, ct, nt)
		}
		return compatEnum(ct, nt), nil
	case btf.KindFwd, btf.KindFloat:
		return equalCommon(ct, nt), nil
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr,
		btf.KindTypedef, btf.KindFunc, btf.KindTypeTag:
		if ct[1] != nt[1] {
			return false, nil
		}
		if d.settled(ct[2], nt[2]) {
			return true, nil
		}
		return d.isEquivUnsettled(ct[2], nt[2])
	case btf.KindArray:
		if !compatArray(ct, nt) {
			return false, nil
		}
		if eq, err := d.isEquiv(ct[4], nt[4]); !eq || err != nil {
			return eq, err
		}
		return d.isEquiv(ct[3], nt[3])
	case btf.KindStruct, btf.KindUnion:
		if !shallowEqualStruct(ct, nt) {
			return false, nil
		}
		nt = nt[:len(ct)] // equal lengths (shallowEqualStruct): nt[j] needs no bounds check
		for j := 4; j < len(ct); j += 3 {
			if d.settled(ct[j], nt[j]) {
				continue
			}
			if eq, err := d.isEquivUnsettled(ct[j], nt[j]); !eq || err != nil {
				return eq, err
			}
		}
		return true, nil
	case btf.KindFuncProto:
		if !compatFuncProto(ct, nt) {
			return false, nil
		}
		if eq, err := d.isEquiv(ct[2], nt[2]); !eq || err != nil {
			return eq, err
		}
		nt = nt[:len(ct)] // equal lengths (compatFuncProto), as above
		for j := 4; j < len(ct); j += 2 {
			if d.settled(ct[j], nt[j]) {
				continue
			}
			if eq, err := d.isEquivUnsettled(ct[j], nt[j]); !eq || err != nil {
				return eq, err
			}
		}
		return true, nil
	}
	return false, fmt.Errorf("dedup: cannot compare type %d (%s) in a type graph", candID, ck)
}

// maxIdentSteps bounds the work of one duplicate-tolerance check
// (identicalTypes, identicalLegacy): the number of type pairs it may visit
// before answering "not identical". libbpf has no such bound; its walk
// branches at every member and only its depth is limited, so crafted input
// (or a pointer cycle, which libbpf follows forever) could make it run
// practically forever. Real type graphs need a tiny fraction of this.
const maxIdentSteps = 1 << 20

// identicalTypes reports whether id1 and id2 are structurally identical,
// looking at most depth levels deep through members, parameters and array
// parts (chains of pointers, modifiers, typedefs and funcs do not count as
// levels). It is the tolerance for duplicates within one candidate graph.
//
// This follows current libbpf, including one quirk kept for identical
// output: two arrays count as identical when their headers and element counts
// match, whatever their element and index types.
func (d *deduper) identicalTypes(id1, id2 uint32, depth int) bool {
	for {
		if d.identSteps--; d.identSteps < 0 {
			return false
		}
		t1, t2 := d.typ(id1), d.typ(id2)
		if depth <= 0 {
			return false
		}
		k := btf.InfoKind(t1[1])
		if k != btf.InfoKind(t2[1]) {
			return false
		}
		switch k {
		case btf.KindUnknown:
			return true
		case btf.KindInt:
			return equalWords(t1, t2)
		case btf.KindEnum, btf.KindEnum64:
			return compatEnum(t1, t2)
		case btf.KindFwd, btf.KindFloat:
			return equalCommon(t1, t2)
		case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr,
			btf.KindTypedef, btf.KindFunc, btf.KindTypeTag:
			if t1[1] != t2[1] || t1[0] != t2[0] {
				return false
			}
			id1, id2 = t1[2], t2[2]
			continue
		case btf.KindArray:
			return compatArray(t1, t2)
		case btf.KindStruct, btf.KindUnion:
			if !shallowEqualStruct(t1, t2) {
				return false
			}
			for j := 4; j < len(t1); j += 3 {
				if t1[j] != t2[j] && !d.identicalTypes(t1[j], t2[j], depth-1) {
					return false
				}
			}
			return true
		case btf.KindFuncProto:
			if !compatFuncProto(t1, t2) {
				return false
			}
			if t1[2] != t2[2] && !d.identicalTypes(t1[2], t2[2], depth-1) {
				return false
			}
			for j := 4; j < len(t1); j += 2 {
				if t1[j] != t2[j] && !d.identicalTypes(t1[j], t2[j], depth-1) {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
}

// mergeHypot turns the pairs of a successful equivalence check into
// permanent mappings, where that is safe:
//   - a FWD on either side paired with a definition is resolved to it (also a
//     base FWD, so that split FWDs mapped to it follow);
//   - unless hypotAdjustCanon is set, a candidate-side struct/union without a
//     representative gets the canonical side's representative, provided that
//     side has one; this only saves later work.
//
// Only FWDs, structs and unions take part, and resolving never changes any
// other kind (a representative has its type's kind, but for a FWD's), so
// pairs of other kinds, most of them, are not even listed (hypotMerge).
func (d *deduper) mergeHypot() {
	for _, canonT := range d.hypotMerge {
		tID := d.resolve(d.hypot[canonT] - 1)
		cID := d.resolve(canonT)
		tk, ck := d.kindOf(tID), d.kindOf(cID)
		if tk != btf.KindFwd && ck == btf.KindFwd {
			d.canon[cID] = tID
		}
		if d.hypotAdjustCanon {
			continue
		}
		if tk == btf.KindFwd && ck != btf.KindFwd {
			d.canon[tID] = cID
		}
		if (tk == btf.KindStruct || tk == btf.KindUnion) && ck != btf.KindFwd &&
			d.mapped(cID) && !d.mapped(tID) {
			d.canon[tID] = cID
		}
	}
}

// fwdOrComposite reports whether k is FWD, STRUCT or UNION.
func fwdOrComposite(k btf.Kind) bool {
	return k == btf.KindFwd || k == btf.KindStruct || k == btf.KindUnion
}
