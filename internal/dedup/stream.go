package dedup

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/hugemem"
)

// Deduplicating while the input is being made.
//
// Converting a kernel keeps every CPU busy, but the struct pass that follows
// is serial: on a two-CPU machine one CPU idled through most of it. Yet the
// primitive and struct passes visit the types in ID order, and what they
// decide for a type depends only on the types before it and on the types
// its graph reaches. A conversion joins its units in order, and a unit's
// types reference only types of that unit. So a Stream runs the per-type
// setup, the primitive pass, the struct pass and the string pass on each
// new stretch of the joined types on a goroutine of its own, beside the
// conversion, and Finish does the rest (the stretch appended last, the FWD
// resolution, the reference pass and the compaction) once the input is
// complete.
//
// The result must be Dedup's, byte for byte, and five things could make it
// differ. Each is either ruled out or detected; a stream that detects one
// stops, and Finish runs Dedup on the complete input instead (the passes
// run ahead never write the type words, so the input is still intact).
//
//  1. A stretch whose types reference a type not yet joined (hand-made
//     BTF, type units, LTO) cannot be processed yet: the stream stops.
//  2. Dedup's primitive pass runs over all types before the struct pass; a
//     stream's interleaves them. The primitive pass reads only primitive
//     types and their candidates, so its decisions are the same, provided
//     its candidate table sees only primitives, as Dedup's does then: a
//     stream keeps a second table for the struct pass.
//  3. The primitive pass writes to the canonical map of an earlier type in
//     one case: a full enum points an enum forward declaration that is a
//     representative at itself. Dedup's struct pass sees all of these from
//     the start; a stream's sees one only from the stretch that makes it.
//     The struct pass reads an enum's representative only where it
//     compares two types (settled, isEquiv). A forward declaration that is
//     a representative is the first enum of its name (any later one of the
//     name maps to it or, full, points it at itself), so until the first
//     full enum of the name points it elsewhere, every enum of the name
//     shares its class, in the stream as in Dedup, and moving it the first
//     time changes nothing the stream decided before. Moving it again
//     does (TestStreamEnumFwdMovedTwice), so the stream stops when an
//     earlier stretch's forward declaration moves a second time
//     (watchRepoints). It also records the forward declarations the struct
//     pass compares unsettled (watchEnums) and stops if one of those
//     moves; by the argument above that cannot happen, but it costs
//     nothing where it could (the rare unsettled enum comparisons). On
//     Debian's 6.1 vmlinux one forward declaration moves, once.
//  4. Candidates with one hash are tried in the order of libbpf's hashmap,
//     which depends on how many entries the table holds (candTable): in
//     Dedup, every primitive representative and then the struct-like ones
//     before them. A stream does not know how many primitive
//     representatives later stretches hold, so it does not know the order.
//     The order matters only when two candidates are equivalent to the
//     type looked up (the first wins); where two or more are shallowly
//     equal, the stream checks each of them (onlyEquiv) and stops if more
//     than one is equivalent. On the vmlinux 1,272 lookups have two
//     shallowly equal candidates and none has two equivalent ones.
//  5. The string pass runs beside the others on the input's own offsets,
//     as in Dedup's deferred mode (deferred.go), with the same check at the
//     end (stringsDistinct).
//
// The reference pass's table order never matters (refsplit.go), so after the
// stream it uses the primitive table as it stands.
type Stream struct {
	opts  Options
	d     *deduper
	out   *btf.Spec
	strs  *strMap
	anon  anonEnums
	stabl candTable // the struct pass's table (the primitive pass has d.table)
	done  int       // own types processed
	cuts  []int     // the ends of the stretches processed

	prims, structs []uint32 // the stretch's types of the two passes

	stopped string // why the stream stopped; "" while it runs
	busy    time.Duration

	mu       sync.Mutex
	nextPart part         // the input as Add last saw it
	newMarks []btf.TypeID // string marks given since the goroutine last took them
	marks    []btf.TypeID // every string mark given (for Dedup, where the stream stops)
	signaled int          // the types Add had when it last woke the goroutine
	wake     chan struct{}
	finished chan struct{}
	once     sync.Once

	// Hold's state: the types Add has reported and those the goroutine
	// has processed, whether it has ended (run returned), whether a
	// goroutine is held, and the condition (on mu) a held one waits on.
	joined, processed atomic.Int64
	ended, holding    atomic.Bool
	caught            sync.Cond
}

