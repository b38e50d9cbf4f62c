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

	"github.com/gobtf/gobtf/internal/classlayout"
	"github.com/gobtf/gobtf/internal/prettify"
)

// printOptions holds the flags of pahole's printing mode (gobtf without -J):
// they map onto classlayout.Options.
type printOptions struct {
	opt        classlayout.Options
	classNames string
	format     string
	cacheline  int
	separator  string
	contains   bool // the class list came from -i
	fixupSilly bool
	wordSize   string
	unsupp     []string // pahole options given that gobtf does not implement
	pretty     prettyFlags

	numericVersion bool  // --numeric_version
	runningKernel  bool  // --running_kernel_vmlinux
	hashBits       uint8 // --hashbits, a uint8_t in pahole
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
	f.VarP(atoiFlag{&o.NrHoles}, "holes", "H", "show only structs with at least `N` holes")
	f.VarP(atoiFlag{&o.NrBitHoles}, "bit_holes", "B", "show only structs with at least `N` bit holes")
	f.VarP(&holeSizeFlag{p: p, verbose: verbose}, "hole_size_ge", "z", "show only structs with a hole of at least `N` bytes (names only, unless -V comes before)")
	f.Var(atoiFlag{&o.PaddingGE}, "padding_ge", "show only structs with at least `N` bytes of padding at the end")
	// The one-line formats: as in pahole, the last of -s, -n, -N and -z
	// (without -V before it) given wins.
	format := func(name, short string, fm classlayout.Formatter, usage string) {
		f.VarPF(&boolValue{fn: func() { o.Formatter = fm }}, name, short, usage).NoOptDefVal = "true"
	}
	format("sizes", "s", classlayout.FormatSizes, "show the size and number of holes of each struct")
	format("nr_members", "n", classlayout.FormatNrMembers, "show the number of members of each struct")
	format("class_name_len", "N", classlayout.FormatNameLen, "show the length of each struct's name")
	f.StringVarP(&o.ExcludePrefix, "exclude", "x", "", "exclude structs whose names start with `PREFIX`")
	f.StringVarP(&o.IncludePrefix, "prefix_filter", "y", "", "show only structs whose names start with `PREFIX`")
	f.BoolVar(&o.JustStructs, "structs", false, "show only structs")
	f.BoolVar(&o.JustUnions, "unions", false, "show only unions")
	f.BoolVar(&o.JustPacked, "packed", false, "show only packed structs")
	f.VarP(atoiFlag{&p.cacheline}, "cacheline_size", "c", "cacheline size in `BYTES` (default: the machine's)")
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
	f.BoolVar(&p.numericVersion, "numeric_version", false, "print the pahole version gobtf emulates as a number ("+numericVersion()+")")
	f.BoolVar(&p.runningKernel, "running_kernel_vmlinux", false, "print the path of the vmlinux whose build ID is the running kernel's (/sys/kernel/notes), found where pahole looks")
	f.Var(&hashBitsFlag{&p.hashBits}, "hashbits", "the `BITS` of pahole's DWARF loader's hash table keys: checked as pahole checks them (at most 31; DWARF is read only up to 21), no other effect")
	f.Bool("skip_emitting_atomic_typedefs", false, "with --compile, which gobtf does not implement: no effect")
	p.pretty.register(f)
	p.registerUnsupported(f)
	return p
}

// registerUnsupported accepts pahole's other printing options so that
// using one is a clear usage error rather than "unknown flag".
func (p *printOptions) registerUnsupported(f *pflag.FlagSet) {
	flag := func(name, short string, takesArg bool) {
		v := &unsupportedFlag{name: name, seen: &p.unsupp, flag: !takesArg}
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
	flag("ptr_table_stats", "", false)
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
	h.p.opt.HoleSizeGE = atoi(v)
	if !*h.verbose {
		h.p.opt.Formatter = classlayout.FormatName
	}
	return nil
}
func (h *holeSizeFlag) String() string { return strconv.Itoa(h.p.opt.HoleSizeGE) }
func (h *holeSizeFlag) Type() string   { return "int" }

// atoiFlag is an int option pahole reads with atoi: "abc" is 0, "3x" 3.
type atoiFlag struct{ p *int }

func (a atoiFlag) Set(v string) error { *a.p = atoi(v); return nil }
func (a atoiFlag) String() string     { return strconv.Itoa(*a.p) }
func (a atoiFlag) Type() string       { return "int" }

// hashBitsFlag is --hashbits, read with atoi into pahole's uint8_t.
type hashBitsFlag struct{ p *uint8 }

func (h *hashBitsFlag) Set(v string) error { *h.p = uint8(atoi(v)); return nil }
func (h *hashBitsFlag) String() string     { return strconv.Itoa(int(*h.p)) }
func (h *hashBitsFlag) Type() string       { return "int" }

type unsupportedFlag struct {
	name string
	seen *[]string
	flag bool // takes no value
}

func (u *unsupportedFlag) Set(string) error { *u.seen = append(*u.seen, u.name); return nil }
func (u *unsupportedFlag) String() string   { return "" }
func (u *unsupportedFlag) Type() string {
	if u.flag {
		return "bool"
	}
	return "string"
}

// options resolves the flags into the printer's options, but for the
// class names (setClassNames).
func (p *printOptions) options() (classlayout.Options, error) {
	if len(p.unsupp) > 0 {
		return classlayout.Options{}, usageError{fmt.Errorf("option --%s is not implemented by gobtf's printing mode", p.unsupp[0])}
	}
	o := p.opt
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
	o.CheckFilter = prettify.FilterCheck
	return o, nil
}

// setClassNames parses a -C (or -i) list into o, as pahole's
// populate_class_names does; with verbose, what it reads of the names'
// arguments is said on stdout.
func setClassNames(o *classlayout.Options, list string, verbose bool, stdout io.Writer) error {
	var say io.Writer
	if verbose {
		say = stdout
	}
	names, args, err := classlayout.ParseClassList(list, os.ReadFile, say)
	var le *classlayout.ClassListError
	if errors.As(err, &le) {
		return &exitError{le.Msg, 1}
	}
	if err != nil {
		return err
	}
	o.ClassNames, o.ClassArgs = names, args
	return nil
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

// numericVersion is paholeVersion as --numeric_version prints it: "v1.31"
// is 131.
func numericVersion() string {
	return strings.ReplaceAll(strings.TrimPrefix(paholeVersion, "v"), ".", "")
}
