// Package encoder runs gobtf's whole-file pipelines without a command line:
// Encode converts a file's DWARF into deduplicated BTF and writes it, as
// "pahole -J" does (base BTF loading, conversion, deduplication, layout,
// writing, and the process tuning that goes with them), and DedupFile
// deduplicates a BTF file as libbpf's btf__dedup does. The gobtf command
// maps its flags to their options and prints their errors.
package encoder

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/dwarf2btf"
)

// Options says what Encode does.
type Options struct {
	// Convert holds the conversion's options: features, workers (Jobs,
	// taken as 1 when lower), language filter and kABI prefix. Its hooks
	// (OnConvert, OnJoined, BeforeUnit) belong to Encode: those set here
	// are ignored.
	Convert dwarf2btf.Options

	// Base is the path of the base BTF (raw, or an ELF file's .BTF) to
	// encode split BTF on; "" encodes base BTF.
	Base string

	// Detached is the path raw BTF is written to (atomically); "" writes
	// a .BTF section into the input file instead (and .BTF.base with the
	// distilled_base feature), as pahole does through llvm-objcopy.
	Detached string

	// SkipDedup writes the one-to-one conversion, not deduplicated.
	SkipDedup bool

	// LimitCPUs caps the CPUs the call runs on (GOMAXPROCS) at
	// Convert.Jobs, as pahole's -j N runs N threads: besides the
	// converters there are goroutines that read the ELF side, join the
	// units, fault memory in and share deduplication's work, and in a
	// kernel build, where make runs many encodings at once, each would
	// otherwise take more CPUs than it was given. The setting is
	// process-wide and restored on return.
	LimitCPUs bool

	// MergeBaseCopies runs, for split BTF, a second deduplication where
	// the first kept a module type apart from its base copy (see
	// deduplicate): gobtf's own improvement on pahole, whose output keeps
	// such copies; the strings then come in libbpf's order, not pahole's.
	MergeBaseCopies bool

	// TuneGC lets Encode set the process's garbage collector for the
	// input's size for the call's duration (see gcForInput); gobtf sets it
	// unless GOGC is set in the environment.
	TuneGC bool
}

// Stats describes an Encode call, for gobtf's --stats.
type Stats struct {
	Jobs, CPUs int             // converters, and the CPUs the call could use
	Convert    dwarf2btf.Stats // the conversion's phases and counts
	BaseWait   time.Duration   // time spent waiting for the base BTF (0 without one)
	Dedup      *dedup.Stats    // nil with SkipDedup
	Marshal    time.Duration   // encoding the output's bytes
	Write      time.Duration   // writing them

	TypesOut, StringBytesOut int // in the written BTF

	// Written is false when nothing was written: the input held no type
	// besides void and no base was given (pahole's "Empty file, nothing
	// to do", which is not an error either).
	Written bool
}

// Encode converts the DWARF of the ELF file at path into BTF, deduplicates
// it and writes it as o says. A file without DWARF is an error wrapping
// dwarf2btf.ErrNoDWARF, with nothing written (pahole -J exits 0 there, and
// gobtf does too). Errors name the file. The output depends only on path's
// contents and o, never on the number of workers.
func Encode(ctx context.Context, path string, o Options) (*Stats, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts := o.Convert
	opts.Jobs = max(opts.Jobs, 1)
	opts.OnConvert, opts.OnJoined, opts.BeforeUnit = nil, nil, nil
	if o.LimitCPUs && opts.Jobs < runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(opts.Jobs))
	}
	if opts.Features.DistilledBase && o.Base == "" && o.Detached == "" {
		// pahole fails the same way, after encoding: libbpf can only
		// distill the base of split BTF.
		return nil, fmt.Errorf("%s: the distilled_base feature needs --btf_base", path)
	}
	st := &Stats{Jobs: opts.Jobs, CPUs: runtime.GOMAXPROCS(0)}
	// Open prepares the memory (see dwarf2btf.Open), before the base is
	// read, so that the base's allocations land in prepared memory too.
	in, err := dwarf2btf.Open(path)
	if o.TuneGC && err == nil {
		restore, converting := gcForInput(in.InfoSize())
		defer restore()
		opts.OnConvert = converting
	}
	// The base BTF is read on the side while the input is converted, which
	// does not need it; its errors are still reported first.
	baseDone := loadBase(o.Base, opts.Jobs)
	var spec *btf.Spec
	var stream *dedup.Stream
	saved := &savedStrings{}
	if err == nil {
		spec, stream, err = convert(in, &opts, o, saved, st)
	}
	waited := time.Now()
	b := <-baseDone
	if o.Base != "" {
		st.BaseWait = time.Since(waited)
	}
	if b.err != nil {
		return nil, b.err
	}
	if b.release != nil {
		defer b.release()
	}
	if err != nil {
		return nil, err
	}
	if b.spec == nil && spec.NumTypes() == 0 {
		return st, nil
	}
	if err := ctx.Err(); err != nil {
		if stream != nil {
			stream.Stop()
		}
		return nil, err
	}
	return st, finish(path, spec, stream, saved, b, opts, o, st)
}