// part is what a Stream knows of its input: the own type words and type
// starts joined so far, and the own string bytes.
type part struct {
	words, offs []uint32
	strs        []byte
	strStart    uint32
}

// streamWatch holds what the stream's checks of points 3 and 4 (see Stream)
// record while its passes run ahead of the input's end.
type streamWatch struct {
	lo       uint32              // first ID of the stretch being processed
	seen     map[uint32]struct{} // representatives of enum FWDs compared unsettled
	moved    map[uint32]struct{} // enum FWDs given another representative
	pending  []uint32            // the primitive pass's pointings of one type: (FWD, its representative before) pairs
	diverged string              // why the result could differ from Dedup's; "" if it cannot
}

// NewStream starts deduplicating an input that is still being appended to;
// typesHint is the expected number of types (memory for that many is
// reserved, and touched only as used). Options apply as to Dedup, but for
// InPlace: a Stream always works on the input's own words, which Finish
// leaves in an unspecified state. A Stream is for input without a base,
// deduplicated with more than one worker.
func NewStream(opts Options, typesHint int) *Stream {
	typesHint = max(typesHint, 0) + 1
	d := &deduper{firstID: 1, count: 1, workers: opts.Workers, legacy: opts.Libbpf112, stats: &Stats{}}
	d.canon = make([]uint32, 1, typesHint)
	d.hypot = make([]uint32, 1, typesHint)
	d.kinds = make([]btf.Kind, 1, typesHint)
	d.table.init()
	d.watch = &streamWatch{seen: make(map[uint32]struct{}), moved: make(map[uint32]struct{})}
	st := &Stream{opts: opts, d: d, out: btf.NewSpec(nil), anon: anonEnums{byWords: make(map[uint64]uint32)},
		wake: make(chan struct{}, 1), finished: make(chan struct{})}
	st.stabl.init()
	st.caught.L = &st.mu
	go st.run()
	return st
}

// Add tells the stream that s, the input, has grown. It must be called on the
// goroutine that appends to s, between appends: it only takes the current
// extent of s's words, type starts and strings, which the stream reads as
// they are then, on its own goroutine, while s grows further.
//
// The stream's goroutine is a third busy one beside a two-CPU machine's two
// converters. Having the converters do its work between their units instead
// (whichever was free first) was slower, in wall and CPU time.
func (st *Stream) Add(s *btf.Spec) {
	p := part{words: s.Words(), offs: s.TypeOffsets()}
	if t := s.Strings(); t != nil {
		p.strs, p.strStart = t.Bytes(), t.Start()
	}
	st.mu.Lock()
	st.nextPart = p
	st.mu.Unlock()
	st.joined.Store(int64(len(p.offs)))
	if len(p.offs) < st.signaled+streamStretch {
		return
	}
	st.signaled = len(p.offs)
	select {
	case st.wake <- struct{}{}:
	default: // already woken; it takes the latest part
	}
}

// streamStretch is how many types more than at its last wake-up Add waits
// for before it wakes the stream's goroutine (whatever is left when the
// input is complete, Finish processes). Woken for every unit, the goroutine
// would park and wake thousands of times on a kernel, with stretches too
// short for readAhead (readAheadTypes); much longer stretches leave more
// for Finish (docs/performance.md has the values tried).
var streamStretch = 1 << 14

