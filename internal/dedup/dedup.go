// Package dedup is the pipeline's deduplication stage: it removes duplicate
// BTF types exactly as libbpf's btf__dedup does (same passes, same candidate
// order, so the same bytes), on package btf's flat representation, after the
// conversion or (Stream) beside it. Each pass's comment states what holds
// after it; docs/design.md describes the passes and their invariants.
package dedup

import (
	"errors"
	"fmt"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/hugemem"
)

// Options tunes Dedup.
type Options struct {
	// InPlace lets Dedup rewrite the input Spec's type words (string
	// offsets and type IDs) instead of working on a copy; it saves the copy
	// (about 130 MB for a vmlinux) but leaves the input in an unspecified
	// state. Use it when the input is discarded afterwards.
	InPlace bool

	// Discard, with InPlace, hands the input's type words and offsets and
	// Dedup's own working memory back to the system, on a goroutine, once
	// the output is made (hugemem.Discard). The caller must not read the
	// input again, and its words must be Go memory (not a mapping the
	// caller might unmap, after which the range could be reused while it
	// is being emptied). On a vmlinux that is about 190 MB, which the
	// process's exit would otherwise free on one CPU after the output is
	// written; emptied beside the output's encoding and writing, the exit
	// is shorter.
	Discard bool

	// Libbpf112 reproduces libbpf 1.1.2 instead of current libbpf; see
	// legacy.go for the two differences. The results agree on C input.
	Libbpf112 bool

	// Workers bounds the goroutines of the parallel parts (per-type setup
	// and hashing, the reference pass's regions); 0 means GOMAXPROCS. The
	// result does not depend on it.
	Workers int

	// Base, when made by PrepareBase for the input's base with the same
	// Libbpf112, replaces the preparation of the base (the "base" pass).
	// It is not modified, so one serves any number of Dedup calls, unless
	// BaseLastUse is set too: Dedup may then take its storage instead of
	// copying it, and Base must not be used again.
	Base        *BaseIndex
	BaseLastUse bool

	// StringMarks are own type IDs, ascending, at which the string pass
	// records the length of the output's string table (see marks.go);
	// Stats.StringMarks holds the lengths. An ID one past the last type
	// marks the end. A Stream takes its marks through MarkStrings.
	StringMarks []btf.TypeID

	// serialStrings keeps the string pass before the others (tests
	// compare the two orders).
	serialStrings bool
}

// BaseIndex is a base Spec prepared as deduplication on it starts: its types
// entered as candidates (prepBase). Deduplicating several split Specs on one
// base (gobtf's two passes over a module) prepares the base once, and
// PrepareBase can run while the split Spec is still being made.
type BaseIndex struct {
	base   *btf.Spec
	legacy bool
	table  candTable
}

// PrepareBase prepares base for Dedup (Options.Base); opts.Libbpf112 and
// opts.Workers apply, the rest is ignored.
func PrepareBase(base *btf.Spec, opts Options) (*BaseIndex, error) {
	if base.Base() != nil {
		return nil, fmt.Errorf("dedup: base BTF is itself split BTF")
	}
	d := &deduper{firstID: base.TypeCount() + 1, count: base.TypeCount() + 1, workers: opts.Workers,
		legacy: opts.Libbpf112, baseWords: base.Words(), baseOffs: base.TypeOffsets()}
	d.table.init()
	if err := d.prepBase(); err != nil {
		return nil, err
	}
	return &BaseIndex{base: base, legacy: opts.Libbpf112, table: d.table}, nil
}

// Stats reports what Dedup did and how long each pass took.
type Stats struct {
	TypesIn, TypesOut     int // own types (void and base types excluded)
	StringsIn, StringsOut int // own string-section bytes

	Passes []PassStat // in execution order

	// BaseFwdKeptApart counts the split types that matched a type graph
	// through a base FWD the split BTF defines, and were kept apart for it
	// (see isEquiv: the base cannot change). Such a type can be left as an
	// exact copy of a base type, which a second Dedup of the output merges;
	// when the count is 0, no type was kept apart this way.
	BaseFwdKeptApart int

	// StringsRerun reports that the string pass ran beside the others
	// but found a string named by two compared offsets, so that the
	// deduplication ran again with the string pass first (deferred.go).
	StringsRerun bool

	// StringMarks are the lengths of the output's string table (offsets
	// after its last string, the base's included) recorded at
	// Options.StringMarks, one per mark, in order.
	StringMarks []uint32
}

// PassStat is the duration of one pass.
type PassStat struct {
	Name     string
	Duration time.Duration
	// Beside marks work done beside the caller's (a Stream's, during
	// the conversion), which is not part of the time Dedup or Finish took.
	Beside bool
}

