package classlayout

import (
	"bufio"
	"strconv"
	"strings"
)

// This file holds pahole's per-type facts: the counts printed at the end
// of a run (-T, the copies of each definition across units; -m, the
// functions taking a pointer to each struct), the structs pointing to a
// type (-f), the enum holding an enumerator (--contains_enumerator), and
// -l's first biggest member. They select types as the layout view does
// (Printer.filter) and count definitions as pahole's structures tree does
// (type__compare: name, size, members' names, offsets and bitfields).

// defCount is one definition and its count.
type defCount struct {
	name string
	size uint32
	keys []memberKey
	n    uint32
}

// defCounts are the definitions counted, in the order first met.
type defCounts struct {
	list   []*defCount
	byName map[string][]*defCount
}

// add returns the count of the definition (name, size, ms), new (count 0)
// when no equal one was met, and whether it was met before.
func (d *defCounts) add(name string, size uint32, ms []Member) (*defCount, bool) {
	if d.byName == nil {
		d.byName = make(map[string][]*defCount)
	}
	keys := keysOf(ms)
	for _, c := range d.byName[name] {
		if c.size == size && sameKeys(c.keys, keys) {
			return c, true
		}
	}
	// (Names may alias a file's mapped sections, which the counts outlive.)
	for i := range keys {
		keys[i].name = strings.Clone(keys[i].name)
	}
	name = strings.Clone(name)
	c := &defCount{name: name, size: size, keys: keys}
	d.list = append(d.list, c)
	d.byName[name] = append(d.byName[name], c)
	return c, false
}

// sameKeys compares members as type__compare does.
func sameKeys(a, b []memberKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if (x.name != "" && y.name != "" && x.name != y.name) || x.bitOffset != y.bitOffset || x.bitfieldSize != y.bitfieldSize {
			return false
		}
	}
	return true
}

// print writes "name<sep>count" for each definition, as pahole's
// print_stats does.
func (d *defCounts) print(w *bufio.Writer, sep byte) {
	if sep == 0 {
		sep = '\t'
	}
	for _, c := range d.list {
		w.WriteString(orEmptyName(c.name))
		w.WriteByte(sep)
		w.WriteString(strconv.FormatUint(uint64(c.n), 10))
		w.WriteByte('\n')
	}
	d.list, d.byName = nil, nil
}

// nrDefinitions is -T: each named struct and union that passes the
// filters, counted once for each unit (and each copy in a unit) that
// defines it.
func (r *Run) nrDefinitions() error {
	for _, i := range r.units {
		m, err := r.src.loadUnit(i, &r.opt, true)
		if err != nil {
			return err
		}
		p := r.printer(m)
		for id := uint32(1); id < uint32(len(m.Types)); id++ {
			t := &m.Types[id]
			if t.Kind != KindStruct && t.Kind != KindUnion {
				continue
			}
			if t.Name == "" && !(r.opt.IncludeAnonymous || r.opt.IncludeNestedAnonymous) {
				continue
			}
			if !p.filter(t, id) || t.Name == "" {
				continue
			}
			c, _ := r.counts.add(t.Name, t.Size, m.MembersOf(t))
			c.n++
		}
		if err := r.finishUnit(p); err != nil {
			return err
		}
	}
	return nil
}

// nrMethods is -m: for each function, each parameter that points to a
// named struct passing the filters counts a method of that struct.
// The functions are BTF's FUNC types, in ID order, or DWARF's subprograms
// (Model.Funcs), in DIE order.
func (r *Run) nrMethods() error {
	for _, i := range r.units {
		m, err := r.src.loadUnit(i, &r.opt, false)
		if err != nil {
			return err
		}
		p := r.printer(m)
		for _, params := range functionParams(m) {
			for _, prm := range params {
				pt := m.Type(prm)
				if pt == nil || pt.Kind != KindPointer {
					continue
				}
				st := m.Type(pt.Ref)
				if st == nil || st.Kind != KindStruct || st.Name == "" || !p.filter(st, pt.Ref) {
					continue
				}
				c, _ := r.counts.add(st.Name, st.Size, m.MembersOf(st))
				c.n++
			}
		}
		if err := r.finishUnit(p); err != nil {
			return err
		}
	}
	return nil
}