// MarkStrings asks for a string mark (Options.StringMarks) at own type ID
// id, which must not be below the marks asked for before. Like Add, it is
// called on the goroutine that appends to the input, and before the Add that
// reports type id. Finish's Stats report the lengths.
func (st *Stream) MarkStrings(id btf.TypeID) {
	st.mu.Lock()
	st.newMarks = append(st.newMarks, id)
	st.marks = append(st.marks, id)
	st.mu.Unlock()
}

// takeMarks hands the marks given since the last call to the stream's
// deduper.
func (st *Stream) takeMarks() {
	st.mu.Lock()
	marks := st.newMarks
	st.newMarks = nil
	st.mu.Unlock()
	if err := st.d.addMarks(marks); err != nil {
		st.stop(err.Error())
	}
}

// run processes the parts Add reports until Stop.
func (st *Stream) run() {
	defer close(st.finished)
	defer st.caughtUp(true)
	for range st.wake {
		st.mu.Lock()
		p := st.nextPart
		st.nextPart = part{}
		st.mu.Unlock()
		st.takeMarks()
		t := time.Now()
		st.advance(p) // nothing to do for a part taken already (no types)
		st.busy += time.Since(t)
		st.caughtUp(st.stopped != "")
	}
}

// Hold is called by each goroutine that makes the input (a converter)
// before it starts on its next piece of it. While the stream's goroutine is
// more than holdLag types behind Add, one such goroutine at a time waits in
// Hold until it has caught up (or has stopped or ended); the others, and
// any call while the stream keeps up, return at once.
//
// Why: the stream's goroutine shares the CPUs with the converters, and
// where its work per type is slow (a machine whose caches are busy with
// other work) it falls behind them. All it has not done when the last unit
// is joined, Finish then waits for with one CPU idle. Holding one converter
// while the stream is behind gives the stream that converter's CPU, and
// leaves the end of the conversion at most about holdLag types of the
// stream's work behind. The work itself does not change, only when it is done: the stream's result
// does not depend on where its stretches end (TestStreamMatchesDedup).
//
// Hold never waits for anything but the stream's own goroutine, which
// waits for nothing Hold's callers hold, so it cannot deadlock them.
func (st *Stream) Hold() {
	if !st.behind() || !st.holding.CompareAndSwap(false, true) {
		return
	}
	st.mu.Lock()
	for st.behind() {
		st.caught.Wait()
	}
	st.mu.Unlock()
	st.holding.Store(false)
}

// holdLag is how many types the stream's goroutine may be behind Add
// before Hold holds a converter. It is above streamStretch, so a stream
// that far behind is processing a stretch or has been woken for one
// (Add wakes it whenever streamStretch types have come since the last
// time), and is not idle: the held converter waits for work in progress.
var holdLag = 3 * streamStretch

// behind reports whether Hold should wait: the goroutine runs and is more
// than holdLag types behind.
func (st *Stream) behind() bool {
	return !st.ended.Load() && st.joined.Load()-st.processed.Load() > int64(holdLag)
}

// caughtUp records, on the stream's goroutine, the types processed so far,
// and that the goroutine has ended (or stopped processing) when ended is
// set, and wakes a goroutine held in Hold to look again.
func (st *Stream) caughtUp(ended bool) {
	st.processed.Store(int64(st.done))
	if ended {
		st.ended.Store(true)
	}
	st.mu.Lock()
	st.caught.Broadcast()
	st.mu.Unlock()
}

// Stop ends the stream's goroutine once the stretch in hand is done (what
// Add reported since is left to Finish); Add must not be called again.
// Finish calls it; call it where Finish is not reached.
func (st *Stream) Stop() {
	st.once.Do(func() { close(st.wake) })
	<-st.finished
}

// stop stops processing, for the reason given.
func (st *Stream) stop(why string) {
	if st.stopped == "" {
		st.stopped = why
	}
}