// convert converts the opened input. Without a base, and with more than
// one worker and CPU, deduplication starts as the units are joined, on the
// types joined so far, beside the conversion (dedup.Stream); the stream is
// returned to be finished, or nil.
func convert(in *dwarf2btf.Input, opts *dwarf2btf.Options, o Options, saved *savedStrings, st *Stats) (*btf.Spec, *dedup.Stream, error) {
	var stream *dedup.Stream
	if o.Base == "" && !o.SkipDedup && opts.Jobs > 1 && runtime.GOMAXPROCS(0) > 1 {
		stream = dedup.NewStream(dedupOptions(opts.Jobs), int(in.InfoSize()/32))
		opts.OnJoined, opts.BeforeUnit = stream.Add, stream.Hold
	}
	if !o.SkipDedup {
		opts.OnSavedStrings = func(at btf.TypeID, strs []string) {
			saved.add(at, strs)
			if stream != nil {
				stream.MarkStrings(at)
			}
		}
	}
	spec, err := in.Encode(opts, &st.Convert)
	in.Close()
	if stream != nil && (err != nil || spec.NumTypes() == 0) {
		stream.Stop()
		stream = nil
	}
	return spec, stream, err
}

// dedupOptions are the options of Encode's deduplication: the converted
// types are Encode's own, so they are rewritten in place and their
// storage dropped as it is used.
func dedupOptions(workers int) dedup.Options {
	return dedup.Options{InPlace: true, Discard: true, Workers: workers}
}

// finish deduplicates the converted types (on the base, if any), sets the
// layout and writes the output.
func finish(path string, spec *btf.Spec, stream *dedup.Stream, saved *savedStrings, b loadedBase, opts dwarf2btf.Options, o Options, st *Stats) error {
	// The conversion's working memory (DWARF abbreviation tables, symbol
	// tables, per-unit buffers) is garbage now: collect it before
	// deduplication allocates its own, which then reuses it, so that the
	// two never add up in the peak resident memory. It is not handed back
	// to the system (debug.FreeOSMemory): deduplication would only fault
	// it in again, page by page.
	runtime.GC()
	order := spec.ByteOrder()
	if b.spec != nil {
		spec = btf.RebaseInPlace(spec, b.spec)
		saved.shift(btf.TypeID(b.spec.TypeCount()))
	}
	if !o.SkipDedup {
		var err error
		if spec, err = deduplicate(path, spec, stream, saved, b.index, opts.Jobs, o.MergeBaseCopies, st); err != nil {
			return err
		}
	}
	// pahole master writes the header of libbpf 1.8, whose layout fields
	// are zero where there is no layout section.
	spec.SetHeaderLen(btf.LayoutHeaderLen)
	if opts.Features.Layout && spec.Base() == nil {
		// As pahole: a base BTF only (split BTF has its base's table).
		spec.SetLayout(btf.KindLayouts())
	}
	if err := write(path, o.Detached, spec, order, opts.Features.DistilledBase, st); err != nil {
		return err
	}
	st.TypesOut, st.StringBytesOut = spec.NumTypes(), len(spec.Strings().Bytes())
	st.Written = true
	return nil
}

// deduplicate runs libbpf's deduplication on spec: it finishes stream when
// there is one, and otherwise runs it on the prepared base (index, or nil).
func deduplicate(path string, spec *btf.Spec, stream *dedup.Stream, saved *savedStrings, index *dedup.BaseIndex, workers int, mergeBaseCopies bool, st *Stats) (*btf.Spec, error) {
	var err error
	if stream != nil {
		spec, st.Dedup, err = stream.Finish(spec)
	} else {
		// The first pass takes the prepared base's storage instead of a
		// copy; the rare second pass prepares the base again.
		dopts := dedupOptions(workers)
		dopts.Base, dopts.BaseLastUse = index, true
		dopts.StringMarks = saved.at
		spec, st.Dedup, err = dedup.Dedup(spec, dopts)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: deduplicating: %w", path, err)
	}
	t := time.Now()
	if err := applyPaholeOrder(spec, saved, st.Dedup.StringMarks); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st.Dedup.Passes = append(st.Dedup.Passes, dedup.PassStat{Name: "strings in pahole's order", Duration: time.Since(t)})
	st.Dedup.StringsOut = len(spec.Strings().Bytes())
	if !mergeBaseCopies || index == nil || st.Dedup.BaseFwdKeptApart == 0 {
		return spec, nil
	}
	// One pass of libbpf's algorithm can leave a module type that is an
	// exact copy of a base type (struct module in mlx5_ib, rdma_counter in
	// ib_core, gfn_to_pfn_cache in kvm-amd; pahole 1.24 leaves the same
	// ones). The first module type whose comparison with the base reaches
	// a base FWD that the module defines is kept apart (a base FWD cannot
	// turn into a module type), while the FWD's link to the definition is
	// recorded, so the types compared after it merge with the base's; the
	// first one ends up referring to base types only. A second pass merges
	// it (TestSplitDedupTwice); on the modules of Debian's 6.1 kernel it
	// leaves no duplicate (make test-modules). It runs only when the first
	// pass kept a type apart that way (BaseFwdKeptApart), the one
	// situation it is for.
	dopts := dedupOptions(workers)
	dopts.Base = index
	spec, d2, err := dedup.Dedup(spec, dopts)
	if err != nil {
		return nil, fmt.Errorf("%s: deduplicating again: %w", path, err)
	}
	for _, p := range d2.Passes {
		st.Dedup.Passes = append(st.Dedup.Passes, dedup.PassStat{Name: "again: " + p.Name, Duration: p.Duration})
	}
	st.Dedup.TypesOut, st.Dedup.StringsOut = d2.TypesOut, d2.StringsOut
	return spec, nil
}
