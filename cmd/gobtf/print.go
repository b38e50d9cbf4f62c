package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/classlayout"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/tuning"
)

// printOptions holds the flags of pahole's printing mode (gobtf without -J):
// they map onto classlayout.Options.
type printOptions struct {
	opt        classlayout.Options
	classNames string
	format     string
	cacheline  int
	separator  string
	sizes      bool
	nrMembers  bool
	nameLen    bool
	contains   bool // the class list came from -i
	fixupSilly bool
	wordSize   string
	holeNames  bool     // -z came without -V before it: print names only
	unsupp     []string // pahole options given that gobtf does not implement
}

// registerPrintFlags adds pahole's printing options to the root command.
// pahole's letters are kept; none clashes with the encoding flags (-J, -j).
func registerPrintFlags(cmd *cobra.Command, verbose *bool) *printOptions {
	p := &printOptions{}
	f := cmd.Flags()
	o := &p.opt
	f.VarP(&classListFlag{p: p}, "class_name", "C", "show only these comma-separated `CLASSES` (file://FILE reads one per line; NAME(sizeof=MEMBER,...) arguments are checked as pahole does)")
	f.StringVarP(&p.format, "format_path", "F", "", "read debug info in the first of the formats of `LIST` the file has (dwarf, btf; default dwarf,btf)")
	f.BoolVarP(&o.ExpandTypes, "expand_types", "E", false, "expand member types inline")
	f.BoolVar(&o.Hex, "hex", false, "print offsets and sizes in hexadecimal")
	f.BoolVarP(&o.RelOffset, "rel_offset", "r", false, "print offsets of nested members relative to their struct")
	f.BoolVarP(&o.IncludeAnonymous, "anon_include", "a", false, "include anonymous classes")
	f.BoolVarP(&o.IncludeNestedAnonymous, "nested_anon_include", "A", false, "include nested (inside other structs) anonymous classes")
	f.IntVarP(&o.NrHoles, "holes", "H", 0, "show only structs with at least `N` holes")
	f.IntVarP(&o.NrBitHoles, "bit_holes", "B", 0, "show only structs with at least `N` bit holes")
	f.VarP(&holeSizeFlag{p: p, verbose: verbose}, "hole_size_ge", "z", "show only structs with a hole of at least `N` bytes (names only, unless -V comes before)")
	// pahole master has no --padding in its option table: argp takes it
	// as an abbreviation of --padding_ge.
	f.IntVar(&o.PaddingGE, "padding", 0, "same as --padding_ge (as pahole reads it)")
	f.IntVar(&o.PaddingGE, "padding_ge", 0, "show only structs with at least `N` bytes of padding at the end")
	f.BoolVarP(&p.sizes, "sizes", "s", false, "show the size and number of holes of each struct")
	f.BoolVarP(&p.nrMembers, "nr_members", "n", false, "show the number of members of each struct")
	f.BoolVarP(&p.nameLen, "class_name_len", "N", false, "show the length of each struct's name")
	f.StringVarP(&o.ExcludePrefix, "exclude", "x", "", "exclude structs whose names start with `PREFIX`")
	f.StringVarP(&o.IncludePrefix, "prefix_filter", "y", "", "show only structs whose names start with `PREFIX`")
	f.BoolVar(&o.JustStructs, "structs", false, "show only structs")
	f.BoolVar(&o.JustUnions, "unions", false, "show only unions")
	f.BoolVar(&o.JustPacked, "packed", false, "show only packed structs")
	f.IntVarP(&p.cacheline, "cacheline_size", "c", 0, "cacheline size in `BYTES` (default: the machine's)")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no comments, offsets or statistics")
	f.BoolVar(&o.Sort, "sort", false, "sort the output by type name")
	f.StringVarP(&p.separator, "separator", "t", "\t", "field separator of the one-line formats")
	f.BoolVar(&o.SuppressAlignedAttribute, "suppress_aligned_attribute", false, "do not print __attribute__((__aligned__(N)))")
	f.BoolVar(&o.SuppressForcePaddings, "suppress_force_paddings", false, "do not print the forced padding members")
	f.BoolVar(&o.SuppressPacked, "suppress_packed", false, "do not print __attribute__((__packed__))")
	f.BoolVar(&o.FlatArrays, "flat_arrays", false, "print multi-dimensional arrays flattened")
	f.BoolVarP(&o.ExpandPointers, "expand_pointers", "p", false, "expand the types members point to")
	f.BoolVar(&o.WithFlexibleArray, "with_flexible_array", false, "show only structs ending in a flexible array")
	f.BoolVar(&o.WithEmbeddedFlexible, "with_embedded_flexible_array", false, "show only structs with an embedded flexible array")
	f.VarP(&classListFlag{p: p, contains: true}, "contains", "i", "show the structs that contain a member of type `CLASS`")
	f.BoolVarP(&o.Recursive, "recursive", "d", false, "with -i: recursively show the member types that contain it")
	f.BoolVarP(&o.ShowDeclInfo, "show_decl_info", "I", false, "show where each type was declared (BTF: not recorded)")
	f.BoolVar(&p.fixupSilly, "fixup_silly_bitfields", false, "fix up bitfields as big as their types (DWARF only; no effect on BTF)")
	f.BoolVarP(&o.Packable, "packable", "P", false, "show the structs that moving members into holes would shrink: name, size, new size, savings")
	f.BoolVarP(&o.Reorganize, "reorganize", "R", false, "with -C: move members into holes to shrink each struct, and print the result")
	f.BoolVarP(&o.ShowReorgSteps, "show_reorg_steps", "S", false, "with -R: print the struct after each move")
	f.StringVarP(&p.wordSize, "word_size", "w", "", "without -C: lay structs out as if pointers and longs were `BYTES` bytes")
	p.registerUnsupported(f)
	return p
}