// advance runs setup, the primitive, struct and string passes on the own
// types of p not processed yet.
func (st *Stream) advance(p part) {
	d := st.d
	lo, n := st.done, len(p.offs)
	if st.stopped != "" || n <= lo {
		return
	}
	d.words, d.offs = p.words, p.offs
	d.count = d.firstID + uint32(n)
	d.canon = growTo(d.canon, int(d.count))
	d.hypot = growTo(d.hypot, int(d.count))
	d.kinds = growTo(d.kinds, int(d.count))
	prims, structs := st.prims[:0], st.structs[:0]
	for i := lo; i < n; i++ {
		id := d.firstID + uint32(i)
		switch kindClasses[d.initOwn(i)&btf.KindMask] {
		case classStruct:
			structs = append(structs, id)
		case classPrim:
			prims = append(prims, id)
		}
	}
	st.prims, st.structs = prims, structs
	if d.checkRange(lo, n) != nil {
		st.stop(fmt.Sprintf("a type of %d..%d references a later one", d.firstID+uint32(lo), d.count-1))
		return
	}
	d.watch.lo = d.firstID + uint32(lo)
	for _, id := range prims {
		if err := d.dedupPrimitive(id, &st.anon); err != nil {
			st.stop(err.Error())
			return
		}
	}
	ra := readAhead{words: d.words, offs: d.offs, pos: d.offs[lo] &^ (wordsPerLine - 1)}
	for _, id := range structs {
		if d.watch.diverged != "" {
			break
		}
		var h uint64
		if t := d.typ(id); d.kinds[id] == btf.KindTypedef {
			h = hashTypedef(t)
		} else {
			h = hashStruct(t)
		}
		if err := d.dedupStruct(id, h, &st.stabl, &ra); err != nil {
			st.stop(err.Error())
			return
		}
	}
	d.readSum += ra.sum
	if d.watch.diverged != "" {
		st.stop(d.watch.diverged)
		return
	}
	if st.strs == nil {
		st.strs = newStrMapOn(p.strs, p.strStart, st.out.Strings(), true)
	} else {
		st.strs.grow(p.strs)
	}
	if err := d.mapRange(st.strs, lo, n); err != nil {
		st.stop(err.Error())
		return
	}
	st.done = n
	st.cuts = append(st.cuts, n)
}

// growTo returns s with length n, keeping its elements.
func growTo[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	return append(s, make([]T, n-len(s))...)
}

// Finish deduplicates s, the complete input the stream was given with Add,
// and returns what Dedup(s, opts) returns. Where the stream stopped (see
// Stream), it runs Dedup; its Stats then name the reason.
func (st *Stream) Finish(s *btf.Spec) (*btf.Spec, *Stats, error) {
	t := time.Now()
	st.Stop()
	streamed, waited := st.busy, time.Since(t)
	t = time.Now()
	if s.Base() != nil || s.FirstID() != 1 {
		st.stop("split BTF")
	} else {
		st.takeMarks()
		st.advance(part{words: s.Words(), offs: s.TypeOffsets(), strs: s.Strings().Bytes(), strStart: s.Strings().Start()})
	}
	if st.stopped == "" && st.strs == nil {
		st.stop("no types")
	}
	if st.stopped == "" && !st.strs.stringsDistinct() {
		st.stop("a string has two compared offsets")
	}
	if st.stopped != "" {
		// Its memory goes before Dedup makes its own.
		st.d, st.strs, st.out, st.stabl, st.anon = nil, nil, nil, candTable{}, anonEnums{}
		opts := st.opts
		opts.StringMarks = st.marks
		out, stats, err := Dedup(s, opts)
		if stats != nil {
			stats.Passes = append([]PassStat{
				{Name: "stream stopped (" + st.stopped + ")", Duration: streamed, Beside: true},
				{Name: "stream: wait and last part", Duration: waited + time.Since(t)}}, stats.Passes...)
		}
		return out, stats, err
	}
	d := st.d
	d.watch = nil
	d.marks.reach(math.MaxInt, st.out.Strings()) // the marks past the last type
	stats := d.stats
	stats.TypesIn, stats.StringsIn = s.NumTypes(), len(s.Strings().Bytes())
	stats.Passes = append(stats.Passes,
		PassStat{Name: "stream: setup, primitives, structs, strings", Duration: streamed, Beside: true},
		PassStat{Name: "stream: wait", Duration: waited})
	timer := &passTimer{st: stats, last: t}
	timer.done("stream: last part")

	d.regionLo, d.regionHi = d.firstID, d.count
	d.planRefSplitAt(st.cuts)
	d.resolveFwds()
	timer.done("fwds")
	if err := d.dedupRefs(); err != nil {
		return nil, nil, err
	}
	timer.done("refs")
	out := st.out
	out.KeepEncoding(s)
	if err := d.compact(out, st.strs); err != nil {
		return nil, nil, err
	}
	timer.done("compact")
	stats.TypesOut = out.NumTypes()
	stats.StringsOut = len(out.Strings().Bytes())
	stats.StringMarks = d.marks.lens
	if st.opts.InPlace && st.opts.Discard {
		go hugemem.Discard(hugemem.Bytes(d.words), hugemem.Bytes(d.offs),
			hugemem.Bytes(d.canon), hugemem.Bytes(d.hypot), hugemem.Bytes(d.kinds),
			hugemem.Bytes(d.table.slots), hugemem.Bytes(st.stabl.slots),
			hugemem.Bytes(d.table.entID), hugemem.Bytes(d.table.entNext))
	}
	return out, stats, nil
}

