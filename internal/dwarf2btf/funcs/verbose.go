package funcs

import "strconv"

// With Options.Verbose, the function encoding explains each function it
// leaves out the way pahole -V does, one line on the writer:
//
//	NAME : skipping BTF encoding of function due to REASON
//
// REASON is what encodeName decided (skipReason), so the lines cannot
// disagree with the output. pahole also prints a line of this form when it
// finds two prototypes of a name that differ (a parameter count, return or
// parameter type mismatch), whether or not the name is then skipped; those
// are found while combineAll merges the candidates in parallel, recorded
// there and printed before the name's own line, so the output is the same
// for every Options.Jobs. Names come in the order of the ELF function
// table, which is name order.

// logSkip writes pahole's line for a function left out for reason.
func (e *funcEncoder) logSkip(name, reason string) {
	w := e.log
	w.WriteString(name)
	w.WriteString(" : skipping BTF encoding of function due to ")
	w.WriteString(reason)
	w.WriteByte('\n')
}

// logMismatch writes the line of the prototype mismatch found in the name
// whose candidates start at states[first], if combineAll recorded one.
func (e *funcEncoder) logMismatch(states []funcState, first int) {
	for e.nextMismatch < len(e.mismatches) && int(e.mismatches[e.nextMismatch].a) < first {
		e.nextMismatch++
	}
	for e.nextMismatch < len(e.mismatches) && int(e.mismatches[e.nextMismatch].a) == first {
		m := e.mismatches[e.nextMismatch]
		e.nextMismatch++
		a, b := &states[m.a], &states[m.b]
		var reason string
		switch m.kind {
		case countMismatch:
			reason = "param count mismatch; " + strconv.Itoa(len(a.c.params)) + " params != " +
				strconv.Itoa(len(b.c.params)) + " params"
		case returnMismatch:
			reason = "return type mismatch"
		case paramMismatch:
			reason = "param type mismatch for param#" + strconv.Itoa(int(m.param)+1) + " " +
				a.c.str(a.c.params[m.param].name) + " != " + b.c.str(b.c.params[m.param].name)
		}
		e.logSkip(e.elf.funcs[a.c.elf].name, reason)
	}
}
