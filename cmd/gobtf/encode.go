package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// encodeOptions holds pahole's BTF-encoding flags as gobtf accepts them.
//
// Several flags act on shared state (the feature set, the language filter),
// and pahole applies them in command-line order: the first --btf_features
// resets every feature, so an older flag before it is overridden and one
// after it is not. pflag calls each flag's Set in command-line order, so the
// flags below are pflag.Values that apply their effect right away.
type encodeOptions struct {
	encode    bool   // -J, --btf_encode
	detached  string // --btf_encode_detached=FILE
	base      string // --btf_base=FILE
	jobs      int    // -j, --jobs; 0 means one per CPU
	jobsGiven bool   // -j was on the command line
	kabi      string // --kabi_prefix
	skipDedup bool   // --skip_dedup (gobtf only)
	stats     bool   // --stats (gobtf only)
	verbose   bool   // -V, --verbose

	features      *dwarf2btf.FeatureSet
	langs         dwarf2btf.LanguageFilter
	langsGiven    bool
	langErr       error
	featureErr    error
	showSupported bool
}

func (o *encodeOptions) register(cmd *cobra.Command) {
	o.features = dwarf2btf.NewFeatureSet()
	o.jobs = 1
	f := cmd.Flags()
	f.SortFlags = false
	f.BoolVarP(&o.encode, "btf_encode", "J", false, "encode BTF from the file's DWARF")
	f.Var(&stringAction{fn: func(v string) { o.detached, o.encode = v, true }}, "btf_encode_detached",
		"write raw BTF to `FILE` instead of a .BTF section in the input")
	f.StringVar(&o.base, "btf_base", "", "encode split BTF on top of the base BTF in `FILE` (ELF or raw)")
	f.Var(&stringAction{fn: func(v string) { o.setFeatureErr(o.features.ApplyList(v, false)) }}, "btf_features",
		"encode exactly the BTF features in the comma-separated `LIST` (\"default\", or \"+\" to add to it)")
	f.Var(&stringAction{fn: func(v string) { o.setFeatureErr(o.features.ApplyList(v, true)) }}, "btf_features_strict",
		"like --btf_features, but an unknown feature in `LIST` is an error")
	boolAction(f, "supported_btf_features", "print the supported --btf_features names and exit", func() { o.showSupported = true })
	jobs := f.VarPF(&stringAction{fn: o.setJobs}, "jobs", "j", "convert compilation units with `N` workers, on at most N CPUs (bare -j: one per CPU)")
	jobs.NoOptDefVal = "0"

	feat := func(name, usage string, fn func(*dwarf2btf.Features)) {
		boolAction(f, name, usage, func() { fn(&o.features.Features) })
	}
	feat("btf_gen_floats", "encode floating-point types as FLOAT", func(x *dwarf2btf.Features) { x.Float = true })
	boolAction(f, "btf_gen_all", "pahole 1.31 semantics: a feature list naming no known feature", o.features.ApplyGenAll)
	feat("btf_gen_optimized", "encode functions with optimized-out parameters", func(x *dwarf2btf.Features) { x.OptimizedFunc = true })
	feat("btf_encode_force", "skip symbols with invalid names instead of failing", func(x *dwarf2btf.Features) { x.EncodeForce = true })
	feat("skip_encoding_btf_vars", "do not encode variables", func(x *dwarf2btf.Features) { x.Var = false })
	feat("skip_encoding_btf_decl_tag", "do not encode DECL_TAG", func(x *dwarf2btf.Features) { x.DeclTag = false })
	feat("skip_encoding_btf_type_tag", "do not encode TYPE_TAG", func(x *dwarf2btf.Features) { x.TypeTag = false })
	feat("skip_encoding_btf_enum64", "encode 64-bit enums as ENUM", func(x *dwarf2btf.Features) { x.Enum64 = false })
	feat("skip_encoding_btf_inconsistent_proto", "skip functions with inconsistent prototypes",
		func(x *dwarf2btf.Features) { x.ConsistentFunc = true })
	feat("reproducible_build", "reproducible output (gobtf's output never depends on -j)",
		func(x *dwarf2btf.Features) { x.ReproducibleBuild = true })
	feat("btf_attributes", "encode attributes as tags with kind_flag set", func(x *dwarf2btf.Features) { x.Attributes = true })

	f.Var(&stringAction{fn: func(v string) { o.setLangs(v, false) }}, "lang", "only consider compilation units in these `LANGUAGES`")
	f.Var(&stringAction{fn: func(v string) { o.setLangs(v, true) }}, "lang_exclude", "skip compilation units in these `LANGUAGES`")
	f.StringVar(&o.kabi, "kabi_prefix", "", "replace names starting with `PREFIX` by the prefix")
	f.BoolVar(&o.skipDedup, "skip_dedup", false, "write the one-to-one conversion, not deduplicated (gobtf only)")
	f.BoolVarP(&o.verbose, "verbose", "V", false, "with -J, print pahole -V's lines: functions left out of BTF and why, variables encoded")
	f.BoolVar(&o.stats, "stats", false, "print each phase's time, counts and peak memory on stderr (gobtf only)")
}

