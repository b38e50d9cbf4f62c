package dwarf2btf

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
	"github.com/gobtf/gobtf/internal/elfio"
)

// target describes the file being converted, as the conversion of every unit
// needs it.
type target struct {
	littleEndian bool
	addrSize     uint32
	debugAddr    []byte
	elf          *elfInfo
	infoSize     int // bytes of .debug_info, to size the output up front

	// out, when set, is the Spec to join units into (see OutputSize).
	out *btf.Spec
	// pipe is what runs beside the conversion (never nil).
	pipe *Pipeline

	// shared, when set, is .debug_str as a string table (see
	// btf.NewSharedStrings and btf.NewSectionStrings): names read from
	// there keep their offset, to the output or to the join.
	shared *btf.StringTable

	// merged, when set, makes the conversion one unit made of all units
	// (see merged.go).
	merged *mergedUnit

	// doneWith, when not nil, is told after unit i has been joined (so
	// every unit before it has been too): unit i is not read again, and
	// the bytes of .debug_info up to its end are no longer needed and may
	// be dropped from memory (they stay readable; see mappedFile.release).
	doneWith func(i int)
}

// mergedUnit is the one unit of a merged conversion.
type mergedUnit struct {
	units []die.Unit // the units read, in order
	lang  uint64     // the first unit's language
	clang bool       // the first unit's producer is clang
}

// newTarget describes f, whose symbols are syms; addrs, when not nil, are the
// section addresses to place variables by (see elfio.File.OfflineLayout),
// else the headers' own.
func newTarget(f *elfio.File, syms []elfio.Symbol, opts *Options, debugAddr []byte, infoSize int, addrs []uint64) *target {
	t := &target{littleEndian: f.ByteOrder == binary.LittleEndian, addrSize: 8, debugAddr: debugAddr,
		elf: newElfInfo(f, syms, &opts.Features, addrs), infoSize: infoSize, pipe: &Pipeline{}}
	if f.Class == elf.ELFCLASS32 {
		t.addrSize = 4
	}
	return t
}

// spareSpecs is how many more output Specs than converters convertUnits
// keeps: how far the converters may run ahead of the joiner. An average
// kernel unit's BTF is about 50 KB, so eight are cheap.
const spareSpecs = 8

// unitDone is a converted unit handed to the joiner: the Spec that holds
// its BTF (returned to the pool once joined) or the error.
type unitDone struct {
	spec    *btf.Spec
	vars    []secEntry
	funcs   []funcs.Candidate
	funcsAt btf.TypeID // the unit's types before its variables
	skipped bool
	log     []logEntry // with Options.Log, the unit's reports, told as it is joined
	err     error
}

// funcSource is what function encoding needs beyond the unit's types: the
// decoded DWARF (candidates are collected with gobtf's decoder), the ELF
// function table and the encoding's options. Without one, no functions are
// encoded.
type funcSource struct {
	data    *die.Data
	units   []die.Unit
	table   *funcs.Table
	machine elf.Machine
	opts    *funcs.Options
}