// functionParams returns each function's parameters' types.
func functionParams(m *Model) [][]uint32 {
	var out [][]uint32
	for _, f := range m.Funcs {
		out = append(out, m.FuncParams[f.First:f.First+f.N])
	}
	for id := range m.Types {
		fn := &m.Types[id]
		if fn.Kind != KindFunc {
			continue
		}
		proto := m.Type(fn.Ref)
		if proto == nil || proto.Kind != KindFuncProto {
			continue
		}
		ps := make([]uint32, proto.N)
		for i, prm := range m.Params[proto.First : proto.First+proto.N] {
			ps[i] = prm.Type
		}
		out = append(out, ps)
	}
	return out
}

// printPointersTo is -f: "struct: member" for each member of a named
// struct or union (passing the filters, printed once across units) that
// points to type id.
func (p *Printer) printPointersTo(id uint32) {
	if p.seen == nil {
		p.seen = &seenDefs{byName: make(map[string][]seenDef)}
	}
	for sid := uint32(1); sid < uint32(len(p.m.Types)); sid++ {
		t := &p.m.Types[sid]
		if (t.Kind != KindStruct && t.Kind != KindUnion) || t.Name == "" || !p.filter(t, sid) {
			continue
		}
		looked := false
		for _, mb := range p.m.MembersOf(t) {
			mt := p.m.Type(mb.Type)
			if mt == nil || mt.Kind != KindPointer || mt.Ref != id {
				continue
			}
			if !looked {
				if dup, _ := p.seen.check(t.Name, t.Size, p.m.MembersOf(t), nil, false); dup {
					break
				}
				looked = true
			}
			p.str(t.Name)
			p.str(": ")
			p.str(orEmptyName(mb.Name))
			p.byte1('\n')
		}
	}
}

// enumerators is --contains_enumerator: in each unit, the first enum with
// an enumerator of that name, printed; a unit with none is printed as
// without the option, as pahole goes on.
func (r *Run) enumerators() error {
	for _, i := range r.units {
		if r.stopped {
			break
		}
		m, err := r.src.loadUnit(i, &r.opt, true)
		if err != nil {
			return err
		}
		p := r.printer(m)
		found := false
		for id := uint32(1); id < uint32(len(m.Types)) && !found; id++ {
			t := &m.Types[id]
			if t.Kind != KindEnum {
				continue
			}
			for _, e := range m.Enumerators[t.First : t.First+t.N] {
				if e.Name == r.opt.ContainsEnumerator {
					c := p.topConf(t)
					p.enumFprintf(t, &c)
					p.byte1('\n')
					found = true
					break
				}
			}
		}
		if err := r.finishUnit(p); err != nil {
			return err
		}
		if found {
			continue
		}
		if len(r.opt.ClassNames) > 0 {
			err = r.named([]int{i})
		} else {
			err = r.inOrder([]int{i})
			r.stopped = r.opt.FirstObjOnly
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// firstBiggestLine is -l's comment: the first biggest base-type member's
// name, offset and size. (pahole dereferences a struct without one, and
// crashes; here the line is left out.)
func (p *Printer) firstBiggestLine(t *Type, ind int) {
	mb := p.firstBiggestBaseTypeMember(t, 0, map[*Type]*Member{})
	if mb == nil {
		return
	}
	p.tabs(ind)
	p.str("/* first biggest size base type member: ")
	p.str(orEmptyName(mb.Name))
	p.byte1(' ')
	p.uint(uint64(mb.ByteOffset))
	p.byte1(' ')
	p.uint(uint64(mb.ByteSize))
	p.str(" */\n")
}