func (o *encodeOptions) setFeatureErr(err error) {
	if err != nil && o.featureErr == nil {
		o.featureErr = err
	}
}

// setJobs parses -j's value: 0 (bare -j) means one worker per CPU.
func (o *encodeOptions) setJobs(v string) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		o.setFeatureErr(fmt.Errorf("invalid job count %q", v))
		return
	}
	if n == 0 {
		n = runtime.NumCPU()
	}
	o.jobs, o.jobsGiven = n, true
}

// setLangs mirrors pahole: --lang and --lang_exclude share one list (the last
// one given wins), and once --lang_exclude was seen the list excludes.
func (o *encodeOptions) setLangs(v string, exclude bool) {
	ids, err := dwarf2btf.ParseLanguages(v)
	if err != nil {
		o.langErr = err
		return
	}
	o.langs.IDs = ids
	o.langs.Exclude = o.langs.Exclude || exclude
	o.langsGiven = true
}

// options turns the parsed flags into conversion options; PAHOLE_LANG_EXCLUDE
// applies when neither --lang nor --lang_exclude was given.
func (o *encodeOptions) options() (dwarf2btf.Options, error) {
	if o.featureErr != nil {
		return dwarf2btf.Options{}, usageError{o.featureErr}
	}
	if o.langErr != nil {
		return dwarf2btf.Options{}, usageError{o.langErr}
	}
	langs := o.langs
	if !o.langsGiven {
		if env := os.Getenv("PAHOLE_LANG_EXCLUDE"); env != "" {
			ids, err := dwarf2btf.ParseLanguages(env)
			if err != nil {
				return dwarf2btf.Options{}, usageError{fmt.Errorf("PAHOLE_LANG_EXCLUDE: %w", err)}
			}
			langs = dwarf2btf.LanguageFilter{IDs: ids, Exclude: true}
		}
	}
	return dwarf2btf.Options{
		Features:   o.features.Features,
		Jobs:       max(o.jobs, 1),
		Languages:  langs,
		KabiPrefix: o.kabi,
	}, nil
}

// bigInfo is the .debug_info size from which an input counts as kernel-sized
// for memory tuning (see gcForInput): a vmlinux has 100 to 300 MB, a module
// rarely more than a few.
const bigInfo = 64 << 20

// smallHeapLimit is the Go memory limit under which an input smaller than
// bigInfo is encoded without garbage collection (gcForInput).
const smallHeapLimit = 1 << 30