// convertUnits converts n units, opening unit i's DIE stream with open, on
// opts.Jobs goroutines, and joins them into one Spec in unit order.
//
// Each unit is converted on its own by one of jobs converters (cuTypes, one
// per goroutine, whose scratch buffers are reused from unit to unit) into an
// output Spec taken from a pool, and joined by a single goroutine strictly
// in unit order, which interns the unit's strings into the output and
// returns the Spec to the pool. So the output is the same for every job
// count and no unit's BTF is copied twice.
//
// The Specs are pooled apart from the converters: a converter that has
// finished its unit goes on as long as there is a Spec to write into, while
// the lowest unit not yet joined, often a large one, is still being
// converted by another, and each converter keeps its scratch warm. A Spec
// holds only the unit's output, written front to back, so a few more of
// them than converters cost little.
//
// Specs are taken from the pool before units, in unit order, by the
// dispatching loop: the lowest unit not yet joined therefore always holds a
// Spec and can finish, which is what keeps an empty pool from deadlocking the
// joiner.
func convertUnits(n int, open func(i int) (dieStream, string), tgt *target, fs *funcSource, opts *Options) (*btf.Spec, error) {
	jobs := max(opts.Jobs, 1)
	pipe := tgt.pipe
	pool := make(chan *btf.Spec, jobs+spareSpecs)
	for range cap(pool) {
		spec := btf.NewSpec(nil)
		if tgt.shared != nil {
			spec.SetStrings(btf.NewStringTable(tgt.shared))
		}
		pool <- spec
	}
	convs := make([]*cuTypes, jobs)
	for g := range convs {
		convs[g] = newCUTypes(opts, tgt, fs)
	}
	done := make([]chan unitDone, n)
	for i := range done {
		done[i] = make(chan unitDone, 1)
	}

	out := tgt.out
	if out == nil {
		out = newOutput(tgt.infoSize)
	}
	if tgt.shared != nil && !tgt.shared.ByOffset() {
		out.SetStrings(tgt.shared.CopyShared())
	}
	var entries []secEntry
	perUnit := make([][]funcs.Candidate, n)
	shifts := make([]btf.TypeID, n)
	joined := make(chan error, 1)
	advance, stopAhead := prefaultAhead(out)
	go func() {
		var first error
		for i := range done {
			r := <-done[i]
			if r.err != nil && first == nil {
				first = r.err
			}
			var shift btf.TypeID
			if first == nil && !r.skipped {
				shift, first = out.AppendSpec(r.spec)
			}
			if first == nil && !r.skipped {
				advance()
				if pipe.SavedStrings != nil {
					if strs := funcs.SavedStrings(r.funcs); len(strs) > 0 {
						pipe.SavedStrings(shift+r.funcsAt+1, strs)
					}
				}
				if pipe.Joined != nil {
					pipe.Joined(out)
				}
				for _, e := range r.vars {
					e.typ += shift
					entries = append(entries, e)
				}
				perUnit[i], shifts[i] = r.funcs, shift
				if len(r.log) > 0 {
					replay(opts.Log, r.log)
				}
			}
			pool <- r.spec
			if tgt.doneWith != nil {
				tgt.doneWith(i)
			}
		}
		joined <- first
	}()

	inOrder(n, jobs, pool, pipe.BeforeUnit, func(g, i int, spec *btf.Spec) {
		done[i] <- convs[g].convertUnit(open, i, spec, tgt, fs)
	})
	err := <-joined
	// Stopped here, by the goroutine that appends next (the function and
	// section types below), once the joiner has reported its last append:
	// stopping gives back the memory past the joined types, so it must be
	// over before anything is appended there.
	stopAhead()
	if err != nil {
		return nil, err
	}
	if fs != nil {
		var progress func(int)
		if pipe.Joined != nil {
			progress = func(names int) {
				if names%namesPerReport == 0 {
					pipe.Joined(out)
				}
			}
		}
		if err := funcs.Encode(out, perUnit, shifts, fs.table, fs.opts, progress); err != nil {
			return nil, err
		}
	}
	if err := appendDatasecs(out, tgt.elf, entries); err != nil {
		return nil, err
	}
	return out, nil
}

// namesPerReport is how many function names funcs.Encode encodes between
// two calls of Pipeline.Joined.
//
// The function encoding runs on one CPU after the last unit is joined;
// reported as they are encoded, the functions' types go through a
// dedup.Stream's passes (their names into its string table) on another CPU
// meanwhile rather than after. The types a name adds are final once it is
// encoded (a FUNC_PROTO, then the FUNC, then its DECL_TAGs, each
// referencing only types before it). A report costs a lock; the stream
// wakes only every so many types (dedup.Stream.Add).
var namesPerReport = 512

// inOrder runs work on units 0 to n-1 on jobs goroutines, which take the
// units in order, each with an item from pool that work must see returned
// to pool (the joiner returns them, in unit order). work is also told which
// goroutine (0 to jobs-1) runs it, for state of its own. A goroutine calls
// before, when not nil, before it takes an item and a unit, so that before
// may wait without holding up the joiner.
//
// The goroutines live as long as the conversion, not one goroutine a unit,
// so that their stacks, grown once, are kept.
//
// Invariant, which keeps it from deadlocking: a goroutine takes an item
// before it takes a unit, so the lowest unit not yet done is always held by
// a goroutine that has an item, and the joiner, which waits for that unit,
// always gets it. (A goroutine that took the unit first could hold the
// lowest unit while waiting for an item, as another, which had taken the
// next unit, got the last one: the joiner would wait for the first, which
// would wait for the joiner.)
func inOrder[T any](n, jobs int, pool chan T, before func(), work func(g, i int, c T)) {
	var eg errgroup.Group
	var taken atomic.Int64
	for g := range jobs {
		eg.Go(func() error {
			for {
				if before != nil {
					before()
				}
				c := <-pool
				i := int(taken.Add(1) - 1)
				if i >= n {
					pool <- c
					return nil
				}
				work(g, i, c)
			}
		})
	}
	_ = eg.Wait()
}

