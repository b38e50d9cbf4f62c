package classlayout

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// Formatter selects what is printed for each selected struct or union.
type Formatter uint8

// The formatters, as pahole's options select them.
const (
	FormatClass     Formatter = iota // the layout (default)
	FormatSizes                      // -s: name, size, holes
	FormatNrMembers                  // -n: name, number of members
	FormatNameLen                    // -N: name, length of the name
	FormatName                       // -z without -V: the name
)

// Options are pahole's printing options.
type Options struct {
	CachelineSize uint32      // -c; 0 means the machine's, as pahole reads it
	ClassNames    []string    // -C: print these types, in this order
	ClassArgs     []ClassArgs // the arguments of each of ClassNames (or nil)
	CheckFilter   FilterCheck // whether a -C filter= can be evaluated; nil: none can
	Formatter     Formatter
	Separator     byte // -t, for the one-line formatters

	ExpandTypes              bool // -E
	Hex                      bool // --hex
	RelOffset                bool // -r
	Quiet                    bool // -q
	SuppressAlignedAttribute bool // --suppress_aligned_attribute
	SuppressForcePaddings    bool // --suppress_force_paddings
	SuppressPacked           bool // --suppress_packed
	FlatArrays               bool // --flat_arrays
	ExpandPointers           bool // -p
	SuppressComments         bool // set by -q
	SkipModifiers            bool
	NoParmNames              bool

	IncludeAnonymous       bool   // -a
	IncludeNestedAnonymous bool   // -A
	JustStructs            bool   // --structs
	JustUnions             bool   // --unions
	JustPacked             bool   // --packed
	NrHoles                int    // -H
	NrBitHoles             int    // -B
	HoleSizeGE             int    // -z
	Padding                int    // --padding
	PaddingGE              int    // --padding_ge
	ExcludePrefix          string // -x
	IncludePrefix          string // -y
	Sort                   bool   // --sort
	WithFlexibleArray      bool   // --with_flexible_array
	WithEmbeddedFlexible   bool   // --with_embedded_flexible_array

	// Contains (-i) prints, instead of ClassNames' layouts, the structs and
	// unions that have a member of each named type; Recursive (-d) also
	// the member types of those that have one.
	Contains  bool
	Recursive bool
	// ShowDeclInfo (-I) prints where each type was declared: from BTF,
	// which does not record it, the unit (UnitName) and "(null):0".
	ShowDeclInfo bool
	UnitName     string

	// FixupSillyBitfields (--fixup_silly_bitfields) reads DWARF bitfields
	// as wide as their type as plain members.
	FixupSillyBitfields bool

	// Reorganize (-R) prints, for each -C name that is a struct, the
	// struct with its members moved into its holes (pahole's
	// class__reorganize) and what that saves; ShowReorgSteps (-S) also
	// prints the struct after each move, Verbose (-V) each move.
	Reorganize, ShowReorgSteps, Verbose bool
	// Packable (-P) selects the structs reorganizing would shrink and,
	// without Verbose, prints their name, size, new size and savings.
	Packable bool
	// WordSize (-w), when not 0 and without ClassNames, resizes the
	// structs and unions as if pointers and longs were that many bytes
	// (wordsize.go).
	WordSize uint8
	// SkipLanguage, when set, says whether a unit written in a language
	// (its DW_AT_language; DW_LANG_C for BTF) is left out, as pahole's
	// --lang and --lang_exclude leave units out.
	SkipLanguage func(lang dwarf.Lang) bool
}

// classArgs returns the arguments of ClassNames[i].
func (o *Options) classArgs(i int) ClassArgs {
	if i < len(o.ClassArgs) {
		return o.ClassArgs[i]
	}
	return ClassArgs{}
}

// cacheline returns CachelineSize, or 64 when it is 0, as NewPrinter
// takes it.
func (o *Options) cacheline() uint32 {
	if o.CachelineSize == 0 {
		return 64
	}
	return o.CachelineSize
}

// sortsLayouts says whether --sort applies: to layouts (-P's lines come
// first, as they are found, then the layouts of the same structs, sorted).
func (o *Options) sortsLayouts() bool { return o.Sort && o.Formatter == FormatClass }

