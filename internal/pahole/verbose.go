package pahole

import (
	"bufio"
	"io"
	"strconv"

	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
)

// Verbose writes what a conversion reports (dwarf2btf.Log) as pahole -V
// prints it. Lines are buffered: Flush writes them out and returns the
// first error writing met.
type Verbose struct {
	w *bufio.Writer
}

// NewVerbose returns a Verbose that writes to w.
func NewVerbose(w io.Writer) *Verbose { return &Verbose{w: bufio.NewWriter(w)} }

// Flush writes out the lines kept, and returns the first error writing
// met.
func (v *Verbose) Flush() error { return v.w.Flush() }

// File is btf_encoder__new's note of a file without the per-CPU section,
// and the file's line.
func (v *Verbose) File(path, percpuSection string, hasPercpu bool) {
	if !hasPercpu {
		v.w.WriteString("btf_encoder__new: '" + path + "' doesn't have '" + percpuSection + "' section\n")
	}
	v.w.WriteString("File " + path + ":\n")
}

// NoSymbol is the line of a function without an ELF symbol.
func (v *Verbose) NoSymbol(function string) {
	v.w.WriteString("could not find function '" + function + "' in the ELF functions table\n")
}

// Unit is the line of a unit whose variables are looked at.
func (v *Verbose) Unit(name string) {
	v.w.WriteString("search cu '" + name + "' for percpu global variables.\n")
}

// Variable is the line of a variable encoded.
func (v *Verbose) Variable(name, unit string, addr uint64) {
	v.w.WriteString("Variable '" + name + "' from CU '" + unit + "' at address 0x" + strconv.FormatUint(addr, 16) + " encoded\n")
}

// Skipped is the line of a function left out, or of a mismatch of two of
// its prototypes:
//
//	NAME : skipping BTF encoding of function due to REASON
func (v *Verbose) Skipped(function string, why funcs.Skip) {
	v.w.WriteString(function + " : skipping BTF encoding of function due to " + Reason(why) + "\n")
}

// Reason words why, as pahole's btf_encoder.c does.
func Reason(why funcs.Skip) string {
	switch why.Reason {
	case funcs.AmbiguousAddress:
		return "ambiguous address"
	case funcs.OptimizedParameters:
		return "optimized parameters"
	case funcs.ReorderedParameters:
		return "reordered parameters"
	case funcs.UncertainLocation:
		return "uncertain parameter location"
	case funcs.InconsistentPrototype:
		return "inconsistet prototype" // sic: scripts grep for pahole's spelling
	case funcs.UnexpectedRegister:
		return "unexpected register usage for parameter"
	case funcs.CountMismatch:
		return "param count mismatch; " + strconv.Itoa(why.Counts[0]) + " params != " + strconv.Itoa(why.Counts[1]) + " params"
	case funcs.ReturnMismatch:
		return "return type mismatch"
	case funcs.ParamMismatch:
		return "param type mismatch for param#" + strconv.Itoa(why.Param+1) + " " + why.Names[0] + " != " + why.Names[1]
	}
	return "no reason"
}