// Total returns the sum of the pass durations, those done beside excluded.
func (s *Stats) Total() time.Duration {
	var t time.Duration
	for _, p := range s.Passes {
		if !p.Beside {
			t += p.Duration
		}
	}
	return t
}

// Special values of canon and hypot entries. Real IDs are below maxTypeID.
const (
	unprocessed = ^uint32(0)
	inProgress  = ^uint32(0) - 1
	maxTypeID   = 0x7fffffff
)

// deduper holds the state of one Dedup call. Type IDs index every per-type
// array directly; base IDs (split BTF) come first.
type deduper struct {
	firstID uint32 // first own ID
	count   uint32 // highest ID + 1 (void included)

	// Word streams and type starts of base and own types: type i spans
	// offs[i]:offs[i+1], the last one up to the end of the stream.
	baseWords, words []uint32
	baseOffs, offs   []uint32

	canon []uint32   // canonical map, see the package documentation
	kinds []btf.Kind // kind of every type, a compact copy for random access

	// hypot is the hypothetical map of one equivalence check: canonical-
	// graph ID -> candidate-graph ID plus one, 0 where unset. Zero for
	// unset needs no setting up, and memory fresh from the system that is
	// never written is never resident: a kernel's checks write about a
	// third of its pages. hypotList lists the IDs set in it so
	// that clearing costs only what was set. hypotAdjustCanon records that
	// the check would need a base FWD resolved (split BTF).
	hypot            []uint32
	hypotList        []uint32
	hypotMerge       []uint32 // the pairs of hypotList mergeHypot looks at
	hypotAdjustCanon bool

	identSteps int // budget left to the running identicalTypes check

	// structHashes holds the signature hashes of the own STRUCT, UNION and
	// TYPEDEF types, in ID order (the k-th such type's hash at index k),
	// computed in parallel before the passes that use them.
	structHashes []uint64
	structStarts []int // per chunk of ownChunk types: index of its first hash

	// structBits and primBits mark, by own index (ID - firstID), the own
	// struct-like types and the types of the primitive pass (setupOwn).
	structBits, primBits []uint64
	table                candTable

	// The own FWDs that the primitive pass made representatives, and the
	// own structs and unions that the struct pass did, in ID order: what
	// resolveFwds looks at, without going over every type twice.
	fwdReps, compReps []uint32

	marks stringMarks // the string pass's marks (marks.go)

	// split is the plan of a parallel reference pass (refsplit.go), nil
	// when the pass is serial.
	split *refSplit

	// The IDs a walk of the reference pass may process: all own IDs, or
	// a region's (refsplit.go).
	regionLo, regionHi uint32

	// watch is set while the struct pass runs ahead of the input's end
	// (stream.go); nil otherwise.
	watch *streamWatch

	workers int
	legacy  bool   // Options.Libbpf112
	readSum uint32 // readAhead's sums, kept so that its loads are not elided
	stats   *Stats
}

// voidType is what a lookup of type ID 0 sees: all header words zero, so
// kind UNKNOWN, no name and no size, as libbpf's static void type.
var voidType = []uint32{0, 0, 0}

// typ returns the words of type id (void for 0).
func (d *deduper) typ(id uint32) []uint32 {
	if id >= d.firstID {
		return span(d.words, d.offs, int(id-d.firstID))
	}
	if id == 0 {
		return voidType
	}
	return span(d.baseWords, d.baseOffs, int(id-1))
}

// span returns type i of a word stream with type starts offs.
func span(words, offs []uint32, i int) []uint32 {
	end := uint32(len(words))
	if i+1 < len(offs) {
		end = offs[i+1]
	}
	return words[offs[i]:end:end]
}

// kindOf returns the kind of type id.
func (d *deduper) kindOf(id uint32) btf.Kind { return d.kinds[id] }

// Dedup deduplicates s and returns a new, compacted Spec holding one type per
// equivalence class, with its own deduplicated string table. For a split
// Spec the base must already be deduplicated; base types are never changed
// or renumbered, and split types equal to base types are replaced by them.
// Unless opts.InPlace is set, s is not modified. The returned Stats has the
// duration of each pass.
func Dedup(s *btf.Spec, opts Options) (*btf.Spec, *Stats, error) {
	d, out, st, err := run(s, opts)
	if err == nil && opts.InPlace && opts.Discard {
		go hugemem.Discard(hugemem.Bytes(d.words), hugemem.Bytes(d.offs),
			hugemem.Bytes(d.canon), hugemem.Bytes(d.hypot), hugemem.Bytes(d.kinds),
			hugemem.Bytes(d.structHashes), hugemem.Bytes(d.table.slots),
			hugemem.Bytes(d.table.entID), hugemem.Bytes(d.table.entNext))
	}
	return out, st, err
}

