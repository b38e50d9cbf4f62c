// Package funcs encodes a file's functions as pahole 1.31 does: FUNC types,
// each with its FUNC_PROTO and DECL_TAGs, for the functions of the DWARF
// that the ELF symbol table has. The work is split in two:
//
//   - per compilation unit, a Collector walks the unit's subprograms (along
//     with the type walk, which hands it every DIE, or on its own),
//     resolves abstract origins, analyses parameter locations
//     (location.go) and returns one Candidate per subprogram that pahole
//     would save: not a declaration, every parameter named, and an STT_FUNC
//     symbol of its name in the ELF function Table (table.go);
//   - once all units are joined, Encode merges the candidates of each name
//     across units, drops the names pahole skips and appends one FUNC per
//     remaining name, in name order (encode.go).
//
// The type walk is reached through Types alone: the unit's BTF and the ID
// of a type DIE in it.
package funcs

import (
	"debug/elf"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// Options are the choices that shape the functions: pahole's features
// consistent_func, decl_tag (function and parameter btf_decl_tag
// annotations, and the kfunc tags), decl_tag_kfuncs, attributes
// (address_space(1) type attributes of arena kfuncs) and true_signature,
// and --kabi_prefix. optimized_func and encode_force change nothing for
// functions in pahole 1.31 (optimized_func's switch is read nowhere).
type Options struct {
	ConsistentFunc bool
	DeclTag        bool
	DeclTagKfuncs  bool
	Attributes     bool
	TrueSignature  bool
	KabiPrefix     string

	// Jobs is how many goroutines Encode merges candidates on (at least
	// 1); the output does not depend on it.
	Jobs int

	// Log, when set, is told of each function Encode leaves out
	// (verbose.go), and makes Collect keep the functions that have no ELF
	// symbol (TakeNotFound).
	Log Log
}

// Types is what collecting a unit's functions needs of the type walk: the
// unit's standalone BTF (IDs 1..n), and the ID in it of the type DIE at a
// .debug_info offset (0 for void, an unspecified type, or an offset that is
// no type of the unit).
type Types interface {
	Spec() *btf.Spec
	TypeID(off uint64) btf.TypeID
}

// Unit is one unit to collect the functions of.
type Unit struct {
	// Units is the unit, or all units of a merged conversion, read in
	// order as one.
	Units []die.Unit
	Data  *die.Data // the file's DWARF
	Types Types

	Clang   bool        // DW_AT_producer of the unit names clang
	Machine elf.Machine // e_machine, for the argument registers
}

// unit is a Unit being collected, with the collector's table and options.
type unit struct {
	units         []die.Unit
	data          *die.Data
	spec          *btf.Spec
	typeID        func(off uint64) btf.TypeID
	producerClang bool
	machine       elf.Machine
	elf           *Table
	opts          *Options
}

// addrSize is the units' address size.
func (u *unit) addrSize() int { return int(u.units[0].AddrSize) }

// Candidate is one subprogram pahole would save for encoding ("function
// state" in pahole). Type IDs are local to its unit's Spec. Names live in
// the unit's string arena strs; params and tags are slices of per-unit
// arrays, so a candidate holds no pointer into the DWARF data.
type Candidate struct {
	strs   string      // the unit's name arena
	name   strRef      // function name (the ELF function's name)
	params []funcParam // parameters as they will be encoded, varargs last
	tags   []funcTag   // btf_decl_tag annotations, in DWARF order
	addr   uint64      // DW_AT_low_pc, 0 if none
	ret    btf.TypeID  // return type (unit-local)
	elf    int32       // index in Table.funcs
	sym    int32       // true_signature: index in Table.syms of the '.'-suffixed symbol at addr, or -1
	flags  funcFlags
}

// strRef is a string in a unit's name arena. shared, when not 0, is also
// the string's offset in the output's string table: it is a name read from
// .debug_str while the conversion's string tables are split tables on it
// (btf.NewSharedStrings), so encoding the
// function takes the offset instead of looking the string up.
type strRef struct{ off, n, shared uint32 }

func (c *Candidate) str(r strRef) string { return c.strs[r.off : r.off+r.n] }

// funcParam is one encoded parameter; a varargs marker has no name and type 0.
type funcParam struct {
	name strRef
	typ  btf.TypeID // unit-local
}

// funcTag is one btf_decl_tag annotation: on the function (component -1) or
// on parameter component.
type funcTag struct {
	value     strRef
	component int32
}

// funcFlags are the reasons a candidate may be left out, as pahole's
// function state records them.
type funcFlags uint16

const (
	flagOptimizedParms   funcFlags = 1 << iota // a parameter was optimized out or has no location
	flagUnexpectedReg                          // a parameter is not in its ABI register
	flagInconsistent                           // prototypes of the same name differ (set when merging)
	flagUncertainLoc                           // a packed struct is passed on the stack
	flagReordered                              // parameters appear in another order than declared
	flagSignatureChanged                       // clang marked the function DW_CC_nocall
	flagOptimizedSymbol                        // the symbol at its address is a .isra/.constprop clone
)

// Register conventions of an architecture for parameter analysis.
type abiRegs struct {
	n       int      // parameters passed in registers
	regs    [8]int16 // DW_OP_regN of parameter i, -1 if unknown
	twoRegs bool     // aggregates of two registers' size are passed in registers
}

// abiFor returns the conventions pahole assumes for machine m; unknown
// machines have no register parameters, which turns most checks off.
func abiFor(m elf.Machine) abiRegs {
	a := abiRegs{twoRegs: m != elf.EM_S390}
	for i := range a.regs {
		a.regs[i] = -1
	}
	set := func(regs ...int16) {
		for i, r := range regs {
			a.regs[i] = int16(dwarf.OpReg0) + r
		}
	}
	switch m {
	case elf.EM_S390:
		a.n = 5
		set(2, 3, 4, 5, 6)
	case elf.EM_SPARC, elf.EM_SPARCV9:
		a.n = 6
	case elf.EM_X86_64:
		a.n = 6
		set(5, 4, 1, 2, 8, 9) // rdi, rsi, rdx, rcx, r8, r9
	case elf.EM_ARM, elf.EM_AARCH64:
		a.n = 8
		set(0, 1, 2, 3, 4, 5, 6, 7)
	case elf.EM_ARC, elf.EM_MIPS, elf.EM_PPC, elf.EM_PPC64, elf.EM_RISCV:
		a.n = 8
	}
	return a
}

// SavedStrings returns the strings pahole enters into its string table as
// it saves the candidates of one unit (btf_encoder__save_func): for each
// candidate in order, its parameters' names, then its decl tags' values.
// pahole keeps them whether or not the function is encoded in the end, so
// they shape its string section.
func SavedStrings(cands []Candidate) []string {
	var strs []string
	for i := range cands {
		c := &cands[i]
		for _, p := range c.params {
			if p.name.n > 0 {
				strs = append(strs, c.str(p.name))
			}
		}
		for _, t := range c.tags {
			if t.value.n > 0 {
				strs = append(strs, c.str(t.value))
			}
		}
	}
	return strs
}