// packableLines prints -P's line for each of ids, when it prints lines.
func (p *Printer) packableLines(ids []uint32) {
	if !p.opt.Packable || p.opt.Verbose {
		return
	}
	for _, id := range ids {
		p.packableInfo(&p.m.Types[id], id)
	}
}

// Printer prints a Model as pahole does.
type Printer struct {
	m       *Model
	opt     Options
	buf     []byte
	cls     []classState
	hole    []int32
	bitHole []uint8

	// expanding marks the structs and unions being printed inline, to cut
	// reference cycles; members counts the member lines of the top-level
	// type being printed, which stops at memberBudget (types that nest
	// others many times over, as corrupt input may, would never end).
	expanding   []bool
	members     int
	typeStart   int // where in buf the top-level type being printed starts
	overflow    bool
	overflowErr error

	seen           *seenDefs // definitions printed, shared by the units of a file
	recursion      []int32   // -p: how deep each type is being expanded
	needResort     bool
	containersSeen map[string][]uint32 // -i's types printed // --sort met types equal but for their members' types

	// scratch is the type ID of the slot reorganizing works in, and
	// scratchFirst the index of its members (reorganize.go).
	scratch, scratchFirst uint32
	packedSize            map[uint32]uint32 // -P: the reorganized size of each packable struct
	packCache             *packCache        // -P: reorganized sizes by layout, shared by a file's units
	notes                 []string          // said on the error stream after the output
	spill                 func() error      // writes out buf mid-type (-S's many steps), when set
}

// NewPrinter returns a printer of m with the options opt.
func NewPrinter(m *Model, opt Options) *Printer {
	opt.CachelineSize = opt.cacheline()
	if opt.Separator == 0 {
		opt.Separator = '\t'
	}
	if opt.Quiet {
		opt.SuppressComments = true
	}
	var scratch, scratchFirst uint32
	if opt.Reorganize || opt.Packable {
		scratch, scratchFirst = reserveScratch(m)
	}
	p := &Printer{
		m: m, opt: opt, scratch: scratch, scratchFirst: scratchFirst,
		cls:       make([]classState, len(m.Types)),
		expanding: make([]bool, len(m.Types)),
		recursion: make([]int32, len(m.Types)),
		hole:      make([]int32, len(m.Members)),
		bitHole:   make([]uint8, len(m.Members)),
	}
	if opt.WordSize != 0 && len(opt.ClassNames) == 0 {
		p.fixupWordSize(uint32(opt.WordSize))
	}
	return p
}

// drainTo writes out what the printer has printed and empties its buffer.
func (p *Printer) drainTo(w io.Writer) error {
	if len(p.buf) == 0 {
		return nil
	}
	_, err := w.Write(p.buf)
	p.buf = p.buf[:0]
	return err
}

// writeNotes says on errw what the output leaves unsaid (see notes).
func (p *Printer) writeNotes(errw io.Writer) {
	for _, n := range p.notes {
		fmt.Fprintf(errw, "gobtf: %s\n", n)
	}
	p.notes = p.notes[:0]
}

// topConf is the conf pahole's tag__fprintf starts a type with.
func (p *Printer) topConf(t *Type) conf {
	c := conf{prefix: null, suffix: null, typeSpacing: 26, nameSpacing: 23, emitStats: !p.opt.Quiet,
		relOffset: p.opt.RelOffset, suppressOffsetComment: p.opt.Quiet}
	if p.opt.ExpandTypes {
		c.nameSpacing = 55
	} else if t.Kind == KindUnion {
		c.nameSpacing = 21
	}
	return c
}

// tagFprintf is tag__fprintf for the types pahole's class view prints.
func (p *Printer) tagFprintf(t *Type, c *conf) {
	if p.opt.ShowDeclInfo {
		p.declInfo(t, c)
	}
	switch t.Kind {
	case KindArray:
		p.arrayFprintf(t, "array", c, 0)
	case KindEnum:
		p.enumFprintf(t, c)
	case KindTypedef:
		p.typedefFprintf(t, c, 0)
	case KindStruct:
		p.classFprintf(t, c, 0)
	case KindUnion:
		p.unionFprintf(t, c, 0)
	case KindFuncProto:
		p.ftype(t, null, false, false, 0, true, 0)
	default:
		fmt.Fprintf((*bufAppender)(p), "/* tag__fprintf: %s tag not supported! */", kindTagName(t.Kind))
	}
	if !c.noSemicolon {
		p.byte1(';')
	}
}