// onlyEquiv returns the candidate of tab, under hash h, whose graph is
// equivalent to that of struct-like type id (words t, kind k), or 0 if none
// is, with the hypothetical map of that check. Where two or more candidates
// are shallowly equal it checks them all, and where two are equivalent,
// which of them Dedup would take depends on their order (see Stream), and
// the stream's result may differ: it records that.
func (d *deduper) onlyEquiv(id uint32, t []uint32, k btf.Kind, h uint64, tab *candTable) (uint32, error) {
	var found, last uint32
	shallow := 0
	for e := tab.first(h); e != 0; e = tab.entNext[e-1] {
		c := tab.entID[e-1]
		if !shallowCand(t, d.typ(c), k) {
			continue
		}
		shallow++
		d.clearHypot()
		eq, err := d.isEquiv(id, c)
		if err != nil {
			return 0, err
		}
		last = c
		if !eq {
			continue
		}
		if found != 0 {
			d.watch.diverged = fmt.Sprintf("type %d is equivalent to two candidates", id)
			return 0, nil
		}
		found = c
	}
	if found != 0 && found != last {
		// The map holds a later candidate's check: redo the chosen one.
		d.clearHypot()
		if _, err := d.isEquiv(id, found); err != nil {
			return 0, err
		}
	}
	return found, nil
}

// watchEnums records the enum FWDs among a compared pair of types whose
// representatives differ (see Stream, point 3).
func (d *deduper) watchEnums(candID, canonID uint32, ct, nt []uint32) {
	if isEnumFwd(ct) {
		d.watch.seen[d.resolve(candID)] = struct{}{}
	}
	if isEnumFwd(nt) {
		d.watch.seen[d.resolve(canonID)] = struct{}{}
	}
}

// watchRepoints checks the enum FWDs the primitive pass just pointed at a
// full enum (see Stream, point 3): the stream's result may differ where one
// of an earlier stretch got another representative after having been
// compared, or having been moved once before.
func (d *deduper) watchRepoints() {
	w := d.watch
	for i := 0; i < len(w.pending); i += 2 {
		c, before := w.pending[i], w.pending[i+1]
		if d.resolve(c) == before {
			continue
		}
		_, compared := w.seen[before]
		_, moved := w.moved[c]
		if c < w.lo && (compared || moved) && w.diverged == "" {
			w.diverged = fmt.Sprintf("enum forward declaration %d was given another representative", c)
		}
		w.moved[c] = struct{}{}
	}
	w.pending = w.pending[:0]
}