// gcForInput sets the garbage collector for an input of infoSize bytes of
// .debug_info and returns the function that restores the previous setting,
// and the one to call as the units' conversion starts
// (dwarf2btf.Options.OnConvert).
//
// A kernel's conversion has a live heap of a few hundred MB, mostly the
// output's big pointer-free arrays, cheap to mark, while the per-unit
// garbage would otherwise pile up to the size of the live heap before a
// collection (GOGC=100) and count in the peak resident memory: there,
// collect twenty times as often. On the vmlinux this took the peak from
// about 274 MB (GOGC=25) to 250 MB (GOGC=10) for no measurable time; since
// deduplication's per-type arrays live through the conversion too
// (dedup.Stream), GOGC=5 keeps it at 251 MB where GOGC=10 gave 263 MB
// (medians of 6 rotated -j2 runs, no slower: 1.331 against 1.380 s).
// Not before the units' conversion, though: indexing the units and
// reading the ELF symbols allocate only what lives on (abbreviation
// tables, symbol tables), and at GOGC=10 their growing heap was marked in
// two or three collections (mark phases of 20 and 40 ms in a trace) on the
// path to the first unit. Held off until the conversion starts (medians of
// 9 alternated -j2 vmlinux runs): 1670.0 -> 1644.1 ms, the conversion
// 984.5 -> 968.5 ms, the same peak memory.
//
// A module's heap is small and mostly live to the end (the converters'
// buffers, the joined types, the base's tables), and at GOGC=10 it would be
// collected every few hundred KB: 20 collections and a quarter of the CPU
// time on a 100 KB module. Even Go's default collects a few times in a
// module's 20 to 200 ms, each collection with its pauses and its own
// memory. So smaller inputs are encoded without collection, up to a soft
// limit of smallHeapLimit (then the collector runs as the limit requires).
// Medians of 31, 21 and 15 alternated runs: nls_utf8.ko 19.4 -> 16.3 ms,
// nf_conntrack.ko 75.8 -> 68.8 ms, xfs.ko 189.1 -> 183.0 ms, for 0 to 2.3 MB
// more peak memory (20, 51 and 108 MB). Not so a merged conversion (LTO,
// dwz): it holds every unit's records at once and outgrows its buffers many
// times over, and without collection a clang ThinLTO kernel of 32 MB of
// .debug_info reached the 1 GiB limit (1005 MB peak, 1.83 s; pahole: 712
// MB, 3.79 s). It runs with Go's default instead (605 MB, 2.39 s; medians
// of 5 alternated runs). An explicit GOGC in the environment is left alone
// by the caller, and an explicit GOMEMLIMIT here.
func gcForInput(infoSize uint64) (restore func(), converting func(merged bool)) {
	if infoSize >= bigInfo {
		old := debug.SetGCPercent(-1)
		var once sync.Once
		return func() { debug.SetGCPercent(old) }, func(bool) { once.Do(func() { debug.SetGCPercent(5) }) }
	}
	oldLimit := int64(-1) // -1: the limit is left as it is
	if os.Getenv("GOMEMLIMIT") == "" {
		oldLimit = debug.SetMemoryLimit(smallHeapLimit)
	}
	old := debug.SetGCPercent(-1)
	restore = func() {
		debug.SetGCPercent(old)
		if oldLimit >= 0 {
			debug.SetMemoryLimit(oldLimit)
		}
	}
	converting = func(merged bool) {
		if merged {
			debug.SetGCPercent(100)
		}
	}
	return restore, converting
}