// declInfo prints -I's "Used at" and declaration comments.
func (p *Printer) declInfo(t *Type, c *conf) {
	unit := p.opt.UnitName
	if p.m.UnitName != "" || p.m.Decl != nil {
		unit = p.m.UnitName
	}
	var d DeclInfo
	if p.m.Decl != nil {
		d = p.m.Decl[p.m.idOf(t)]
	}
	if d.File == "" {
		d.File = "(null)"
	}
	p.tabs(c.indent)
	p.str("/* Used at: " + unit + " */\n")
	p.tabs(c.indent)
	p.str("/* <")
	p.buf = strconv.AppendUint(p.buf, d.Offset, 16)
	p.str("> " + d.File + ":")
	p.uint(uint64(d.Line))
	p.str(" */\n")
}

type bufAppender Printer

func (b *bufAppender) Write(s []byte) (int, error) { b.buf = append(b.buf, s...); return len(s), nil }

func kindTagName(k Kind) string {
	switch k {
	case KindPointer:
		return "pointer_type"
	case KindBase:
		return "base_type"
	case KindConst:
		return "const_type"
	case KindVolatile:
		return "volatile_type"
	}
	return "INVALID"
}

// firstTypedefOf is cu__find_first_typedef_of_type.
func (p *Printer) firstTypedefOf(id uint32) *Type {
	for i := 1; i < len(p.m.Types); i++ {
		if t := &p.m.Types[i]; t.Kind == KindTypedef && t.Ref == id {
			return t
		}
	}
	return nil
}

// classFormatter is pahole's class_formatter: the layout of a struct or
// union, as "typedef struct {...} name" for an anonymous one with a typedef.
func (p *Printer) classFormatter(t *Type, id uint32) {
	c := p.topConf(t)
	if t.Name == "" {
		if td := p.firstTypedefOf(id); td != nil {
			c.prefix, c.suffix = "typedef", td.Name
		} else if !p.opt.IncludeNestedAnonymous {
			return
		}
	}
	p.startType()
	if p.opt.ExpandTypes {
		id := p.m.idOf(t)
		p.recursion[id]++
		defer func() { p.recursion[id]-- }()
	}
	p.tagFprintf(t, &c)
	p.byte1('\n')
}

// memberBudget bounds the member lines of one printed type, outputBudget
// the bytes printed at once.
const (
	memberBudget = 1 << 20
	outputBudget = 1 << 26
)

// startType resets the budgets for a top-level type.
func (p *Printer) startType() { p.members, p.typeStart = 0, len(p.buf) }

// errTooBig reports a type whose printing exceeded memberBudget.
type errTooBig struct{ name string }

func (e errTooBig) Error() string {
	return fmt.Sprintf("type %q expands to more than %d members or %d bytes (corrupt input?)", e.name, memberBudget, outputBudget)
}

// format prints one selected type with the chosen formatter.
func (p *Printer) format(t *Type, id uint32) {
	sep := string(p.opt.Separator)
	if _, ok := p.packedSize[id]; ok && !p.opt.Verbose {
		p.packableInfo(t, id)
		return
	}
	switch p.opt.Formatter {
	case FormatClass:
		p.classFormatter(t, id)
	case FormatSizes:
		holes := 0
		if t.Kind == KindStruct {
			holes = int(p.state(t).nrHoles)
		}
		p.str(orEmptyName(t.Name) + sep)
		p.int(int64(int32(t.Size)))
		p.str(sep)
		p.int(int64(holes))
		p.byte1('\n')
	case FormatNrMembers:
		p.str(orEmptyName(t.Name) + sep)
		p.uint(uint64(uint16(t.N)))
		p.byte1('\n')
	case FormatNameLen:
		p.str(orEmptyName(t.Name) + sep)
		p.uint(uint64(len(t.Name)))
		p.byte1('\n')
	case FormatName:
		p.str(orEmptyName(t.Name))
		p.byte1('\n')
	}
}

// orEmptyName is how glibc's printf prints a NULL name.
func orEmptyName(s string) string {
	if s == "" {
		return "(null)"
	}
	return s
}

// hasPrefix is strncmp(prefix, name, len(prefix)) == 0.
func hasPrefix(name, prefix string) bool { return strings.HasPrefix(name, prefix) }
