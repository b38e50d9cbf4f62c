package dedup

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gobtf/gobtf/internal/btf"
)

// Splitting the reference pass across CPUs.
//
// The reference pass is a depth-first walk in ID order: a type's referents
// are deduplicated before it, and the first type of each class to finish
// becomes its representative. References are compared exactly, so the
// candidate table never holds two equal reference types, and which one a
// lookup finds does not depend on list order, only on which types finished
// before.
//
// Converted BTF is a concatenation of units that reference only their own
// types, followed by the functions, which reference every unit. So the own
// types are cut into regions at unit boundaries, and each region is walked
// on a goroutine of its own, with a table of its own, as if the regions
// before it were done. A region's walk stops at the first reference to a
// reference type before the region (in converted BTF: the first function);
// the types it finished by then are all the serial walk would have reached
// from the same roots, since every type they reference lies in the region
// or is of a kind the earlier passes settled, whose canon the pass only
// reads.
//
// Then, in region order, each region is merged into the first region's
// table: its representatives, taken in the order they finished (their
// table's insertion order), get their references rewritten to the merged
// representatives and are looked up there. Within a region two finished
// types are equal after the merge exactly when they were equal before it
// (the merge maps distinct classes to distinct classes, by induction along
// that order), so a representative equal to an earlier region's type is
// mapped to it, and every other finished type keeps its region
// representative, whose chain in canon now leads to the serial walk's
// choice. A region whose walk stopped is then finished serially from the
// root where it stopped, with the merged table, as the serial pass would:
// the types on the interrupted path are unprocessed again, and the
// references they had already rewritten lead, through canon, to the merged
// representatives.
//
// Two conditions make this exact. No region may reference a reference type
// of a later one, or the serial walk would have reached it from the earlier
// region first; setupOwn checks that for every reference of every
// reference type (checkRefs), and an input that fails it (type units,
// LTO, hand-made BTF) gets the serial pass. And there is no base BTF: there
// the table also holds the base's reference types before the pass, and a
// base that is not itself deduplicated can hold equal ones, whose order
// would matter. Modules are small anyway.

// errLeftRegion stops a region's walk where it reaches a reference type
// outside the region.
var errLeftRegion = errors.New("dedup: reference out of the region")

// refSplitMin is the number of own types below which the reference pass is
// not split: a module's pass takes a few milliseconds. Tests lower it.
var refSplitMin = 1 << 16

// refSplitWindow is how many types on each side of a planned cut
// planRefSplit looks at for a unit boundary. A vmlinux's units have about
// 1,500 types on average and a few tens of thousands at most.
var refSplitWindow = 1 << 14

// maxRefRegions bounds the regions: the merge is serial and grows with
// their number.
const maxRefRegions = 8

// refSplit is the plan of a split reference pass: where the regions start,
// and setupOwn's finding, per chunk of ownChunk types, whether a reference
// type there references one of a later region.
type refSplit struct {
	starts  []int // own index of each region's first type; starts[0] is 0
	bad     []bool
	stopped int // regions whose walk stopped and were finished serially
}

// refPassKind reports the kinds that the reference pass deduplicates, whose
// references its walk follows.
func (d *deduper) refPassKind(k btf.Kind) bool {
	switch k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr,
		btf.KindFunc, btf.KindTypeTag, btf.KindDeclTag, btf.KindArray, btf.KindFuncProto:
		return true
	case btf.KindTypedef:
		return d.legacy
	}
	return false
}

// refSpan returns the lowest and highest own index (ID - firstID) of the
// reference types that type t references, and false if it references none.
// The other kinds it may reference (an array's index type, shared by all
// units of a kernel, or a struct) end the pass's walk: it only reads their
// canon, which the pass does not write.
func (d *deduper) refSpan(t []uint32) (lo, hi int, ok bool) {
	lo, hi = int(^uint(0)>>1), -1
	visit := func(id uint32) {
		if id >= d.firstID && id < d.count {
			i := int(id - d.firstID)
			if d.refPassKind(btf.InfoKind(d.words[d.offs[i]+1])) {
				lo, hi = min(lo, i), max(hi, i)
			}
		}
	}
	ref2, first, step, end := refPositions(t)
	if ref2 {
		visit(t[2])
	}
	for j := first; j < end; j += step {
		visit(t[j])
	}
	return lo, hi, hi >= 0
}

// planRefSplit plans the regions of a split reference pass, or leaves
// d.split nil when the pass stays serial. A cut is planned at a unit
// boundary near each of the even positions: within refSplitWindow types on
// either side, the place closest to the position where no reference type
// of the window references across it.
func (d *deduper) planRefSplit() {
	d.planRefSplitWith(func(p, after int) (int, bool) {
		wlo, whi := max(after+1, p-refSplitWindow), min(len(d.offs), p+refSplitWindow)
		return d.boundaryIn(wlo, whi, p)
	})
}

// planRefSplitAt is planRefSplit for input known to be cut clean at each of
// cuts (own indexes, ascending): no type before a cut references a type at
// or after it. A Stream knows that of the end of every stretch it
// processed, which is where a unit ended, so a plan made of such cuts holds
// without the check of every reference that setupOwn makes otherwise.
func (d *deduper) planRefSplitAt(cuts []int) {
	n := len(d.offs)
	d.planRefSplitWith(func(p, after int) (int, bool) {
		i, _ := slices.BinarySearch(cuts, p) // the first cut at or after p
		best := -1
		for _, j := range []int{i - 1, i} {
			if j >= 0 && j < len(cuts) && cuts[j] > after && cuts[j] < n &&
				(best < 0 || abs(cuts[j]-p) < abs(best-p)) {
				best = cuts[j]
			}
		}
		return best, best > 0
	})
}

