package classlayout

import (
	"fmt"
	"io"
	"strings"
)

// PrintDWARF writes what pahole prints from the DWARF of dw with options
// opt: each compilation unit is loaded and printed in turn, as pahole does.
// With ClassNames, the names are looked for unit by unit, in their order
// (a unit lacking the next name passes the rest on to the following
// units); without, every struct and union is printed once per distinct
// definition across units.
func PrintDWARF(dw *DWARF, opt Options, w, errw io.Writer) error {
	r := NewRun(opt, w, errw)
	if err := r.DWARF(dw); err != nil {
		return err
	}
	return r.Finish()
}

// DWARF prints what pahole prints from the DWARF of dw, unit by unit.
func (r *Run) DWARF(dw *DWARF) error {
	dw.declInfo = r.opt.ShowDeclInfo || r.opt.Packable // -P names an anonymous struct by where it was declared
	units := r.units(dw)
	var err error
	switch {
	case r.named():
		err = r.dwarfNamed(dw, units)
	case r.opt.sortsLayouts():
		err = r.dwarfSorted(dw, units)
	case r.opt.JustPacked || r.opt.Sort:
		// --packed filters by packed attributes, which printing earlier
		// types infers: it goes in order.
		err = r.dwarfAll(dw, units)
	default:
		err = r.dwarfParallel(dw, units)
	}
	if err != nil {
		r.bw.Flush()
		return err
	}
	return r.bw.Flush()
}

// units returns the indexes of the units of dw the language filter keeps.
func (r *Run) units(dw *DWARF) []int {
	all := dw.d.Units()
	out := make([]int, 0, len(all))
	for i := range all {
		if !r.skips(uint16(all[i].Language)) {
			out = append(out, i)
		}
	}
	return out
}

func (r *Run) dwarfNamed(dw *DWARF, units []int) error {
	for _, i := range units {
		if r.next == len(r.opt.ClassNames) {
			break
		}
		m, err := dw.LoadUnit(i, r.opt.FixupSillyBitfields, false)
		if err != nil {
			return err
		}
		p := r.printer(m)
		p.spill = func() error { return p.drainTo(r.bw) }
		aborted := false
		for r.next < len(r.opt.ClassNames) {
			name := r.opt.ClassNames[r.next]
			id := p.findTypeByName(name)
			if id == 0 {
				break
			}
			if c := p.checkArgs(id, name, r.opt.classArgs(r.next), r.errw); c != argsOK {
				aborted = c == argsAbort
				break
			}
			p.printOne(id)
			r.next++
		}
		if err := p.drainTo(r.bw); err != nil {
			return err
		}
		p.writeNotes(r.errw)
		if p.overflow {
			return p.overflowErr
		}
		if aborted {
			// pahole's DWARF loader ends with EINVAL here, and no last word.
			return fmt.Errorf("%s: the arguments of -C %s do not apply to its type", dw.path, r.opt.ClassNames[r.next])
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

// dwarfAll is pahole's print_classes over every unit in turn, with the
// run's record of the definitions printed.
func (r *Run) dwarfAll(dw *DWARF, units []int) error {
	for _, i := range units {
		m, err := dw.LoadUnit(i, r.opt.FixupSillyBitfields, true)
		if err != nil {
			return err
		}
		p := r.printer(m)
		if err := p.printAll(func() error { return p.drainTo(r.bw) }); err != nil {
			return err
		}
		if err := p.drainTo(r.bw); err != nil {
			return err
		}
		p.writeNotes(r.errw)
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

// dwarfSorted is --sort over DWARF: the definitions of every unit, once
// each, kept for Finish to sort as pahole sorts them across units and
// print, each by its unit's printer. Every unit stays loaded until the
// end, as in pahole.
func (r *Run) dwarfSorted(dw *DWARF, units []int) error {
	for _, i := range units {
		m, err := dw.LoadUnit(i, r.opt.FixupSillyBitfields, true)
		if err != nil {
			return err
		}
		p := r.printer(m)
		r.collectSorted(p)
		if err := p.drainTo(r.bw); err != nil {
			return err
		}
		p.writeNotes(r.errw)
	}
	return nil
}

// compareSorted is compareMemberTypesAcross with the type names cached.
func compareSorted(x, y sortedType) int {
	return compareMembersBy(x.p, &x.p.m.Types[x.id], y.p, &y.p.m.Types[y.id], func(i int, _, _ *Type) int {
		return strings.Compare(x.memberTypeNames()[i], y.memberTypeNames()[i])
	})
}