// convertUnit converts unit i into spec: its types, its variables and,
// given a funcSource, its function candidates. Like pahole, it skips units in
// excluded languages, and partial and skeleton units (dwz or split DWARF
// leftovers that pahole does not read either).
func (c *cuTypes) convertUnit(open func(i int) (dieStream, string), i int, spec *btf.Spec, tgt *target, fs *funcSource) unitDone {
	opts := c.opts
	c.spec = spec
	src, where := open(i)
	c.reset()
	fst, walkFuncs := src.(*decoderStream)
	// Type units of .debug_types (numbered after fs.units) have no
	// functions.
	walkFuncs = walkFuncs && fs != nil && tgt.merged == nil && i < len(fs.units)
	if walkFuncs {
		// Step 1 of the function collection reads the unit along with
		// the type walk (funcs.Collector.BeginWalk).
		c.funcs.BeginWalk(fst.reader(), &fs.units[i])
		fst.withFuncs(c.funcs)
	}
	if fst != nil {
		fst.usePlans(&c.plans)
	}
	lang, clang, err := c.walk(src)
	if err == nil && walkFuncs {
		err = c.funcs.EndWalk()
	}
	if err != nil {
		return unitDone{spec: c.spec, err: fmt.Errorf("%s: %w", where, err)}
	}
	m := tgt.merged
	if m != nil {
		lang, clang = m.lang, m.clang
	} else if opts.Languages.Skips(dwarf.Lang(lang)) || c.unitTag == dwarf.TagPartialUnit || c.unitTag == dwarf.TagSkeletonUnit {
		return unitDone{spec: c.spec, skipped: true}
	}
	if err := c.check(); err != nil {
		return unitDone{spec: c.spec, err: fmt.Errorf("%s: %w", where, err)}
	}
	c.enumSignedness()
	c.emit()
	var cands []funcs.Candidate
	var log []logEntry
	if fs != nil && (m != nil || c.unitTag == dwarf.TagCompileUnit) {
		units := fs.units[i : i+1]
		if m != nil {
			units = m.units
		}
		cands, err = c.funcs.Collect(funcs.Unit{Units: units, Data: fs.data, Types: c, Clang: clang, Machine: fs.machine})
		if err != nil {
			return unitDone{spec: c.spec, err: fmt.Errorf("%s: %w", where, err)}
		}
		for _, name := range c.funcs.TakeNotFound() {
			log = append(log, logEntry{kind: logNoSymbol, name: name})
		}
	}
	funcsAt := btf.TypeID(c.spec.NumTypes())
	vars, err := c.emitVars(tgt.elf)
	if err != nil {
		return unitDone{spec: c.spec, err: fmt.Errorf("%s: %w", where, err)}
	}
	if len(c.varLog) > 0 {
		log = append(log, c.varLog...)
		c.varLog = c.varLog[:0]
	}
	return unitDone{spec: c.spec, vars: vars, funcs: cands, funcsAt: funcsAt, log: log}
}

