// Package encoder runs gobtf's whole-file pipelines without a command line:
// Encode converts a file's DWARF into deduplicated BTF and writes it, as
// "pahole -J" does (base BTF loading, conversion, deduplication beside it,
// layout, writing), and DedupFile deduplicates a BTF file as libbpf's
// btf__dedup does. The pipelines own the big buffers and the hooks between
// their stages; they change no setting of the process, but call their
// caller's Hooks at the phases where the gobtf command tunes it (package
// tuning). The command maps its flags to their options and prints their
// errors.
package encoder

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/hugemem"
)

// Options says what Encode does.
type Options struct {
	// Convert holds the conversion's options: features, workers (Jobs,
	// taken as 1 when lower), language filter, kABI prefix and -V's log.
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

	// MergeBaseCopies runs, for split BTF, a second deduplication where
	// the first kept a module type apart from its base copy (see
	// deduplicate): gobtf's own improvement on pahole, whose output keeps
	// such copies; the strings then come in libbpf's order, not pahole's.
	MergeBaseCopies bool

	// Hooks are called at the pipeline's phases.
	Hooks Hooks
}

// Hooks let the caller act at Encode's phases, as gobtf tunes the process
// there (tuning.Encoding). A nil hook is not called.
type Hooks struct {
	// Opened is called once the input is open and the output's storage,
	// the biggest allocation, reserved in fresh memory, before anything
	// else is allocated: with the file's size and its .debug_info's.
	Opened func(fileSize int, infoSize uint64)
	// Converting is called as the units' conversion starts
	// (dwarf2btf.Pipeline.Converting).
	Converting func(merged bool)
	// Converted is called once the conversion's working memory is garbage,
	// before deduplication allocates its own.
	Converted func()
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
	if opts.Features.DistilledBase && o.Base == "" && o.Detached == "" {
		// pahole fails the same way, after encoding: libbpf can only
		// distill the base of split BTF.
		return nil, fmt.Errorf("%s: the distilled_base feature needs --btf_base", path)
	}
	st := &Stats{Jobs: opts.Jobs, CPUs: runtime.GOMAXPROCS(0)}
	// The output's storage is reserved first, in fresh memory, of which
	// the part never used costs nothing; the Opened hook then prepares the
	// heap (reserved in prepared memory, the storage would be cleared, and
	// so made resident, whole), before the base is read, so that the
	// base's allocations land in prepared memory too.
	in, err := dwarf2btf.Open(path)
	var out *btf.Spec
	if err == nil {
		// The file is opened once: the conversion reads it, and the
		// sections written into it go through it too (write).
		defer in.Close()
		out = newOutput(in)
		if o.Hooks.Opened != nil {
			o.Hooks.Opened(in.FileSize(), in.InfoSize())
		}
	}
	// The base BTF is read on the side while the input is converted, which
	// does not need it; its errors are still reported first.
	baseDone := loadBase(o.Base, opts.Jobs)
	var spec *btf.Spec
	var stream *dedup.Stream
	saved := &savedStrings{}
	if err == nil {
		spec, stream, err = convert(in, out, &opts, o, saved, st)
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
	return st, finish(in.File(), spec, stream, saved, b, opts, o, st)
}

// newOutput returns the empty Spec the conversion of in joins its units
// into, with its storage reserved (dwarf2btf.OutputSize) and advised for
// huge pages; nil, for the conversion's own, when the .debug_info size is
// absurd next to the file's (a corrupt compressed section's header).
func newOutput(in *dwarf2btf.Input) *btf.Spec {
	if in.InfoSize() > uint64(in.FileSize())*64 {
		return nil
	}
	types, words := dwarf2btf.OutputSize(in.InfoSize())
	out := btf.NewSpec(nil)
	out.UseStorage(hugemem.Make[uint32](0, types), hugemem.Make[uint32](0, words))
	return out
}

// convert converts the opened input into out. Without a base, and with
// more than one worker and CPU, deduplication starts as the units are
// joined, on the types joined so far, beside the conversion (dedup.Stream);
// the stream is returned to be finished, or nil.
func convert(in *dwarf2btf.Input, out *btf.Spec, opts *dwarf2btf.Options, o Options, saved *savedStrings, st *Stats) (*btf.Spec, *dedup.Stream, error) {
	var stream *dedup.Stream
	pipe := &dwarf2btf.Pipeline{Converting: o.Hooks.Converting}
	if o.Base == "" && !o.SkipDedup && opts.Jobs > 1 && runtime.GOMAXPROCS(0) > 1 {
		stream = dedup.NewStream(dedupOptions(opts.Jobs), int(in.InfoSize()/32))
		pipe.Joined, pipe.BeforeUnit = stream.Add, stream.Hold
	}
	if !o.SkipDedup {
		pipe.SavedStrings = func(at btf.TypeID, strs []string) {
			saved.add(at, strs)
			if stream != nil {
				stream.MarkStrings(at)
			}
		}
	}
	spec, err := in.Encode(opts, out, pipe, &st.Convert)
	in.Unmap() // the conversion's memory: the file stays open for writing
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
func finish(file *elfio.File, spec *btf.Spec, stream *dedup.Stream, saved *savedStrings, b loadedBase, opts dwarf2btf.Options, o Options, st *Stats) error {
	path := file.Name()
	// The conversion's working memory (DWARF abbreviation tables, symbol
	// tables, per-unit buffers) is garbage now.
	if o.Hooks.Converted != nil {
		o.Hooks.Converted()
	}
	order := spec.ByteOrder()
	if b.spec != nil {
		var err error
		if spec, err = btf.RebaseInPlace(spec, b.spec); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
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
	if err := write(file, o.Detached, spec, order, opts.Features.DistilledBase, st); err != nil {
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
