package classlayout

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
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
}

// Print writes what pahole prints for the types of src with options opt to
// w, one unit after another: with ClassNames, the names looked for unit by
// unit, in their order (a unit lacking the next name passes the rest on to
// the following units); without, every struct and union once per distinct
// definition across the units. Names no type has are reported on errw, as
// pahole does, without failing. On an error, what was printed before it is
// written out.
func Print(src Source, opt Options, w, errw io.Writer) error {
	r := &run{src: src, opt: opt, bw: bufio.NewWriterSize(w, 1<<16), errw: errw,
		seen: &seenDefs{byName: make(map[string][]seenDef)}, cache: new(packCache)}
	var err error
	switch {
	case len(opt.ClassNames) > 0:
		err = r.named()
	case opt.sortsLayouts():
		err = r.sorted()
	case opt.JustPacked || opt.Sort || src.numUnits() < 2:
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

// run is one Print: what pahole keeps across the units of a source.
type run struct {
	src  Source
	opt  Options
	bw   *bufio.Writer
	errw io.Writer

	seen  *seenDefs  // the definitions printed, by name
	cache *packCache // -P: reorganized sizes by layout
}

// printer returns a printer of unit model m that shares the run's records.
func (r *run) printer(m *Model) *Printer {
	p := NewPrinter(m, r.opt)
	p.seen, p.packCache = r.seen, r.cache
	return p
}

// finishUnit writes out what p has printed and noted, and reports the
// type that overflowed its budgets, if one did.
func (r *run) finishUnit(p *Printer) error {
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
// arguments do not apply.
func (r *run) named() error {
	names := r.opt.ClassNames
	next := 0 // the name looked for
	for i := 0; i < r.src.numUnits() && next < len(names); i++ {
		m, err := r.src.loadUnit(i, &r.opt, false)
		if err != nil {
			return err
		}
		p := r.printer(m)
		p.spill = func() error { return p.drainTo(r.bw) }
		aborted := false
		for next < len(names) {
			id := p.findTypeByName(names[next])
			if id == 0 {
				break
			}
			if c := p.checkArgs(id, names[next], r.opt.classArgs(next), r.errw); c != argsOK {
				aborted = c == argsAbort
				break
			}
			p.printOne(id)
			next++
		}
		if err := r.finishUnit(p); err != nil {
			return err
		}
		if aborted {
			if r.src.badArgsFail() {
				// pahole's DWARF loader ends with EINVAL here, and no last word.
				return fmt.Errorf("%s: the arguments of -C %s do not apply to its type", r.src.path(), names[next])
			}
			break
		}
	}
	if next < len(names) {
		notFound(r.errw, names[next], r.opt.classArgs(next))
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
func (r *run) inOrder() error {
	for i := 0; i < r.src.numUnits(); i++ {
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

// sorted is --sort: the definitions of every unit, once each (-P's lines
// printed as they are found), sorted as pahole sorts them across units:
// by type__compare, then, as pahole re-sorts when members differ only in
// their types, by type__compare_members_types, dropping the types that
// compare equal. Each is printed by its unit's printer: every unit stays
// loaded until the end, as in pahole.
func (r *run) sorted() error {
	var all []sortedType
	var printers []*Printer
	resort := false
	for i := 0; i < r.src.numUnits(); i++ {
		m, err := r.src.loadUnit(i, &r.opt, true)
		if err != nil {
			return err
		}
		p := r.printer(m)
		var ids []uint32
		p.forSelected(func(id uint32) error { ids = append(ids, id); return nil })
		for _, id := range ids {
			all = append(all, sortedType{p, id, new([]string)})
		}
		p.packableLines(ids)
		if err := r.finishUnit(p); err != nil {
			return err
		}
		resort = resort || p.needResort
		printers = append(printers, p)
	}
	less := func(a, b sortedType) int {
		return compareTypes(a.p.m, &a.p.m.Types[a.id], b.p.m, &b.p.m.Types[b.id])
	}
	if resort {
		less = compareSorted
	}
	slices.SortStableFunc(all, less)
	for i, st := range all {
		if resort && i > 0 && less(all[i-1], st) == 0 {
			continue
		}
		st.p.classFormatter(&st.p.m.Types[st.id], st.id)
		if err := st.p.drainTo(r.bw); err != nil {
			return err
		}
	}
	for _, p := range printers {
		if err := r.finishUnit(p); err != nil {
			return err
		}
	}
	return nil
}

// compareSorted is type__compare_members_types, with the type names
// cached.
func compareSorted(x, y sortedType) int {
	return compareMembersBy(x.p, &x.p.m.Types[x.id], y.p, &y.p.m.Types[y.id], func(i int, _, _ *Type) int {
		return strings.Compare(x.memberTypeNames()[i], y.memberTypeNames()[i])
	})
}