// registerUnsupported accepts pahole's other printing options so that
// using one is a clear usage error rather than "unknown flag".
func (p *printOptions) registerUnsupported(f *pflag.FlagSet) {
	flag := func(name, short string, takesArg bool) {
		v := &unsupportedFlag{name: name, seen: &p.unsupp}
		fl := f.VarPF(v, name, short, "pahole option not implemented by gobtf")
		if !takesArg {
			fl.NoOptDefVal = "true"
		}
		fl.Hidden = true
	}
	flag("show_first_biggest_size_base_type_member", "l", false)
	flag("show_only_data_members", "M", false)
	flag("nr_methods", "m", false)
	flag("nr_definitions", "T", false)
	flag("defined_in", "u", false)
	flag("find_pointers_to", "f", true)
	flag("decl_exclude", "D", true)
	flag("cu_exclude", "X", true)
	flag("compile", "", false)
	flag("count", "", true)
	flag("skip", "", true)
	flag("header", "", true)
	flag("prettify", "", true)
	flag("contains_enumerator", "", true)
	flag("show_private_classes", "", false)
	flag("classes_as_structs", "", false)
	flag("first_obj_only", "", false)
	flag("skip_missing", "", false)
}

// classListFlag is -C or -i.
type classListFlag struct {
	p        *printOptions
	contains bool
	val      string
}

// Set mirrors pahole: both set the list (the last one given wins), -i also
// turns the containers view on for good.
func (c *classListFlag) Set(v string) error {
	c.val, c.p.classNames = v, v
	c.p.contains = c.p.contains || c.contains
	return nil
}
func (c *classListFlag) String() string { return c.val }
func (c *classListFlag) Type() string   { return "string" }

// holeSizeFlag is -z: as in pahole, it selects the names-only format
// unless -V was given before it.
type holeSizeFlag struct {
	p       *printOptions
	verbose *bool
}

func (h *holeSizeFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return err
	}
	h.p.opt.HoleSizeGE = n
	h.p.holeNames = h.p.holeNames || !*h.verbose
	return nil
}
func (h *holeSizeFlag) String() string { return strconv.Itoa(h.p.opt.HoleSizeGE) }
func (h *holeSizeFlag) Type() string   { return "int" }

type unsupportedFlag struct {
	name string
	seen *[]string
}

