package dedup

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"

	"github.com/gobtf/gobtf/internal/btf"
)

// prepBase makes every base type of split BTF a candidate for the split
// types: each is its own representative (set at setup) and, except VAR and
// DATASEC, is entered into the candidate table under the hash its kind uses
// in the later passes. Base types are entered first and in ID order, as
// libbpf does, so candidate order matches libbpf's.
//
// Established: split types can be matched against every base type; nothing
// of the base is ever changed by the later passes except that a base FWD may
// be pointed at a split definition (libbpf does the same; the base itself is
// not rewritten).
//
// The hashes are computed in parallel, in fixed chunks, and entered in ID
// order afterwards, so the table does not depend on scheduling; the table
// is sized for the base up front.
func (d *deduper) prepBase() error {
	n := int(d.firstID) - 1
	if n <= 0 {
		return nil
	}
	hashes := make([]uint64, n)
	skip := make([]bool, n)
	const chunk = 1 << 14
	chunks := (n + chunk - 1) / chunk
	errs := make([]error, chunks)
	d.parallel(chunks, func(c int) {
		for i := c * chunk; i < min(n, (c+1)*chunk); i++ {
			hashes[i], skip[i], errs[c] = d.baseHash(uint32(i + 1))
			if errs[c] != nil {
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	d.table.reserve(n)
	for i, h := range hashes {
		if !skip[i] {
			d.table.add(h, uint32(i+1))
		}
	}
	return nil
}

// baseHash returns the hash under which base type id is a candidate, or
// skip for VAR and DATASEC, which are not.
func (d *deduper) baseHash(id uint32) (h uint64, skip bool, err error) {
	t := d.typ(id)
	switch btf.InfoKind(t[1]) {
	case btf.KindVar, btf.KindDatasec:
		return 0, true, nil
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr,
		btf.KindFwd, btf.KindFunc, btf.KindFloat, btf.KindTypeTag:
		return hashCommon(t), false, nil
	case btf.KindTypedef:
		if d.legacy {
			return hashCommon(t), false, nil
		}
		return hashTypedef(t), false, nil
	case btf.KindInt, btf.KindDeclTag:
		return hashIntTag(t), false, nil
	case btf.KindEnum, btf.KindEnum64:
		return hashEnum(t), false, nil
	case btf.KindStruct, btf.KindUnion:
		return hashStruct(t), false, nil
	case btf.KindArray:
		return hashArray(t), false, nil
	case btf.KindFuncProto:
		return hashFuncProto(t), false, nil
	}
	return 0, false, fmt.Errorf("dedup: base type %d has unknown kind %d", id, btf.InfoKind(t[1]))
}

// structLike reports the kinds whose hashes hashOwn computes up front.
func structLike(k btf.Kind) bool {
	return k == btf.KindStruct || k == btf.KindUnion || k == btf.KindTypedef
}

// kindClasses gives, for each kind the info word can hold, classStruct for
// the struct-like kinds and classPrim for those the primitive pass looks
// at. It is indexed with the kind masked by btf.KindMask, which keeps every
// kind and lets the compiler drop the bounds check.
var kindClasses = func() (cl [btf.KindMask + 1]uint8) {
	for k := range cl {
		switch {
		case structLike(btf.Kind(k)):
			cl[k] = classStruct
		case primitiveLike(btf.Kind(k)):
			cl[k] = classPrim
		}
	}
	return cl
}()

const (
	classStruct = 1 << iota
	classPrim
)

// primitiveLike reports the kinds the primitive pass looks at: its own,
// and kinds unknown to it, which it reports.
func primitiveLike(k btf.Kind) bool {
	switch k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr,
		btf.KindTypedef, btf.KindArray, btf.KindStruct, btf.KindUnion,
		btf.KindFunc, btf.KindFuncProto, btf.KindVar, btf.KindDatasec,
		btf.KindDeclTag, btf.KindTypeTag:
		return false
	}
	return true
}

// ownChunk is the number of own types one parallel task of setupOwn and
// hashOwn covers. The chunks are fixed, so results never depend on
// scheduling.
const ownChunk = 1 << 15

// setupOwn sets up, in parallel, the per-type state of the own types (kind;
// canon unprocessed, except VAR and DATASEC, which are their own
// representatives; hypot empty), checks that every type ID they reference
// exists, and marks the STRUCT, UNION and TYPEDEF types (structBits; their
// counts per chunk tell hashOwn where each chunk's hashes go) and the types
// the primitive pass looks at (primBits). It is one pass over the type
// words for all of these: the passes that stream over all types are bound
// by memory bandwidth. With the marks, the primitive and struct passes,
// which are serial, need not go over all types again: on a kernel those
// are 3.4 M, of which 1.1 M are struct-like and 0.3 M primitive, and the
// loop over all of them with a branch on the kind cost each pass about 10
// ms. (Lists of IDs instead of bits cost setup as much as they saved.)
func (d *deduper) setupOwn(workers int) error {
	n := len(d.offs)
	chunks := (n + ownChunk - 1) / ownChunk
	counts := make([]int, chunks+1)
	errs := make([]error, chunks)
	d.structBits = make([]uint64, (n+63)/64)
	d.primBits = make([]uint64, (n+63)/64)
	d.parallelOn(workers, chunks, func(c int) {
		lo, hi := c*ownChunk, min(n, (c+1)*ownChunk)
		cnt := 0
		// A chunk is a whole number of 64-bit words of marks, so each
		// chunk writes words of its own, a word at a time.
		for w := lo; w < hi; w += 64 {
			var sw, pw uint64
			for i := w; i < min(hi, w+64); i++ {
				k := d.initOwn(i)
				// No branch: the kinds come in no order a
				// predictor could follow.
				cl := kindClasses[k&btf.KindMask]
				sw |= uint64(cl&classStruct) << (i - w)
				pw |= uint64(cl&classPrim>>1) << (i - w)
			}
			d.structBits[w>>6], d.primBits[w>>6] = sw, pw
			cnt += bits.OnesCount64(sw)
		}
		counts[c+1] = cnt
		errs[c] = d.checkRefs(c, lo, hi)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if d.split != nil {
		if !d.split.holds() {
			d.split = nil
		}
	}
	for c := 1; c <= chunks; c++ {
		counts[c] += counts[c-1]
	}
	d.structStarts = counts
	return nil
}

// initOwn sets up the state of own type i (by index) that does not depend on
// other types: its kind, and canon unprocessed, except for VAR and DATASEC,
// which are their own representatives. It returns the kind.
func (d *deduper) initOwn(i int) btf.Kind {
	id := d.firstID + uint32(i)
	k := btf.InfoKind(d.words[d.offs[i]+1])
	d.kinds[id] = k
	if k == btf.KindVar || k == btf.KindDatasec {
		d.canon[id] = id
	} else {
		d.canon[id] = unprocessed
	}
	return k
}

// hashOwn computes, in parallel, the signature hashes of the own STRUCT,
// UNION and TYPEDEF types into structHashes, in ID order; each chunk writes
// the range setupOwn counted for it.
func (d *deduper) hashOwn() {
	chunks := len(d.structStarts) - 1
	d.structHashes = make([]uint64, d.structStarts[chunks])
	d.parallelOn(d.besideWorkers(), chunks, func(c int) {
		hs := d.structHashes[d.structStarts[c]:d.structStarts[c+1]]
		j := 0
		forMarked(d.structBits, c*ownChunk/64, min(len(d.structBits), (c+1)*ownChunk/64), func(i int) {
			id := d.firstID + uint32(i)
			if t := d.typ(id); d.kinds[id] == btf.KindTypedef {
				hs[j] = hashTypedef(t)
			} else {
				hs[j] = hashStruct(t)
			}
			j++
		})
	})
}

// forMarked calls fn with the index of every bit set in marks[from:to], in
// order (the index counts from marks[0]'s lowest bit).
func forMarked(marks []uint64, from, to int, fn func(i int)) {
	for w := from; w < to; w++ {
		for m := marks[w]; m != 0; m &= m - 1 {
			fn(w*64 + bits.TrailingZeros64(m))
		}
	}
}

// parallelism returns the number of goroutines Options.Workers allows.
func (d *deduper) parallelism() int { return parallelism(d.workers) }

// parallelism is the number of goroutines Options.Workers allows.
func parallelism(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

// besideWorkers is the number of goroutines for the work that runs beside a
// serial pass (setupOwn beside the string pass, hashOwn beside the primitive
// pass): one fewer than parallelism allows, so that the serial pass, which
// is on the critical path, keeps a CPU of its own: with two CPUs, setupOwn
// on two goroutines beside the string pass made both slower than running
// them one after the other.
func (d *deduper) besideWorkers() int { return max(1, d.parallelism()-1) }

// parallel calls fn(0) .. fn(n-1) on up to Options.Workers goroutines.
func (d *deduper) parallel(n int, fn func(int)) { d.parallelOn(d.parallelism(), n, fn) }

// parallelOn calls fn(0) .. fn(n-1) on up to workers goroutines (on the
// caller's when only one would run).
func (d *deduper) parallelOn(workers, n int, fn func(int)) {
	workers = max(1, min(workers, n))
	if workers == 1 {
		// One worker, or at most one piece of work (a module's
		// compaction, say): no goroutine and channel for it.
		for i := range n {
			fn(i)
		}
		return
	}
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// checkRefs checks that own types lo..hi-1 (chunk c) reference existing
// types only, and where the reference pass is to be split, that no
// reference type references one of a later region (refsplit.go).
func (d *deduper) checkRefs(c, lo, hi int) error {
	sp := d.split
	if sp == nil {
		return d.checkRange(lo, hi)
	}
	for r := sp.regionOf(lo); r < len(sp.starts) && sp.starts[r] < hi; r++ {
		from := max(lo, sp.starts[r])
		if r+1 == len(sp.starts) {
			return d.checkRange(from, hi) // the last region may reference anything
		}
		to := min(hi, sp.starts[r+1])
		if err := d.checkRangeSplit(c, from, to, d.firstID+uint32(sp.starts[r+1])); err != nil {
			return err
		}
	}
	return nil
}

// checkRange checks that own types lo..hi-1 reference existing types only.
func (d *deduper) checkRange(lo, hi int) error {
	for i := lo; i < hi; i++ {
		t := span(d.words, d.offs, i)
		ref2, first, step, stop := refPositions(t)
		bad := ref2 && t[2] >= d.count
		for j := first; j < stop; j += step {
			if t[j] >= d.count {
				bad = true
			}
		}
		if bad {
			return d.beyondLast(i)
		}
	}
	return nil
}

// checkRangeSplit is checkRange for types of a region that ends before ID
// end, which also marks chunk c bad where a reference type references a
// reference type at or after end. The kinds are looked up only for such
// references, which converted BTF does not have.
func (d *deduper) checkRangeSplit(c, lo, hi int, end uint32) error {
	for i := lo; i < hi; i++ {
		t := span(d.words, d.offs, i)
		ref2, first, step, stop := refPositions(t)
		var top uint32 // the highest ID referenced
		if ref2 {
			top = t[2]
		}
		for j := first; j < stop; j += step {
			top = max(top, t[j])
		}
		if top >= d.count {
			return d.beyondLast(i)
		}
		if top >= end && d.refPassKind(btf.InfoKind(t[1])) {
			if _, h, ok := d.refSpan(t); ok && d.firstID+uint32(h) >= end {
				d.split.bad[c] = true
			}
		}
	}
	return nil
}

func (d *deduper) beyondLast(i int) error {
	return fmt.Errorf("dedup: type %d references a type beyond the last type %d", d.firstID+uint32(i), d.count-1)
}

// refPositions returns where the type IDs of type t are: t[2] when ref2 is
// set, and t[first], t[first+step], ... before t[end].
func refPositions(t []uint32) (ref2 bool, first, step, end int) {
	switch btf.InfoKind(t[1]) {
	case btf.KindPtr, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict,
		btf.KindFunc, btf.KindVar, btf.KindDeclTag, btf.KindTypeTag:
		return true, 0, 1, 0
	case btf.KindArray:
		return false, 3, 1, 5
	case btf.KindStruct, btf.KindUnion:
		return false, 4, 3, len(t)
	case btf.KindFuncProto:
		return true, 4, 2, len(t)
	case btf.KindDatasec:
		return false, 3, 3, len(t)
	}
	return false, 0, 1, 0
}

// dedupPrimitives maps every INT, FLOAT, ENUM, ENUM64 and FWD to its
// representative. These kinds reference no other type, so equality is a
// comparison of words: INTs (encoding and bits included) and FLOATs and FWDs
// (name, kind flag, size) must be identical. For enums:
//   - identical enums are merged;
//   - an enum forward declaration (no values) is merged into the first
//     same-named enum candidate it is compatible with, regardless of size and
//     of ENUM versus ENUM64;
//   - a full enum that meets a same-named forward declaration already chosen
//     as representative takes that role from it (the forward declaration is
//     pointed at the full enum) and continues looking for an identical enum.
//
// Anonymous enums all have the same hash (that of name offset 0), so their
// candidate list holds every distinct anonymous enum met so far, and
// walking it for each of them is quadratic. anonEnums answers the walk of
// a full anonymous enum directly where the answer is provably the walk's.
//
// Established: every type of these kinds has a representative; each
// representative is in the candidate table.
func (d *deduper) dedupPrimitives() error {
	anon := d.newAnonEnums()
	for w, m := range d.primBits {
		for ; m != 0; m &= m - 1 {
			if err := d.dedupPrimitive(d.firstID+uint32(w*64+bits.TrailingZeros64(m)), &anon); err != nil {
				return err
			}
		}
	}
	return nil
}

// newAnonEnums returns the index of anonymous enums with the base's entered.
func (d *deduper) newAnonEnums() anonEnums {
	anon := anonEnums{byWords: make(map[uint64]uint32)}
	for id := uint32(1); id < d.firstID; id++ {
		if k := d.kinds[id]; k == btf.KindEnum || k == btf.KindEnum64 {
			if t := d.typ(id); t[0] == 0 {
				anon.enter(id, t)
			}
		}
	}
	return anon
}

// dedupPrimitive maps primitive type id to its representative: the primitive
// pass's step for one type, in ID order (see dedupPrimitives).
func (d *deduper) dedupPrimitive(id uint32, anon *anonEnums) error {
	var t []uint32
	switch d.kinds[id] {
	case btf.KindInt, btf.KindEnum, btf.KindEnum64, btf.KindFwd, btf.KindFloat:
		t = d.typ(id)
	}
	var h uint64
	newID := id
	switch d.kinds[id] {
	case btf.KindInt:
		h = hashIntTag(t)
		if c := d.firstEqual(h, t, equalWords); c != 0 {
			newID = c
		}
	case btf.KindEnum, btf.KindEnum64:
		h = hashEnum(t)
		if t[0] == 0 {
			if c, ok := anon.lookup(d, t); ok {
				if c != 0 {
					newID = c
				}
				break
			}
		}
		for e := d.table.first(h); e != 0; e = d.table.entNext[e-1] {
			c := d.table.entID[e-1]
			ct := d.typ(c)
			if equalWords(t, ct) {
				newID = c
				break
			}
			if compatEnum(t, ct) {
				if isEnumFwd(t) {
					newID = c
					break
				}
				if d.watch != nil {
					d.watch.pending = append(d.watch.pending, c, d.resolve(c))
				}
				d.canon[c] = id
			}
		}
	case btf.KindFwd, btf.KindFloat:
		h = hashCommon(t)
		if c := d.firstEqual(h, t, equalCommon); c != 0 {
			newID = c
		}
	default: // primitiveLike marks only these kinds and unknown ones
		return fmt.Errorf("dedup: type %d has unknown kind %d", id, d.kinds[id])
	}
	d.canon[id] = newID
	if d.watch != nil && len(d.watch.pending) > 0 {
		d.watchRepoints()
	}
	if newID == id {
		d.table.add(h, id)
		if d.kinds[id] == btf.KindFwd {
			d.fwdReps = append(d.fwdReps, id)
		}
		if isAnyEnum(t) && t[0] == 0 {
			anon.enter(id, t)
		}
	}
	return nil
}

// firstEqual returns the first candidate under hash h whose words eq finds
// equal to t, or 0 (never a candidate) if there is none.
func (d *deduper) firstEqual(h uint64, t []uint32, eq func(a, b []uint32) bool) uint32 {
	for e := d.table.first(h); e != 0; e = d.table.entNext[e-1] {
		if c := d.table.entID[e-1]; eq(t, d.typ(c)) {
			return c
		}
	}
	return 0
}

// anonEnums indexes the anonymous enums (name offset 0) that are
// candidates, to find without walking their shared candidate list the
// representative of a full anonymous enum.
//
// Why the answer is the walk's: for a full enum, the walk takes the first
// candidate with identical words, and on the way points each compatible
// enum forward declaration at the new enum; other candidates neither match
// nor change anything. When no anonymous forward declaration is a
// candidate, there is nothing to point, and the walk's answer is the
// identical candidate if there is one; there is at most one, because a type
// identical to a candidate never becomes a candidate itself (only a base
// could bring two, and then the hash of their words is marked as shared and
// the walk is used). A hash of the words absent from the index means no
// identical candidate: the type becomes its own representative.
type anonEnums struct {
	byWords map[uint64]uint32 // words hash -> the one candidate with it; 0: several
	fwd     bool              // an anonymous enum forward declaration is a candidate
}

// enter records that anonymous enum id, with words t, is now a candidate.
func (a *anonEnums) enter(id uint32, t []uint32) {
	if isEnumFwd(t) {
		a.fwd = true
		return
	}
	h := wordsHash(t)
	if _, dup := a.byWords[h]; dup {
		id = 0
	}
	a.byWords[h] = id
}

// lookup returns the representative the candidate walk would give anonymous
// enum t: a candidate, or 0 for t itself. ok is false when the walk must be
// done instead.
func (a *anonEnums) lookup(d *deduper, t []uint32) (c uint32, ok bool) {
	if a.fwd || isEnumFwd(t) {
		return 0, false
	}
	c, found := a.byWords[wordsHash(t)]
	switch {
	case !found:
		return 0, true
	case c != 0 && equalWords(t, d.typ(c)):
		return c, true
	}
	return 0, false
}
