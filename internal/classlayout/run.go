package classlayout

import (
	"bufio"
	"io"
	"slices"
	"strings"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// Source is where the layout view's types come from: the compilation units
// of a file's DWARF (OpenDWARF), each loaded into a Model in turn as pahole
// loads them, or the one unit a BTF file is (BTFSource). Print reads every
// source the same way.
type Source interface {
	// numUnits is the number of units.
	numUnits() int
	// loadUnit builds the model of unit i with opt's loading choices
	// (cacheline size, bitfield fixups, declaration info). With
	// typesOnly, a source may leave out the types declared inside
	// function bodies: printing every type shows those of file scope
	// only, though -C finds the others.
	loadUnit(i int, opt *Options, typesOnly bool) (*Model, error)
	// badArgsFail says whether -C arguments that cannot apply to their
	// type end the run with an error, as pahole's DWARF loader ends it
	// (EINVAL), rather than being reported as a name not found, as with
	// BTF.
	badArgsFail() bool
	// path names the source in errors.
	path() string
	// unitLang is unit i's language (DW_AT_language; DW_LANG_C for
	// BTF), for Options.SkipLanguage.
	unitLang(i int) dwarf.Lang
}

// Print writes what pahole prints for the types of src with options opt to
// w, one unit after another: with ClassNames, the names looked for unit by
// unit, in their order (a unit lacking the next name passes the rest on to
// the following units); without, every struct and union once per distinct
// definition across the units. Names no type has are reported on errw, as
// pahole does, without failing. On an error, what was printed before it is
// written out. It is a Run of one source.
func Print(src Source, opt Options, w, errw io.Writer) error {
	r := NewRun(opt, w, errw)
	if err := r.Print(src); err != nil {
		return err
	}
	return r.Finish()
}

// Run is one pahole run over the files of a command line, each a Source
// given to Print in order, then ended by Finish. pahole keeps its state
// from one file to the next, and so does a Run: a definition printed from
// one file is not printed again from a later one, a -C name found in one
// file is not looked for in the next (the names still missing pass on, in
// order), and --sort orders the types of every file together at the end.
type Run struct {
	opt  Options
	bw   *bufio.Writer
	errw io.Writer

	seen  *seenDefs  // the definitions printed, by name
	cache *packCache // -P: reorganized sizes by layout

	src   Source // the source being printed
	units []int  // its units the language filter keeps, in order

	next     int          // -C: the index in ClassNames of the first name not found yet
	sorted   []sortedType // --sort: the types to print at the end
	resort   bool         // --sort met types equal but for their members' types
	printers []*Printer   // --sort: the printers of the units kept to the end
}

// NewRun starts a run printing to w, with pahole's other words (names not
// found, -C arguments that do not apply) on errw.
func NewRun(opt Options, w, errw io.Writer) *Run {
	return &Run{opt: opt, bw: bufio.NewWriterSize(w, 1<<16), errw: errw,
		seen: &seenDefs{byName: make(map[string][]seenDef)}, cache: new(packCache)}
}

// Print prints what pahole prints from src, the next file of the run. On an
// error, what was printed before it is written out.
func (r *Run) Print(src Source) error {
	r.src, r.units = src, nil
	for i := range src.numUnits() {
		if r.opt.SkipLanguage == nil || !r.opt.SkipLanguage(src.unitLang(i)) {
			r.units = append(r.units, i)
		}
	}
	var err error
	switch {
	case len(r.opt.ClassNames) > 0:
		err = r.named()
	case r.opt.sortsLayouts():
		err = r.collectSorted()
	case r.opt.JustPacked || r.opt.Sort || len(r.units) < 2:
		// --packed filters by packed attributes, which printing earlier
		// types infers: it goes in order.
		err = r.inOrder()
	default:
		err = r.parallel()
	}
	if ferr := r.bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Finish ends the run: --sort's types, sorted as pahole sorts them across
// every unit of every file, then, on errw, the first -C name no file had.
func (r *Run) Finish() error {
	err := r.printSorted()
	if ferr := r.bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if names := r.opt.ClassNames; r.next < len(names) {
		notFound(r.errw, names[r.next], r.opt.classArgs(r.next))
	}
	return nil
}

// printer returns a printer of unit model m that shares the run's records.
func (r *Run) printer(m *Model) *Printer {
	p := NewPrinter(m, r.opt)
	p.seen, p.packCache = r.seen, r.cache
	return p
}

// finishUnit writes out what p has printed and noted, and reports the
// type that overflowed its budgets, if one did.
func (r *Run) finishUnit(p *Printer) error {
	if err := p.drainTo(r.bw); err != nil {
		return err
	}
	p.writeNotes(r.errw)
	if p.overflow {
		return p.overflowErr
	}
	return nil
}

// named is -C: each name's first struct, union, typedef or enum (not a
// declaration), looked for in the units in order, printed with a blank
// line after it. Printing stops at the first name no unit has, or whose
// arguments do not apply: from DWARF that ends the run, as pahole's DWARF
// loader ends it (EINVAL); from BTF the name passes on to the next file.
func (r *Run) named() error {
	names := r.opt.ClassNames
	for _, i := range r.units {
		if r.next == len(names) {
			break
		}
		m, err := r.src.loadUnit(i, &r.opt, false)
		if err != nil {
			return err
		}
		p := r.printer(m)
		p.spill = func() error { return p.drainTo(r.bw) }
		aborted := false
		for r.next < len(names) {
			id := p.findTypeByName(names[r.next])
			if id == 0 {
				break
			}
			if c := p.checkArgs(id, names[r.next], r.opt.classArgs(r.next), r.errw); c != argsOK {
				aborted = c == argsAbort
				break
			}
			p.printOne(id)
			r.next++
		}
		if err := r.finishUnit(p); err != nil {
			return err
		}
		if aborted {
			if r.src.badArgsFail() {
				// pahole's DWARF loader ends with EINVAL here, and no last word.
				return &ArgsError{Path: r.src.path(), Name: names[r.next]}
			}
			break
		}
	}
	return nil
}

// printOne prints a type -C named, as pahole's stealer does: -R prints a
// struct reorganized (and nothing for other types).
func (p *Printer) printOne(id uint32) {
	t := &p.m.Types[id]
	p.findHoles(t)
	if p.opt.Reorganize {
		if t.Kind == KindStruct {
			p.doReorg(id)
		}
		return
	}
	if p.opt.Contains {
		p.printContainers(id)
		return
	}
	p.format(t, id)
	p.byte1('\n')
}

// inOrder is pahole's print_classes over every unit in turn: every struct
// and union that passes the filters, once per distinct definition of a
// name, in ID order.
func (r *Run) inOrder() error {
	for _, i := range r.units {
		m, err := r.src.loadUnit(i, &r.opt, true)
		if err != nil {
			return err
		}
		p := r.printer(m)
		p.spill = func() error { return p.drainTo(r.bw) }
		err = p.forSelected(func(id uint32) error {
			p.format(&p.m.Types[id], id)
			if len(p.buf) > 1<<16 {
				return p.spill()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := r.finishUnit(p); err != nil {
			return err
		}
	}
	return nil
}

// sortedType is a type --sort prints, with the printer of its unit and,
// once a comparison needed them, the names of its members' types.
type sortedType struct {
	p         *Printer
	id        uint32
	typeNames *[]string
}

// memberTypeNames returns (and keeps) the names of st's members' types.
func (st sortedType) memberTypeNames() []string {
	if *st.typeNames == nil {
		ms := st.p.m.MembersOf(&st.p.m.Types[st.id])
		names := make([]string, len(ms))
		for i := range ms {
			if t := st.p.m.Type(ms[i].Type); t != nil {
				names[i] = st.p.tagName(t, 1024)
			}
		}
		*st.typeNames = names
	}
	return *st.typeNames
}

// collectSorted is --sort: the definitions of every unit, once each (-P's
// lines printed as they are found), kept for Finish, which sorts them as
// pahole sorts them across units and files: by type__compare, then, as
// pahole re-sorts when members differ only in their types, by
// type__compare_members_types, dropping the types that compare equal. Each
// is printed by its unit's printer: every unit stays loaded until the end,
// as in pahole.
func (r *Run) collectSorted() error {
	for _, i := range r.units {
		m, err := r.src.loadUnit(i, &r.opt, true)
		if err != nil {
			return err
		}
		p := r.printer(m)
		var ids []uint32
		p.forSelected(func(id uint32) error { ids = append(ids, id); return nil })
		for _, id := range ids {
			r.sorted = append(r.sorted, sortedType{p, id, new([]string)})
		}
		p.packableLines(ids)
		if err := r.finishUnit(p); err != nil {
			return err
		}
		r.resort = r.resort || p.needResort
		r.printers = append(r.printers, p)
	}
	return nil
}

// printSorted prints the types collectSorted kept, in --sort's order.
func (r *Run) printSorted() error {
	all := r.sorted
	less := func(a, b sortedType) int {
		return compareTypes(a.p.m, &a.p.m.Types[a.id], b.p.m, &b.p.m.Types[b.id])
	}
	if r.resort {
		less = compareSorted
	}
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
	for _, p := range r.printers {
		if err := r.finishUnit(p); err != nil {
			return err
		}
	}
	r.sorted, r.printers = nil, nil
	return nil
}

// compareSorted is type__compare_members_types, with the type names
// cached.
func compareSorted(x, y sortedType) int {
	return compareMembersBy(x.p, &x.p.m.Types[x.id], y.p, &y.p.m.Types[y.id], func(i int, _, _ *Type) int {
		return strings.Compare(x.memberTypeNames()[i], y.memberTypeNames()[i])
	})
}