// convertTypes converts the types, variables and functions of f, whose
// DWARF sections are secs (decompressed and, for relocatable files,
// relocated against addrs; nil: the sections' sh_addr), into out. symbols
// reads f's symbol table. release, when not nil, is handed the
// parts of secs.Info that have been converted, as the conversion goes on.
func convertTypes(f *elfio.File, symbols func() ([]elfio.Symbol, error), secs *die.Sections, addrs []uint64, release func([]byte), out *btf.Spec, pipe *Pipeline, opts *Options) (*btf.Spec, error) {
	// The ELF side (symbols, function table, sections) is read while the
	// DWARF units are indexed: neither needs the other.
	fopts := funcOptions(opts)
	var (
		table  *funcs.Table
		tgt    *target
		elfErr error
		ready  = make(chan struct{})
	)
	go func() {
		defer close(ready)
		syms, err := symbols()
		if table, elfErr = funcTable(f, syms, err, fopts); elfErr == nil {
			tgt = newTarget(f, syms, opts, secs.Addr, len(secs.Info), addrs)
			tgt.out = out
			if pipe != nil {
				tgt.pipe = pipe
			}
			// Names read from a merged .debug_str need no interning
			// (btf.NewSharedStrings), at the price of indexing the
			// section once; that pays where the section is small next
			// to the DWARF that names things through it. A module's
			// .debug_str (not merged by ld -r) is about half the size of
			// its .debug_info, a kernel's a fiftieth: there the units
			// keep the names they read from it as offsets, and the join
			// interns them (btf.NewSectionStrings), which saves the
			// units' own interning of them. A --kabi_prefix rewrites
			// names, so each is read.
			switch {
			case opts.KabiPrefix != "":
			case len(secs.Str) <= len(secs.Info)/8:
				tgt.shared = btf.NewSharedStrings(secs.Str)
			default:
				tgt.shared = btf.NewSectionStrings(secs.Str)
			}
		}
	}()
	// Lean: the conversion never reads source coordinates, so the
	// decoder steps over them.
	d, err := die.NewWith(secs, die.Options{Lean: true})
	<-ready
	if err != nil {
		return nil, err
	}
	if elfErr != nil {
		return nil, elfErr
	}
	units := d.Units()
	// The type units of .debug_types (DWARF 4) come after the units, each
	// converted on its own, as those of .debug_info (DWARF 5) are among
	// them: a type unit's type that no unit refers to is still the
	// file's (the units copy those they refer to, see typeunits.go).
	tunits := d.TypeUnits()
	unitAt := func(i int) *die.Unit {
		if i >= len(units) {
			return &tunits[i-len(units)]
		}
		return &units[i]
	}
	open := func(i int) (dieStream, string) {
		u := unitAt(i)
		return newDecoderStream(d, u), fmt.Sprintf("unit at %s offset %#x", u.Section, u.Offset)
	}
	fs := &funcSource{data: d, units: units, table: table, machine: f.Machine, opts: fopts}
	n := len(units)
	merged := n > 0 && mergeUnits(f, d)
	if pipe := tgt.pipe; pipe.Converting != nil {
		pipe.Converting(merged)
	}
	if !merged {
		n += len(tunits)
	}
	// A unit joined is read no more (its function candidates hold copies
	// of what encoding needs): its abbreviation table, about 7 bytes per
	// byte of .debug_abbrev altogether, can go, and later units reuse the
	// memory. Units read across (merged conversions) are all kept.
	forget := func(i int) {
		if !merged && i < len(units) {
			d.Forget(i)
		}
	}
	tgt.doneWith = forget
	if release != nil {
		// die.New has parsed every abbreviation table. Its walk over
		// the unit headers also touched pages all over .debug_info, but
		// those stay: the units' conversion reads them again, so
		// dropping them would only fault them in again, while the
		// steps below drop each as its units are done.
		release(secs.Abbrev)
		var from uint64 // secs.Info[:from] has been released
		tgt.doneWith = func(i int) {
			forget(i)
			u := unitAt(i)
			// In steps of 8 MB: each call costs a TLB flush on every
			// CPU running the process, whatever its length.
			if u.Section == die.SecInfo && u.End >= from+8<<20 && u.End <= uint64(len(secs.Info)) {
				release(secs.Info[from:u.End])
				from = u.End
				// Location and range lists are reached through
				// offsets in DIEs, not unit by unit, so they are
				// released whole: the units being converted read
				// back the few pages they still need, and those of
				// units already done stop counting.
				release(secs.LocLists)
				release(secs.RngLists)
			}
		}
	}
	if merged {
		m := &mergedUnit{units: mergedUnitList(units, opts), lang: units[0].Language,
			clang: strings.Contains(units[0].Producer, "clang")}
		tgt.merged, n = m, 1
		open = func(int) (dieStream, string) {
			return &mergedStream{d: d, units: m.units}, "merged units (DW_FORM_ref_addr or LTO)"
		}
	}
	return convertUnits(n, open, tgt, fs, opts)
}
