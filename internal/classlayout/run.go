package classlayout

import (
	"bufio"
	"io"
	"slices"
)

// langC is DW_LANG_C, the language pahole gives the one unit a BTF file is.
const langC = 0x02

// Run is one pahole run over the files of a command line, given in order
// to BTF and DWARF, then ended by Finish. pahole keeps its state from one
// file to the next, and so does a Run: a definition printed from one file
// is not printed again from a later one, a -C name found in one file is
// not looked for in the next (the names still missing pass on, in order),
// and --sort orders the types of every file together at the end.
type Run struct {
	opt  Options
	bw   *bufio.Writer
	errw io.Writer

	seen  *seenDefs  // definitions printed so far
	cache *packCache // -P's reorganized sizes by layout
	next  int        // the index in ClassNames of the first name not found yet

	sorted []sortedType // --sort: the types to print at the end
	resort bool         // --sort met types equal but for their members' types
}

// NewRun starts a run printing to w, with pahole's other words (names not
// found, -C arguments that do not apply) on errw.
func NewRun(opt Options, w, errw io.Writer) *Run {
	return &Run{opt: opt, bw: bufio.NewWriterSize(w, 1<<16), errw: errw,
		seen: &seenDefs{byName: make(map[string][]seenDef)}, cache: new(packCache)}
}

// skips says whether SkipLanguage filters out a unit written in lang.
func (r *Run) skips(lang uint16) bool { return r.opt.SkipLanguage != nil && r.opt.SkipLanguage(lang) }

// named says whether the run prints -C's names rather than every type.
func (r *Run) named() bool { return len(r.opt.ClassNames) > 0 }

// BTF prints what pahole prints from a BTF file, the one unit m.
func (r *Run) BTF(m *Model) error {
	if r.skips(langC) || (r.named() && r.next == len(r.opt.ClassNames)) {
		return nil
	}
	return r.btf(r.printer(m))
}

// btf prints from the unit p prints, with the run's state.
func (r *Run) btf(p *Printer) error {
	p.seen, p.packCache = r.seen, r.cache
	flush := func() error { return p.drainTo(r.bw) }
	p.spill = flush
	var err error
	switch {
	case r.named():
		err = r.printNamed(p, flush)
	case r.opt.sortsLayouts():
		r.collectSorted(p)
	default:
		err = p.printAll(flush)
	}
	if err != nil {
		return err
	}
	if p.overflow {
		return p.overflowErr
	}
	if err := flush(); err != nil {
		return err
	}
	if err := r.bw.Flush(); err != nil {
		return err
	}
	p.writeNotes(r.errw)
	return nil
}

// printer returns a printer of m sharing the run's state.
func (r *Run) printer(m *Model) *Printer {
	p := NewPrinter(m, r.opt)
	p.seen, p.packCache = r.seen, r.cache
	return p
}

// printNamed prints, from one unit, the -C names still to find, in order,
// up to the first the unit lacks (or whose arguments do not apply to it),
// which passes on with the rest to the next unit.
func (r *Run) printNamed(p *Printer, flush func() error) error {
	for r.next < len(r.opt.ClassNames) {
		name := r.opt.ClassNames[r.next]
		id := p.findTypeByName(name)
		if id == 0 || p.checkArgs(id, name, r.opt.classArgs(r.next), r.errw) != argsOK {
			return nil
		}
		p.printOne(id)
		r.next++
		if err := flush(); err != nil {
			return err
		}
	}
	return nil
}

// collectSorted keeps the unit's types for --sort's output at the end; -P
// prints its lines now, as the types are found.
func (r *Run) collectSorted(p *Printer) {
	ids := p.selected()
	for _, id := range ids {
		r.sorted = append(r.sorted, sortedType{p, id, new([]string)})
	}
	p.packableLines(ids)
	r.resort = r.resort || p.needResort
}

// Finish ends the run: --sort's types, sorted as pahole sorts them across
// every unit of every file, then, on errw, the first -C name no file had.
func (r *Run) Finish() error {
	if err := r.printSorted(); err != nil {
		return err
	}
	if err := r.bw.Flush(); err != nil {
		return err
	}
	if r.named() && r.next < len(r.opt.ClassNames) {
		notFound(r.errw, r.opt.ClassNames[r.next], r.opt.classArgs(r.next))
	}
	return nil
}

func (r *Run) printSorted() error {
	less := func(a, b sortedType) int {
		return compareTypesAcross(a.p, &a.p.m.Types[a.id], b.p, &b.p.m.Types[b.id])
	}
	if r.resort {
		less = compareSorted
	}
	all := r.sorted
	slices.SortStableFunc(all, less)
	for i, st := range all {
		if r.resort && i > 0 && less(all[i-1], st) == 0 {
			continue
		}
		st.p.classFormatter(&st.p.m.Types[st.id], st.id)
		if err := st.p.drainTo(r.bw); err != nil {
			return err
		}
	}
	r.sorted = nil
	return nil
}
