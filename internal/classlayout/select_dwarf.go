package classlayout

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// PrintDWARF writes what pahole prints from the DWARF of dw with options
// opt: each compilation unit is loaded and printed in turn, as pahole does.
// With ClassNames, the names are looked for unit by unit, in their order
// (a unit lacking the next name passes the rest on to the following
// units); without, every struct and union is printed once per distinct
// definition across units.
func PrintDWARF(dw *DWARF, opt Options, w, errw io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	dw.declInfo = opt.ShowDeclInfo || opt.Packable // -P names an anonymous struct by where it was declared
	var err error
	if len(opt.ClassNames) > 0 {
		err = printDWARFNamed(dw, opt, bw, errw)
	} else if opt.sortsLayouts() {
		err = printDWARFSorted(dw, opt, bw, errw)
	} else if opt.JustPacked || opt.Sort {
		// --packed filters by packed attributes, which printing earlier
		// types infers: it goes in order.
		err = printDWARFAll(dw, opt, bw, errw)
	} else {
		err = printDWARFParallel(dw, opt, bw, errw)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

func printDWARFNamed(dw *DWARF, opt Options, bw *bufio.Writer, errw io.Writer) error {
	remaining := opt.ClassNames
	next := 0 // the index in ClassNames of remaining[0]
	aborted := false
	for i := 0; i < dw.NumUnits() && len(remaining) > 0 && !aborted; i++ {
		m, err := dw.LoadUnit(i, opt.FixupSillyBitfields, false)
		if err != nil {
			return err
		}
		p := NewPrinter(m, opt)
		p.spill = func() error { return p.drainTo(bw) }
		for len(remaining) > 0 {
			id := p.findTypeByName(remaining[0])
			if id == 0 {
				break
			}
			if c := p.checkArgs(id, remaining[0], opt.classArgs(next), errw); c != argsOK {
				aborted = c == argsAbort
				break
			}
			p.printOne(id)
			remaining = remaining[1:]
			next++
		}
		if err := p.drainTo(bw); err != nil {
			return err
		}
		p.writeNotes(errw)
		if p.overflow {
			return p.overflowErr
		}
	}
	if aborted {
		// pahole's DWARF loader ends with EINVAL here, and no last word.
		bw.Flush()
		return fmt.Errorf("%s: the arguments of -C %s do not apply to its type", dw.path, remaining[0])
	}
	if len(remaining) > 0 {
		bw.Flush()
		notFound(errw, remaining[0], opt.classArgs(next))
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

// printDWARFAll is pahole's print_classes over every unit in turn, with one
// record of the definitions printed across them.
func printDWARFAll(dw *DWARF, opt Options, bw *bufio.Writer, errw io.Writer) error {
	seen := &seenDefs{byName: make(map[string][]seenDef)}
	cache := new(packCache)
	for i := 0; i < dw.NumUnits(); i++ {
		m, err := dw.LoadUnit(i, opt.FixupSillyBitfields, true)
		if err != nil {
			return err
		}
		p := NewPrinter(m, opt)
		p.seen, p.packCache = seen, cache
		if err := p.printAll(func() error { return p.drainTo(bw) }); err != nil {
			return err
		}
		if err := p.drainTo(bw); err != nil {
			return err
		}
		p.writeNotes(errw)
		if p.overflow {
			return p.overflowErr
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

// printDWARFSorted is --sort over DWARF: the definitions of every unit,
// once each, sorted as pahole sorts them across units, each printed by its
// unit's printer. Every unit stays loaded until the end, as in pahole.
func printDWARFSorted(dw *DWARF, opt Options, bw *bufio.Writer, errw io.Writer) error {
	seen := &seenDefs{byName: make(map[string][]seenDef)}
	cache := new(packCache)
	var all []sortedType
	resort := false
	for i := 0; i < dw.NumUnits(); i++ {
		m, err := dw.LoadUnit(i, opt.FixupSillyBitfields, true)
		if err != nil {
			return err
		}
		p := NewPrinter(m, opt)
		p.seen, p.packCache = seen, cache
		ids := p.selected()
		for _, id := range ids {
			all = append(all, sortedType{p, id, new([]string)})
		}
		p.packableLines(ids)
		if err := p.drainTo(bw); err != nil {
			return err
		}
		p.writeNotes(errw)
		resort = resort || p.needResort
	}
	less := func(a, b sortedType) int {
		return compareTypesAcross(a.p, &a.p.m.Types[a.id], b.p, &b.p.m.Types[b.id])
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
		if err := st.p.drainTo(bw); err != nil {
			return err
		}
	}
	return nil
}

// compareSorted is compareMemberTypesAcross with the type names cached.
func compareSorted(x, y sortedType) int {
	return compareMembersBy(x.p, &x.p.m.Types[x.id], y.p, &y.p.m.Types[y.id], func(i int, _, _ *Type) int {
		return strings.Compare(x.memberTypeNames()[i], y.memberTypeNames()[i])
	})
}