// Representatives deduplicates s as Dedup does and returns, for each own
// type of s (index i for ID s.FirstID()+i), the input ID of the type its
// equivalence class keeps: a base type, the type itself, or another own
// type. The own types whose representative is not themselves are those
// Dedup removes: copies of base types, and duplicates of other own types.
// s is not modified.
func Representatives(s *btf.Spec, opts Options) ([]btf.TypeID, error) {
	opts.InPlace, opts.Discard = false, false
	d, _, _, err := run(s, opts)
	if err != nil {
		return nil, err
	}
	out := make([]btf.TypeID, s.NumTypes())
	for i := range out {
		out[i] = d.resolve(s.FirstID() + btf.TypeID(i))
	}
	return out, nil
}

// run is Dedup that also returns its state, from which mappedID answers
// where each input type went (the property tests use it).
func run(s *btf.Spec, opts Options) (*deduper, *btf.Spec, *Stats, error) {
	words := s.Words()
	if !opts.InPlace {
		words = append([]uint32(nil), words...)
	}
	// The string pass runs beside the passes that follow it (deferred.go)
	// where there is a CPU for it and the input has no base (split names
	// must be given base offsets before anything compares them).
	deferred := !opts.serialStrings && s.Base() == nil && parallelism(opts.Workers) > 1
	d, out, st, err := runOn(s, words, opts, deferred)
	if err == errStringsShared {
		// The passes so far wrote nothing to the words; start again,
		// and report the abandoned passes too.
		first := st
		d, out, st, err = runOn(s, words, opts, false)
		var passes []PassStat
		for _, p := range first.Passes {
			passes = append(passes, PassStat{Name: "abandoned " + p.Name, Duration: p.Duration})
		}
		st.Passes = append(passes, st.Passes...)
		st.StringsRerun = true
	}
	return d, out, st, err
}

// errStringsShared ends a run with a deferred string pass whose input names
// one string by two compared offsets (see stringsDistinct).
var errStringsShared = errors.New("dedup: input names a string by two offsets")