// planRefSplitWith plans the regions, or leaves d.split nil, with cut
// choosing the start of a region near own index p, after index after (the
// previous region's start).
func (d *deduper) planRefSplitWith(cut func(p, after int) (int, bool)) {
	n := len(d.offs)
	regions := min(d.parallelism(), maxRefRegions)
	if regions < 2 || n < refSplitMin || d.firstID != 1 {
		return
	}
	starts := []int{0}
	for k := 1; k < regions; k++ {
		if s, ok := cut(k*n/regions, starts[len(starts)-1]); ok {
			starts = append(starts, s)
		}
	}
	if len(starts) < 2 {
		return
	}
	chunks := (n + ownChunk - 1) / ownChunk
	d.split = &refSplit{starts: starts, bad: make([]bool, chunks)}
}

// boundaryIn returns the place s in the middle half of (wlo, whi) closest
// to p such that no reference type in wlo..s-1 references s or beyond and
// none in s..whi-1 references before s.
func (d *deduper) boundaryIn(wlo, whi, p int) (int, bool) {
	if whi-wlo < 2 {
		return 0, false
	}
	// before[s-wlo]: highest index referenced from wlo..s-1 (or s-1).
	before := make([]int, whi-wlo+1)
	before[0] = wlo - 1
	for i := wlo; i < whi; i++ {
		m := max(before[i-wlo], i)
		if t := span(d.words, d.offs, i); d.refPassKind(btf.InfoKind(t[1])) {
			if _, hi, ok := d.refSpan(t); ok {
				m = max(m, hi)
			}
		}
		before[i-wlo+1] = m
	}
	// Candidates are taken from the middle half only, so that each has
	// a quarter of the window on either side to be judged by.
	inLo, inHi := wlo+(whi-wlo)/4, whi-(whi-wlo)/4
	best, found := 0, false
	after := whi // lowest index referenced from s..whi-1 (or s)
	for s := whi - 1; s > wlo; s-- {
		after = min(after, s)
		if t := span(d.words, d.offs, s); d.refPassKind(btf.InfoKind(t[1])) {
			if lo, _, ok := d.refSpan(t); ok {
				after = min(after, lo)
			}
		}
		if s < inLo || s > inHi {
			continue
		}
		if before[s-wlo] < s && after >= s && (!found || abs(s-p) < abs(best-p)) {
			best, found = s, true
		}
	}
	return best, found
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// regionOf returns the region of own index i.
func (sp *refSplit) regionOf(i int) int {
	r := 0
	for r+1 < len(sp.starts) && sp.starts[r+1] <= i {
		r++
	}
	return r
}

// holds reports, after setupOwn, whether the plan holds.
func (sp *refSplit) holds() bool {
	for _, b := range sp.bad {
		if b {
			return false
		}
	}
	return true
}

// bounds returns the IDs of region r: lo..hi-1.
func (d *deduper) bounds(sp *refSplit, r int) (lo, hi uint32) {
	lo, hi = d.firstID+uint32(sp.starts[r]), d.count
	if r+1 < len(sp.starts) {
		hi = d.firstID + uint32(sp.starts[r+1])
	}
	return lo, hi
}

// dedupRefsSplit is dedupRefs for a plan that holds: the regions in
// parallel, then each merged and, where its walk stopped, finished.
func (d *deduper) dedupRefsSplit(sp *refSplit) error {
	n := len(sp.starts)
	regions := make([]*deduper, n)
	stops := make([]uint32, n) // where each region's walk stopped, or its end
	errs := make([]error, n)
	d.parallel(n, func(r int) {
		rd := new(deduper)
		*rd = *d // shares the per-type arrays; a region writes only its own types
		rd.table = candTable{}
		rd.table.init()
		rd.regionLo, rd.regionHi = d.bounds(sp, r)
		regions[r] = rd
		stops[r] = rd.regionHi
		for id := rd.regionLo; id < rd.regionHi; id++ {
			if rd.mapped(id) {
				continue
			}
			if _, err := rd.dedupRef(id); err != nil {
				if err == errLeftRegion {
					stops[r] = id
				} else {
					errs[r] = err
				}
				return
			}
		}
	})
	d.table = regions[0].table
	for r, rd := range regions {
		if errs[r] != nil {
			return errs[r] // the serial pass's first error: the regions before finished
		}
		_, hi := d.bounds(sp, r)
		if r == 0 && stops[r] != hi {
			return fmt.Errorf("dedup: internal error: the reference pass left its first region at type %d", stops[r])
		}
		if r > 0 {
			for _, x := range rd.table.entID {
				d.mergeRef(x)
			}
		}
		if stops[r] == hi {
			continue
		}
		sp.stopped++
		for id := stops[r]; id < hi; id++ {
			if d.canon[id] == inProgress {
				d.canon[id] = unprocessed
			}
		}
		for id := stops[r]; id < hi; id++ {
			if !d.mapped(id) {
				if _, err := d.dedupRef(id); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// mergeRef merges representative x of a later region into d.table: its
// references are rewritten to their merged representatives (canon of a
// region representative is set when it is merged, and those x references
// finished before it), then it is mapped to an equal type of the table or
// entered there.
func (d *deduper) mergeRef(x uint32) {
	t := d.typ(x)
	ref2, first, step, end := refPositions(t)
	if ref2 {
		t[2] = d.canon[t[2]]
	}
	for j := first; j < end; j += step {
		t[j] = d.canon[t[j]]
	}
	k := btf.InfoKind(t[1])
	h := refHash(k, t)
	if c := findRef(d, &d.table, k, h, t, x); c != x {
		d.canon[x] = c
		return
	}
	d.table.add(h, x)
}