func runEncode(cmd *cobra.Command, o *encodeOptions, args []string) error {
	if o.showSupported {
		_, err := fmt.Fprintln(cmd.OutOrStdout(), dwarf2btf.SupportedFeatures())
		return err
	}
	if !o.encode {
		if len(args) == 0 {
			return cmd.Help()
		}
		return usageError{fmt.Errorf("nothing to do for %s: gobtf only encodes BTF (pass -J)", args[0])}
	}
	if len(args) != 1 {
		return usageError{errors.New("-J needs exactly one input FILE")}
	}
	opts, err := o.options()
	if err != nil {
		return err
	}
	if o.verbose {
		opts.Verbose = cmd.OutOrStdout()
	}
	// -j N also caps the CPUs gobtf runs on at N, as pahole's -j N runs
	// N threads: besides the N converters there are goroutines that read
	// the ELF side, join the units, fault memory in and share the
	// deduplication's work, and with -j1 in a kernel build, where make
	// runs many encodings at once, they would each take a second CPU.
	// Without -j, one converter runs and the others may use any CPU.
	if o.jobsGiven && o.jobs < runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(o.jobs))
	}
	path := args[0]
	if opts.Features.DistilledBase && o.base == "" && o.detached == "" {
		// pahole fails the same way, after encoding: libbpf can only
		// distill the base of split BTF.
		return fmt.Errorf("%s: the distilled_base feature needs --btf_base", path)
	}
	// Open prepares the memory (see dwarf2btf.Open), before the base is
	// read, so that the base's allocations land in prepared memory too.
	in, openErr := dwarf2btf.Open(path)
	if os.Getenv("GOGC") == "" && openErr == nil {
		restore, converting := gcForInput(in.InfoSize())
		defer restore()
		opts.OnConvert = converting
	}
	// The base BTF is read on the side while the input is converted, which
	// does not need it; its errors are still reported first.
	type loaded struct {
		spec    *btf.Spec
		index   *dedup.BaseIndex // the base prepared for deduplication
		release func()           // for spec's memory, once done with spec
		err     error
	}
	baseDone := make(chan loaded, 1)
	go func() {
		if o.base == "" {
			baseDone <- loaded{}
			return
		}
		// The base is used where it lies, in a private mapping of the
		// file (or a copy of its own when the file cannot be mapped):
		// a kernel's BTF is 4 to 6 MB that each module's encoding would
		// otherwise copy twice (elfio.MapBTF).
		data, release, err := elfio.MapBTF(o.base)
		if err != nil {
			baseDone <- loaded{err: fmt.Errorf("--btf_base: %w", err)}
			return
		}
		fail := func(err error) {
			release()
			baseDone <- loaded{err: fmt.Errorf("--btf_base %s: %w", o.base, err)}
		}
		b, err := btf.ParseInPlace(data, nil)
		if err != nil {
			fail(err)
			return
		}
		// Deduplication looks up split strings in the base's string
		// table, which needs an index; it is built while the base's
		// types are entered as candidates, which does not need it.
		indexed := make(chan struct{})
		go func() {
			b.Strings().Index()
			close(indexed)
		}()
		bi, err := dedup.PrepareBase(b, dedup.Options{Workers: opts.Jobs})
		<-indexed
		if err != nil {
			fail(err)
			return
		}
		baseDone <- loaded{spec: b, index: bi, release: release}
	}()
	var est dwarf2btf.Stats
	var spec *btf.Spec
	// Without a base, and with more than one worker, deduplication starts
	// as the units are joined, on the types joined so far (dedup.Stream),
	// beside the conversion.
	dopts := dedup.Options{InPlace: true, Discard: true, Workers: opts.Jobs}
	var stream *dedup.Stream
	if openErr == nil && o.base == "" && !o.skipDedup && opts.Jobs > 1 && runtime.GOMAXPROCS(0) > 1 {
		stream = dedup.NewStream(dopts, int(in.InfoSize()/32))
		opts.OnJoined, opts.BeforeUnit = stream.Add, stream.Hold
	}
	err = openErr
	if openErr == nil {
		spec, err = in.Encode(&opts, &est)
		in.Close()
	}
	if stream != nil && (err != nil || spec.NumTypes() == 0) {
		stream.Stop()
		stream = nil
	}
	waited := time.Now()
	b := <-baseDone
	var baseWait time.Duration // in --stats only with a base
	if o.base != "" {
		baseWait = time.Since(waited)
	}
	if b.err != nil {
		return b.err
	}
	if b.release != nil {
		defer b.release()
	}
	base := b.spec
	if errors.Is(err, dwarf2btf.ErrNoDWARF) {
		// pahole -J treats a file without debug information as nothing to
		// encode, not as an error: it exits 0 and writes nothing (neither a
		// detached file nor a .BTF section). Kernel builds rely on that
		// status, so gobtf does the same, with a note on stderr.
		_, werr := fmt.Fprintf(cmd.ErrOrStderr(), "gobtf: %v: nothing encoded\n", err)
		return werr
	}
	if err != nil {
		return err
	}
	if base == nil && spec.NumTypes() == 0 {
		// pahole's encoder stops at "Empty file, nothing to do" when it
		// holds no type besides void (an assembly-only object, say):
		// status 0, nothing written. With a base the count includes the
		// base's types, so split output is always written.
		return nil
	}
	// The conversion's working memory (DWARF abbreviation tables, symbol
	// tables, per-unit buffers) is garbage now: collect it before
	// deduplication allocates its own, which then reuses it, so that the
	// two never add up in the peak resident memory. It is not handed back
	// to the system (debug.FreeOSMemory): deduplication would only fault
	// it in again, page by page (same peak, 0.05 to 0.1 s slower on the
	// vmlinux).
	runtime.GC()
	var dst *dedup.Stats
	order := spec.ByteOrder()
	if base != nil {
		spec = btf.RebaseInPlace(spec, base)
	}
	if !o.skipDedup {
		// The first pass takes the prepared base's storage instead of a
		// copy (about 5 MB of candidate table for a kernel's BTF, which
		// a small module would spend 10 ms copying); the rare second
		// pass prepares the base again.
		if stream != nil {
			spec, dst, err = stream.Finish(spec)
		} else {
			dopts.Base, dopts.BaseLastUse = b.index, true
			spec, dst, err = dedup.Dedup(spec, dopts)
		}
		if err != nil {
			return fmt.Errorf("%s: deduplicating: %w", path, err)
		}
		if base != nil && dst.BaseFwdKeptApart > 0 {
			// One pass of libbpf's algorithm can leave a module type
			// that is an exact copy of a base type (struct module in
			// mlx5_ib, rdma_counter in ib_core, gfn_to_pfn_cache in
			// kvm-amd; pahole 1.24 leaves the same ones). The first
			// module type whose comparison with the base reaches a
			// base FWD that the module defines is kept apart (a base
			// FWD cannot turn into a module type), while the FWD's
			// link to the definition is recorded, so the types
			// compared after it merge with the base's; the first one
			// ends up referring to base types only. A second pass
			// merges it (TestSplitDedupTwice); on the 1,121 modules of
			// Debian's 6.1 kernel it leaves no duplicate
			// (make test-modules). It runs only when the first pass
			// kept a type apart that way (BaseFwdKeptApart), the one
			// situation it is for.
			var d2 *dedup.Stats
			spec, d2, err = dedup.Dedup(spec, dedup.Options{InPlace: true, Discard: true, Workers: opts.Jobs, Base: b.index})
			if err != nil {
				return fmt.Errorf("%s: deduplicating again: %w", path, err)
			}
			for _, p := range d2.Passes {
				dst.Passes = append(dst.Passes, dedup.PassStat{Name: "again: " + p.Name, Duration: p.Duration})
			}
			dst.TypesOut, dst.StringsOut = d2.TypesOut, d2.StringsOut
		}
	}
	if opts.Features.Layout && spec.Base() == nil {
		// As pahole: a base BTF only (split BTF has its base's table).
		spec.SetLayout(btf.KindLayouts())
	}
	t := time.Now()
	out := spec.Marshal(order)
	encoded := time.Since(t)
	t = time.Now()
	if o.detached != "" {
		err = writeFileAtomic(o.detached, out)
	} else {
		// Like pahole (through llvm-objcopy --add-section), add .BTF to
		// the input file, or replace it; LLVM_OBJCOPY is not needed. Like
		// pahole, replace an allocated .BTF (a finished vmlinux's) even
		// when the new one has another size.
		secs := []elfio.NewSection{{Name: ".BTF", Data: out}}
		if opts.Features.DistilledBase {
			if secs, err = distilledSections(spec, order); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		for i := range secs {
			secs[i].MayMove = true
		}
		err = elfio.WriteSections(path, secs)
	}
	if err != nil {
		return err
	}
	if o.stats {
		return printEncodeStats(cmd.ErrOrStderr(), opts.Jobs, &est, baseWait, dst, encoded, time.Since(t), spec)
	}
	return nil
}

