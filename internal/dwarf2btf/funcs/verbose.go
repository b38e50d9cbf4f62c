package funcs

// With Options.Log, the function encoding tells of each function it leaves
// out, and why (Skip), in the order of the ELF function table, which is
// name order: pahole -V's "NAME : skipping BTF encoding of function due to
// REASON" lines (the command words them). The reason is what encodeName
// decided (skipReason), so the log cannot disagree with the output. pahole
// also reports a mismatch between two prototypes of a name (a parameter
// count, return or parameter type), whether or not the name is then
// skipped; those are found while combineAll merges the candidates in
// parallel, recorded there and reported before the name's own reason, so
// the log is the same for every Options.Jobs.

// Log is told of the functions Encode leaves out (see above).
type Log interface {
	Skipped(function string, why Skip)
}

// Skip is why a function is left out, or how two of its prototypes differ.
type Skip struct {
	Reason SkipReason
	// Counts are the parameter counts of the two prototypes of a
	// CountMismatch; Param the index of the parameter of a ParamMismatch,
	// and Names its names in the two.
	Counts [2]int
	Param  int
	Names  [2]string
}

// SkipReason is what a Skip says.
type SkipReason uint8

// The reasons, pahole's, from the most important down; the mismatches
// after them.
const (
	Encoded SkipReason = iota // not skipped
	AmbiguousAddress
	OptimizedParameters
	ReorderedParameters
	UncertainLocation
	InconsistentPrototype // with consistent_func only
	UnexpectedRegister
	CountMismatch
	ReturnMismatch
	ParamMismatch
)

// logMismatch tells of the prototype mismatch found in the name whose
// candidates start at states[first], if combineAll recorded one.
func (e *funcEncoder) logMismatch(states []funcState, first int) {
	for e.nextMismatch < len(e.mismatches) && int(e.mismatches[e.nextMismatch].a) < first {
		e.nextMismatch++
	}
	for e.nextMismatch < len(e.mismatches) && int(e.mismatches[e.nextMismatch].a) == first {
		m := e.mismatches[e.nextMismatch]
		e.nextMismatch++
		a, b := &states[m.a], &states[m.b]
		var why Skip
		switch m.kind {
		case countMismatch:
			why = Skip{Reason: CountMismatch, Counts: [2]int{len(a.c.params), len(b.c.params)}}
		case returnMismatch:
			why = Skip{Reason: ReturnMismatch}
		case paramMismatch:
			why = Skip{Reason: ParamMismatch, Param: int(m.param),
				Names: [2]string{a.c.str(a.c.params[m.param].name), b.c.str(b.c.params[m.param].name)}}
		}
		e.log.Skipped(e.elf.funcs[a.c.elf].name, why)
	}
}