func (u *unsupportedFlag) Set(string) error { *u.seen = append(*u.seen, u.name); return nil }
func (u *unsupportedFlag) String() string   { return "" }
func (u *unsupportedFlag) Type() string     { return "string" }

// options resolves the flags into the printer's options.
func (p *printOptions) options(verbose bool, stdout io.Writer) (classlayout.Options, error) {
	if len(p.unsupp) > 0 {
		return classlayout.Options{}, usageError{fmt.Errorf("option --%s is not implemented by gobtf's printing mode", p.unsupp[0])}
	}
	o := p.opt
	switch {
	case p.sizes:
		o.Formatter = classlayout.FormatSizes
	case p.nameLen:
		o.Formatter = classlayout.FormatNameLen
	case p.nrMembers:
		o.Formatter = classlayout.FormatNrMembers
	}
	if p.holeNames {
		o.Formatter = classlayout.FormatName
	}
	if o.JustPacked {
		o.JustStructs = true
	}
	if p.separator != "" {
		o.Separator = p.separator[0]
	}
	o.CachelineSize = uint32(p.cacheline)
	if p.cacheline <= 0 {
		o.CachelineSize = machineCacheline()
	}
	o.Contains = p.contains
	o.FixupSillyBitfields = p.fixupSilly
	o.WordSize = uint8(atoi(p.wordSize))
	if p.classNames != "" {
		var say io.Writer
		if verbose {
			say = stdout
		}
		names, args, err := classlayout.ParseClassList(p.classNames, os.ReadFile, say)
		if errors.Is(err, classlayout.ErrNotImplemented) {
			return o, usageError{err}
		}
		if err != nil {
			return o, err
		}
		o.ClassNames, o.ClassArgs = names, args
	}
	return o, nil
}

// atoi is C's: the number its leading digits (after a sign) spell, else 0.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

// machineCacheline is the L1 data cacheline size, as pahole reads it.
func machineCacheline() uint32 {
	b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size")
	if err == nil {
		var n uint32
		if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &n); err == nil && n > 0 {
			return n
		}
	}
	return 64
}

// runPrint is gobtf's pahole mode: print the layout of the types of FILE,
// from the first format of -F (default: DWARF, then BTF, as pahole tries
// them) that FILE has; --btf_base means BTF.
func runPrint(cmd *cobra.Command, p *printOptions, basePath string, verbose bool, path string) error {
	opt, err := p.options(verbose, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	opt.Verbose = verbose
	opt.UnitName = path
	formats, err := formatList(p.format, basePath)
	if err != nil {
		return err
	}
	for _, f := range formats {
		if f == "dwarf" {
			dw, ok, err := classlayout.OpenDWARF(path)
			if err != nil && !errors.Is(err, elfio.ErrNotELF) {
				return err
			}
			if ok {
				defer dw.Close()
				defer tuning.ForLayoutView()()
				return classlayout.Print(dw, opt, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			continue
		}
		return printBTF(cmd, opt, basePath, path)
	}
	return fmt.Errorf("%s has no %s type information", path, strings.Join(formats, ","))
}

func printBTF(cmd *cobra.Command, opt classlayout.Options, basePath, path string) error {
	var base *btf.Spec
	var err error
	if basePath != "" {
		if base, err = loadDumpSpec(basePath, nil); err != nil {
			return err
		}
	}
	spec, err := loadDumpSpec(path, base)
	if err != nil {
		return err
	}
	return classlayout.Print(classlayout.BTFSource(path, spec), opt, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

// formatList is -F's list of formats to try, in order; pahole's default is
// DWARF then BTF, and --btf_base means BTF.
func formatList(format, basePath string) ([]string, error) {
	if basePath != "" {
		return []string{"btf"}, nil
	}
	if format == "" {
		return []string{"dwarf", "btf"}, nil
	}
	var out []string
	for _, f := range strings.Split(format, ",") {
		switch f {
		case "btf", "dwarf":
			out = append(out, f)
		case "ctf":
			return nil, usageError{fmt.Errorf("-F %s: CTF is not implemented by gobtf", format)}
		default:
			return nil, usageError{fmt.Errorf("-F %s: unknown format %q", format, f)}
		}
	}
	return out, nil
}