// distilledSections returns the sections pahole's distilled_base feature
// writes into a module (ELF mode only; pahole ignores the feature for
// detached output): .BTF, the split BTF relative to the distilled base, and
// .BTF.base, the distilled base itself (btf.DistillBase), in that order.
func distilledSections(spec *btf.Spec, order binary.ByteOrder) ([]elfio.NewSection, error) {
	if spec.Base() == nil {
		return nil, errors.New("the distilled_base feature needs --btf_base")
	}
	base, split, err := btf.DistillBase(spec)
	if err != nil {
		return nil, fmt.Errorf("distilling the base BTF: %w", err)
	}
	return []elfio.NewSection{
		{Name: ".BTF", Data: split.Marshal(order)},
		{Name: ".BTF.base", Data: base.Marshal(order)},
	}, nil
}

// stringAction is a flag whose value is handed to fn when it is parsed.
type stringAction struct {
	fn  func(string)
	val string
}

func (a *stringAction) Set(v string) error { a.val = v; a.fn(v); return nil }
func (a *stringAction) String() string     { return a.val }
func (a *stringAction) Type() string       { return "string" }

// boolValue is a boolean flag that runs fn when it is set to true.
type boolValue struct {
	fn  func()
	set bool
}

func (b *boolValue) Set(v string) error {
	on, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	b.set = on
	if on {
		b.fn()
	}
	return nil
}
func (b *boolValue) String() string   { return strconv.FormatBool(b.set) }
func (b *boolValue) Type() string     { return "bool" }
func (b *boolValue) IsBoolFlag() bool { return true }

func boolAction(f *pflag.FlagSet, name, usage string, fn func()) {
	f.VarPF(&boolValue{fn: fn}, name, "", usage).NoOptDefVal = "true"
}

// normalizeArgs rewrites pahole's "-jN" (a short option with an attached
// optional value, which pflag cannot parse) into "--jobs=N". Arguments after
// "--" are left alone.
func normalizeArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if n, ok := strings.CutPrefix(a, "-j"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			out[i] = "--jobs=" + n
		}
	}
	return out
}
