package main

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/encoder"
	"github.com/gobtf/gobtf/internal/pahole"
	"github.com/gobtf/gobtf/internal/tuning"
)

// encodeOptions holds pahole's BTF-encoding flags as gobtf accepts them.
//
// Several flags act on shared state (the feature set, the language filter),
// and pahole applies them in command-line order: the first --btf_features
// resets every feature, so an older flag before it is overridden and one
// after it is not. pflag calls each flag's Set in command-line order, so the
// flags below are pflag.Values that apply their effect right away.
type encodeOptions struct {
	encode      bool   // -J, --btf_encode
	detached    string // --btf_encode_detached=FILE
	base        string // --btf_base=FILE
	jobs        int    // -j, --jobs; 0 means one per CPU
	jobsGiven   bool   // -j was on the command line
	kabi        string // --kabi_prefix
	skipDedup   bool   // --skip_dedup (gobtf only)
	mergeCopies bool   // --merge_base_copies (gobtf only)
	stats       bool   // --stats (gobtf only)
	verbose     bool   // -V, --verbose

	features      *pahole.FeatureSet
	langList      string                   // the last --lang or --lang_exclude
	langs         dwarf2btf.LanguageFilter // its Exclude: --lang_exclude was given
	langsGiven    bool
	featureErr    error
	showSupported bool
}

func (o *encodeOptions) register(cmd *cobra.Command) {
	o.features = pahole.NewFeatureSet()
	o.jobs = 1
	f := cmd.Flags()
	f.SortFlags = false
	f.BoolVarP(&o.encode, "btf_encode", "J", false, "encode BTF from the file's DWARF")
	f.Var(&stringAction{fn: func(v string) { o.detached, o.encode = v, true }}, "btf_encode_detached",
		"write raw BTF to `FILE` instead of a .BTF section in the input")
	f.StringVar(&o.base, "btf_base", "", "the base BTF in `FILE` (ELF or raw): -J encodes split BTF on it; without -J, the FILEs are read as BTF on it")
	f.Var(&stringAction{fn: func(v string) { o.setFeatureErr(o.features.ApplyList(v, false)) }}, "btf_features",
		"encode exactly the BTF features in the comma-separated `LIST` (\"default\", or \"+\" to add to it)")
	f.Var(&stringAction{fn: func(v string) { o.setFeatureErr(o.features.ApplyList(v, true)) }}, "btf_features_strict",
		"like --btf_features, but an unknown feature in `LIST` is an error")
	boolAction(f, "supported_btf_features", "print the supported --btf_features names and exit", func() { o.showSupported = true })
	jobs := f.VarPF(&stringAction{fn: o.setJobs}, "jobs", "j", "convert compilation units with `N` workers on at most N CPUs, written -jN or --jobs=N (bare -j: one per CPU)")
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
	f.StringVar(&o.kabi, "kabi_prefix", "", "shorten every name that starts with `PREFIX` to PREFIX, so that kABI placeholders with unique names deduplicate")
	f.BoolVar(&o.skipDedup, "skip_dedup", false, "write the one-to-one conversion, not deduplicated (gobtf only)")
	f.BoolVar(&o.mergeCopies, "merge_base_copies", false, "with --btf_base, merge module types that one pass of libbpf's deduplication leaves as copies of base types, as a second pass does (gobtf only; pahole keeps them)")
	f.BoolVarP(&o.verbose, "verbose", "V", false, "with -J, print pahole -V's lines: functions left out of BTF and why, variables encoded; without, -R's moves, -P's and -i's details")
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
// one given wins), and once --lang_exclude was seen the list excludes. The
// list is read after the command line (languages).
func (o *encodeOptions) setLangs(v string, exclude bool) {
	o.langList = v
	o.langs.Exclude = o.langs.Exclude || exclude
	o.langsGiven = true
}

// options turns the parsed flags into conversion options; PAHOLE_LANG_EXCLUDE
// applies when neither --lang nor --lang_exclude was given.
func (o *encodeOptions) options() (dwarf2btf.Options, error) {
	if o.featureErr != nil {
		return dwarf2btf.Options{}, usageError{o.featureErr}
	}
	langs, err := o.languages()
	if err != nil {
		return dwarf2btf.Options{}, err
	}
	return dwarf2btf.Options{
		Features:   o.features.Features,
		Jobs:       max(o.jobs, 1),
		Languages:  langs,
		KabiPrefix: o.kabi,
	}, nil
}

// runEncode is "gobtf -J": it checks the command line, maps the flags to
// encoder.Options and runs encoder.Encode on the one input FILE.
func runEncode(cmd *cobra.Command, o *encodeOptions, args []string) error {
	if o.showSupported {
		_, err := fmt.Fprintln(cmd.OutOrStdout(), pahole.SupportedFeatures())
		return err
	}
	if len(args) != 1 {
		return usageError{argsError(cmd, args)}
	}
	opts, err := o.options()
	if err != nil {
		return err
	}
	var verbose *pahole.Verbose
	if o.verbose {
		verbose = pahole.NewVerbose(cmd.OutOrStdout())
		opts.Log = verbose
	}
	tune := tuning.ForEncoding(opts.Jobs, o.jobsGiven)
	defer tune.Restore()
	st, err := encoder.Encode(cmd.Context(), args[0], encoder.Options{
		Convert:         opts,
		Base:            o.base,
		Detached:        o.detached,
		SkipDedup:       o.skipDedup,
		MergeBaseCopies: o.mergeCopies,
		Hooks:           encoder.Hooks{Opened: tune.Opened, Converting: tune.Converting, Converted: tune.Converted},
	})
	if verbose != nil {
		if werr := verbose.Flush(); werr != nil && err == nil {
			err = fmt.Errorf("-V: %w", werr)
		}
	}
	if errors.Is(err, dwarf2btf.ErrNoDWARF) {
		// pahole -J treats a file without debug information as nothing to
		// encode, not as an error: it exits 0 and writes nothing (neither a
		// detached file nor a .BTF section). Kernel builds rely on that
		// status, so gobtf does the same, with a note on stderr.
		_, werr := fmt.Fprintf(cmd.ErrOrStderr(), "gobtf: %v: nothing encoded\n", err)
		return werr
	}
	if err != nil || !o.stats || !st.Written {
		return err
	}
	return printEncodeStats(cmd.ErrOrStderr(), st)
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
