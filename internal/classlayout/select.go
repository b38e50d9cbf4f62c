package classlayout

import (
	"io"
	"strings"
)

// forSelected calls fn, in ID order, for each struct and union that passes
// the filters and was not printed before.
func (p *Printer) forSelected(fn func(id uint32) error) error {
	if p.seen == nil {
		p.seen = &seenDefs{byName: make(map[string][]seenDef)}
	}
	for id := uint32(1); id < uint32(len(p.m.Types)); id++ {
		t := &p.m.Types[id]
		if t.Kind != KindStruct && t.Kind != KindUnion {
			continue
		}
		if t.Name == "" && !(p.opt.IncludeAnonymous || p.opt.IncludeNestedAnonymous) {
			continue
		}
		if !p.filter(t, id) {
			continue
		}
		if t.Name != "" {
			if p.duplicateDef(id) {
				continue
			}
		}
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

// seenDef is a printed definition as pahole's type__compare sees it.
type seenDef struct {
	size    uint32
	members []memberKey
}

type memberKey struct {
	name         string
	bitOffset    uint32
	bitfieldSize uint32
}

// seenDefs records the structs and unions printed, by name, across the
// units of a file.
type seenDefs struct{ byName map[string][]seenDef }

// duplicateDef reports whether a definition equal to type id for pahole
// (type__compare: name, size, number of members, and each member's name
// where both have one, bit offset and bitfield size) was printed, from
// this unit or an earlier one, and records it if not.
func (p *Printer) duplicateDef(id uint32) bool {
	t := &p.m.Types[id]
	dup, resort := p.seen.check(t.Name, t.Size, p.m.MembersOf(t), nil, p.opt.Sort)
	p.needResort = p.needResort || resort
	return dup
}

// keysOf returns what check compares of a definition's members.
func keysOf(ms []Member) []memberKey {
	keys := make([]memberKey, len(ms))
	for i := range ms {
		keys[i] = memberKey{ms[i].Name, ms[i].BitOffset, ms[i].BitfieldSize}
	}
	return keys
}

// check reports whether a definition of that name, size and members (ms,
// or their keys) was recorded, and records it if not. With --sort a
// definition equal but for its members' types is not a duplicate, and
// resort says one was met.
func (s *seenDefs) check(name string, size uint32, ms []Member, keys []memberKey, sort bool) (dup, resort bool) {
	if keys == nil {
		keys = keysOf(ms)
	}
	for _, d := range s.byName[name] {
		if d.size != size || len(d.members) != len(keys) {
			continue
		}
		same := true
		for i := range keys {
			a, b := &d.members[i], &keys[i]
			if (a.name != "" && b.name != "" && a.name != b.name) || a.bitOffset != b.bitOffset || a.bitfieldSize != b.bitfieldSize {
				same = false
				break
			}
		}
		if same && len(keys) != 0 && sort {
			// pahole keeps both, to tell them apart by their members'
			// types when it sorts again (run.sorted); with members,
			// nothing is a duplicate then, so one match says it all.
			resort = true
			break
		}
		if same {
			return true, resort
		}
	}
	s.byName[name] = append(s.byName[name], seenDef{size, keys})
	return false, resort
}

// duplicate reports whether a struct or union equal to id for pahole
// (type__compare: name, size, number of members, and each member's name
// where both have one, bit offset and bitfield size) was seen, and records
// id if not.
func (p *Printer) duplicate(seen map[string][]uint32, id uint32) bool {
	t := &p.m.Types[id]
	for _, o := range seen[t.Name] {
		if compareTypes(p.m, &p.m.Types[o], p.m, t) == 0 {
			return true
		}
	}
	seen[t.Name] = append(seen[t.Name], id)
	return false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareTypes is pahole's type__compare without member types, for types
// of the models mA and mB.
func compareTypes(mA *Model, a *Type, mB *Model, b *Type) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := cmpInt(int64(int32(a.Size)), int64(int32(b.Size))); c != 0 {
		return c
	}
	if c := cmpInt(int64(a.N), int64(b.N)); c != 0 {
		return c
	}
	if a.N == 0 {
		return 0
	}
	ma, mb := mA.MembersOf(a), mB.MembersOf(b)
	for i := range ma {
		if c := compareMembers(&ma[i], &mb[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareMembers compares two members as type__compare does: by name
// where both have one, bit offset and bitfield size.
func compareMembers(a, b *Member) int {
	if a.Name != "" && b.Name != "" {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
	}
	if c := cmpInt(int64(a.BitOffset), int64(b.BitOffset)); c != 0 {
		return c
	}
	return cmpInt(int64(a.BitfieldSize), int64(b.BitfieldSize))
}

// compareMembersBy is type__compare_members_types with the comparison of
// member i's type names (ta's and tb's) left to typeNames, so that a
// caller can compare names it has cached.
func compareMembersBy(pa *Printer, a *Type, pb *Printer, b *Type, typeNames func(i int, ta, tb *Type) int) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	ma, mb := pa.m.MembersOf(a), pb.m.MembersOf(b)
	for i := range ma {
		if i >= len(mb) {
			break
		}
		ta, tb := pa.m.Type(ma[i].Type), pb.m.Type(mb[i].Type)
		if ta != nil && tb == nil && mb[i].Name == "" {
			return 0
		}
		if ta == nil || tb == nil {
			if ta != nil {
				return 1
			}
			return -1
		}
		if c := compareMembers(&ma[i], &mb[i]); c != 0 {
			return c
		}
		if c := typeNames(i, ta, tb); c != 0 {
			return c
		}
	}
	return 0
}

// filter is pahole's class__filter.
func (p *Printer) filter(t *Type, id uint32) bool {
	o := &p.opt
	if o.JustUnions && t.Kind != KindUnion {
		return false
	}
	if (o.JustStructs || o.JustPacked || o.WithEmbeddedFlexible) && t.Kind != KindStruct {
		return false
	}
	if o.JustPacked && !p.inferPacked(t) {
		return false
	}
	if t.Flags&FlagNested != 0 {
		// pahole shows only the types of file scope (no --show_private_classes).
		p.findHoles(t)
		return false
	}
	if t.Flags&FlagDeclaration != 0 {
		return false
	}
	if !o.IncludeAnonymous && t.Name == "" {
		return false
	}
	name := t.Name
	if (o.ExcludePrefix != "" || o.IncludePrefix != "") && name == "" {
		if td := p.firstTypedefOf(id); td != nil {
			name = td.Name
		}
	}
	if o.ExcludePrefix != "" && name != "" && hasPrefix(name, o.ExcludePrefix) {
		return false
	}
	if o.IncludePrefix != "" && name != "" && !hasPrefix(name, o.IncludePrefix) {
		return false
	}
	if o.JustUnions {
		return true
	}
	if t.Kind != KindStruct {
		return !(o.NrHoles != 0 || o.NrBitHoles != 0 || o.HoleSizeGE != 0 || o.PaddingGE != 0 || o.Padding != 0 || o.Packable)
	}
	p.findHoles(t)
	st := p.state(t)
	if int(st.nrHoles) < o.NrHoles || int(st.padding) < o.PaddingGE || int(st.nrBitHoles) < o.NrBitHoles ||
		(o.Padding != 0 && int(st.padding) != o.Padding) ||
		(o.HoleSizeGE != 0 && !p.hasHoleGE(t, o.HoleSizeGE)) {
		return false
	}
	if o.WithFlexibleArray && !p.hasFlexibleArray(t) {
		return false
	}
	if o.WithEmbeddedFlexible && !p.hasEmbeddedFlexibleArray(t, 0) {
		return false
	}
	// (pahole tries -P before the flexible array filters; neither
	// changes what the other finds.)
	return !o.Packable || p.packable(id)
}

// hasHoleGE is class__has_hole_ge.
func (p *Printer) hasHoleGE(t *Type, size int) bool {
	st := p.state(t)
	if st.nrHoles == 0 {
		return false
	}
	for i := t.First; i < t.First+t.N; i++ {
		if int(p.hole[i]) >= size {
			return true
		}
	}
	return false
}

// printNamed is pahole's -C: each name's first struct, union, typedef or
// enum (not a declaration) printed with a blank line after it; printing
// stops at the first name no type has, or whose arguments do not apply,
// which is reported on errw.
func (p *Printer) printNamed(flush func() error, errw io.Writer) error {
	for i, name := range p.opt.ClassNames {
		id := p.findTypeByName(name)
		if id == 0 || p.checkArgs(id, name, p.opt.classArgs(i), errw) != argsOK {
			notFound(errw, name, p.opt.classArgs(i))
			return nil
		}
		p.printOne(id)
		if err := flush(); err != nil {
			return err
		}
	}
	return nil
}

// findTypeByName is cu__find_type_by_name: the first struct, union,
// typedef or enum of that name that is not a declaration.
func (p *Printer) findTypeByName(name string) uint32 { return p.m.FindType(name) }

// printContainers is pahole's print_containers (-i): the named structs and
// unions passing the filters that have members of type id, each once; with
// -d, under each, indented, its member types that do too, recursively.
func (p *Printer) printContainers(id uint32) {
	if p.containersSeen == nil {
		p.containersSeen = make(map[string][]uint32)
	}
	for cid := uint32(1); cid < uint32(len(p.m.Types)); cid++ {
		t := &p.m.Types[cid]
		if (t.Kind != KindStruct && t.Kind != KindUnion) || t.Name == "" || !p.filter(t, cid) {
			continue
		}
		p.typeContainers(t, id, 0)
	}
}

func (p *Printer) typeContainers(t *Type, id uint32, indent int) {
	n := 0
	for _, mb := range p.m.MembersOf(t) {
		if mb.Type == id {
			n++
		}
	}
	if n == 0 || indent > maxDepth {
		return
	}
	if indent == 0 && p.duplicate(p.containersSeen, p.m.idOf(t)) {
		return
	}
	for range indent * 2 {
		p.byte1(' ')
	}
	p.str(orEmptyName(t.Name))
	if p.opt.Verbose {
		p.str(": ")
		p.uint(uint64(n))
	}
	p.byte1('\n')
	if p.opt.Recursive {
		for _, mb := range p.m.MembersOf(t) {
			if mt := p.m.Type(mb.Type); mt != nil && (mt.Kind == KindStruct || mt.Kind == KindUnion) {
				p.typeContainers(mt, id, indent+1)
			}
		}
	}
}