// runOn deduplicates s, whose own type words are words (its own or a copy),
// with the string pass before the others or, when deferred is set, beside
// them. A deferred run returns errStringsShared, having written nothing to
// words, when the input's offsets do not allow it.
func runOn(s *btf.Spec, words []uint32, opts Options, deferred bool) (*deduper, *btf.Spec, *Stats, error) {
	st := &Stats{TypesIn: s.NumTypes(), StringsIn: len(s.Strings().Bytes())}
	timer := newPassTimer(st)

	d := &deduper{firstID: s.FirstID(), count: s.TypeCount() + 1, workers: opts.Workers, legacy: opts.Libbpf112, stats: st}
	d.regionLo, d.regionHi = d.firstID, d.count
	d.words = words
	d.offs = s.TypeOffsets()
	if err := d.setMarks(opts.StringMarks); err != nil {
		return nil, nil, st, err
	}
	if b := s.Base(); b != nil {
		d.baseWords = b.Words()
		if b.Base() != nil {
			return nil, nil, st, fmt.Errorf("dedup: base BTF is itself split BTF")
		}
		d.baseOffs = b.TypeOffsets()
	}
	// setup makes the per-type arrays and sets up the state of the base
	// and own types. It is independent of the base's preparation (which
	// reads base words and fills the candidate table) and of the string
	// pass (which rewrites only name words, never read by setupOwn), so
	// with more than one worker it runs beside them, and the arrays (31 MB
	// on a vmlinux, a page fault per page where the memory is fresh) are
	// made off the main path too. Where the string pass is deferred, there
	// is no base to prepare, and setup runs first on all workers.
	setup := func() error {
		d.canon = make([]uint32, d.count)
		d.hypot = make([]uint32, d.count)
		d.kinds = make([]btf.Kind, d.count)
		for id := uint32(1); id < d.firstID; id++ {
			d.canon[id] = id
			d.kinds[id] = btf.InfoKind(d.typ(id)[1])
		}
		d.planRefSplit()
		// Beside the string pass it leaves that pass a CPU; with the
		// string pass deferred, nothing runs beside it.
		if deferred {
			return d.setupOwn(d.parallelism())
		}
		return d.setupOwn(d.besideWorkers())
	}
	overlap := d.parallelism() > 1
	waitSetup := beside(overlap && !deferred, setup)
	if !overlap || deferred {
		if err := waitSetup(); err != nil {
			return nil, nil, st, err
		}
		timer.done("setup")
	}
	// setup's errors come first, as when everything runs in order: they
	// are about the input's structure.
	fail := func(err error) (*deduper, *btf.Spec, *Stats, error) {
		if serr := waitSetup(); serr != nil {
			err = serr
		}
		return nil, nil, st, err
	}

	if bi := opts.Base; bi != nil && bi.base == s.Base() && bi.legacy == opts.Libbpf112 {
		if opts.BaseLastUse {
			d.table, bi.table = bi.table, candTable{}
			bi.base = nil // any later use prepares the base again
		} else {
			d.table = bi.table.clone()
		}
	} else {
		d.table.init()
		if err := d.prepBase(); err != nil {
			return fail(err)
		}
	}
	timer.done("base")

	out := btf.NewSpec(s.Base())
	out.KeepEncoding(s)
	// A deferred string pass starts with the struct pass (beside the
	// hashes and the primitive pass, three goroutines would share two
	// CPUs). waitStrings waits for it and returns its error.
	var strs *strMap
	var waitStrings func() error
	startStrings := func() {
		waitStrings = beside(true, func() error {
			var err error
			strs, err = d.mapStrings(s.Strings(), out.Strings())
			return err
		})
	}
	if !deferred {
		if err := d.dedupStrings(s.Strings(), out.Strings()); err != nil {
			return fail(err)
		}
		if err := waitSetup(); err != nil {
			return nil, nil, st, err
		}
		if overlap {
			timer.done("setup+strings") // the string pass, and setup's rest
		} else {
			timer.done("strings")
		}
	}
	// failAfterStrings returns err, unless a deferred string pass fails:
	// its errors come before those of the later passes, as when it runs
	// first. And where the old offsets were not fit to compare, the
	// passes' decisions, err among them, are not those of the serial
	// order, which must then decide (errStringsShared).
	failAfterStrings := func(err error) (*deduper, *btf.Spec, *Stats, error) {
		if deferred {
			if waitStrings == nil {
				startStrings()
			}
			if serr := waitStrings(); serr != nil {
				err = serr
			} else if !strs.stringsDistinct() {
				err = errStringsShared
			}
		}
		return nil, nil, st, err
	}

	// The struct hashes are first needed by the struct pass; the
	// primitive pass reads other types' words and writes only canon and
	// the table, so with more than one worker the hashes are computed
	// while it runs.
	waitHash := beside(overlap, func() error { d.hashOwn(); return nil })
	if !overlap {
		waitHash()
		timer.done("hash")
	}
	err := d.dedupPrimitives()
	waitHash()
	if err != nil {
		return failAfterStrings(err)
	}
	if overlap {
		timer.done("hash+primitives")
	} else {
		timer.done("primitives")
	}

	if deferred {
		startStrings()
	}
	if err := d.dedupStructs(); err != nil {
		return failAfterStrings(err)
	}
	timer.done("structs")

	if deferred {
		// The reference pass writes to the words: whether the passes
		// may go on with the old offsets must be known before it.
		if err := waitStrings(); err != nil {
			return nil, nil, st, err
		}
		if !strs.stringsDistinct() {
			return nil, nil, st, errStringsShared
		}
		timer.done("strings (beside)") // what the string pass took longer
	}

	d.resolveFwds()
	timer.done("fwds")

	if err := d.dedupRefs(); err != nil {
		return nil, nil, st, err
	}
	timer.done("refs")

	if err := d.compact(out, strs); err != nil {
		return nil, nil, st, err
	}
	timer.done("compact")

	st.TypesOut = out.NumTypes()
	st.StringsOut = len(out.Strings().Bytes())
	st.StringMarks = d.marks.lens
	return d, out, st, nil
}

// beside runs fn on a goroutine of its own when overlap is set, else at
// once, and returns the function that waits for it and returns its error
// (any number of times).
func beside(overlap bool, fn func() error) (wait func() error) {
	var err error
	done := make(chan struct{})
	if !overlap {
		err = fn()
		close(done)
	} else {
		go func() {
			defer close(done)
			err = fn()
		}()
	}
	return func() error {
		<-done
		return err
	}
}

// passTimer records pass durations into a Stats.
type passTimer struct {
	st   *Stats
	last time.Time
}

func newPassTimer(st *Stats) *passTimer { return &passTimer{st: st, last: time.Now()} }

func (p *passTimer) done(name string) {
	now := time.Now()
	p.st.Passes = append(p.st.Passes, PassStat{Name: name, Duration: now.Sub(p.last)})
	p.last = now
}
