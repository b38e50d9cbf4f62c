// Package compile is pahole's --compile: before a struct or union is
// printed, the definitions it needs (its members' types, the typedefs,
// enums and function types they go through) are printed first, and the
// structs it only points to are declared ("struct foo;"), so that the whole
// output is C a compiler takes. What pahole prints of each type is its
// layout view's (classlayout's printer, comments included); the order and
// the choice of what to print before are dwarves_emit.c's, reproduced here.
// (internal/cdump prints bpftool's vmlinux.h: another format, another
// order, nothing in common with this but the aim.)
//
// pahole keeps what it emitted in lists that outlive a unit (DWARF's
// compilation units share them, by name): definitions by kind and name,
// forward declarations by name, and "atomic_" base typedefs by name. A
// type also remembers, for its unit, that it was emitted or declared. A
// type sits in at most one list: declared, then defined, it moves from
// the declarations to the definitions, where no declaration lookup finds
// it any more, and pahole declares the name again for a later type of the
// same name. Those rules show in the output; Emitter keeps them.
package compile

import (
	"errors"
	"strings"

	cl "github.com/gobtf/gobtf/internal/classlayout"
)

// emitKey is a definition's kind and name.
type emitKey struct {
	kind cl.Kind
	name string
}

// Emitter is what --compile has printed, across the units of a run: a
// classlayout.Emitter.
type Emitter struct {
	defs      map[emitKey]bool
	shadows   map[string]uint32 // by name: bit 1<<kind for each struct, union or enum kind defined
	fwds      map[string]int    // the names of the types in the declarations list
	baseDefs  map[string]bool   // the atomic_ base typedefs
	skipAtoms bool              // --skip_emitting_atomic_typedefs
}

// New returns the emitter of one run; skipAtomic is
// --skip_emitting_atomic_typedefs.
func New(skipAtomic bool) *Emitter {
	return &Emitter{defs: map[emitKey]bool{}, shadows: map[string]uint32{}, fwds: map[string]int{},
		baseDefs: map[string]bool{}, skipAtoms: skipAtomic}
}

// unit is the per-unit part: each type's flags, and which list holds it
// (and under which name it entered the declarations list).
type unit struct {
	*Emitter
	p        *cl.Printer
	m        *cl.Model
	defined  []bool // definition_emitted
	declared []bool // fwd_decl_emitted
	inFwd    []bool
	fwdName  []string
	inDefs   []bool
	steps    int // emitTag's calls for the top-level type being emitted
}

// unit returns p's unit's state, made on first use and kept with p.
func (e *Emitter) unit(p *cl.Printer) *unit {
	u, _ := p.EmitState().(*unit)
	if u == nil {
		m := p.Model()
		n := len(m.Types)
		u = &unit{Emitter: e, p: p, m: m, defined: make([]bool, n), declared: make([]bool, n),
			inFwd: make([]bool, n), fwdName: make([]string, n), inDefs: make([]bool, n)}
		p.SetEmitState(u)
	}
	return u
}

// addDefinition records id as defined (type_emissions__add_definition).
func (u *unit) addDefinition(id uint32) {
	t := &u.m.Types[id]
	u.defined[id] = true
	if u.inFwd[id] {
		name := u.fwdName[id]
		if u.fwds[name]--; u.fwds[name] == 0 {
			delete(u.fwds, name)
		}
		u.inFwd[id] = false
	}
	u.inDefs[id] = true
	if t.Name != "" {
		u.defs[emitKey{t.Kind, t.Name}] = true
		if canShadow(t.Kind) {
			u.shadows[t.Name] |= 1 << t.Kind
		}
	}
}

func canShadow(k cl.Kind) bool { return k == cl.KindStruct || k == cl.KindUnion || k == cl.KindEnum }

// hasDef is type_emissions__find_definition.
func (u *unit) hasDef(k cl.Kind, name string) bool {
	return name != "" && u.defs[emitKey{k, name}]
}

// hasShadow is type_emissions__find_shadow_definition: a struct, union or
// enum of that name but another kind was defined.
func (u *unit) hasShadow(k cl.Kind, name string) bool {
	return name != "" && u.shadows[name]&^(1<<k) != 0
}

// emitDepth bounds the emitter's recursion, and emitBudget its steps for
// one top-level type: the types it walks nest that deep, or make it walk
// that long (typedefs and function types are walked again each time they
// are met before they are defined, as pahole walks them), only in corrupt
// input, which then ends with an error.
const (
	emitDepth  = 4096
	emitBudget = 1 << 22
)

// errTooLong ends a run whose emitter walked too long.
var errTooLong = errors.New("--compile: the types a type needs nest too deep or too many times over (corrupt input?)")

// Class is class_formatter under --compile: the definitions type id
// needs, then the type itself (with prefix and suffix), then a newline.
func (e *Emitter) Class(p *cl.Printer, id uint32, prefix, suffix string) {
	u := e.unit(p)
	u.steps = 0
	if u.emitDefinitions(id, 0) {
		p.PrintTop(id, prefix, suffix) // (with the semicolon pahole's class_formatter adds)
	}
	p.WriteString("\n")
}

// emitDefinitions is type__emit_definitions for a struct or union (or an
// enum or typedef -C names): false when it was emitted before (in this
// unit, or by name in an earlier one).
func (u *unit) emitDefinitions(id uint32, depth int) bool {
	t := &u.m.Types[id]
	if u.defined[id] {
		return false
	}
	if u.hasDef(t.Kind, t.Name) {
		u.defined[id] = true
		return false
	}
	if t.Kind == cl.KindTypedef {
		return u.emitTypedef(id, depth)
	}
	if canShadow(t.Kind) && u.hasShadow(t.Kind, t.Name) {
		// pahole tells "union foo" from an earlier "struct foo" apart
		// by renaming it, for good.
		t.Name += "__1"
		if u.hasDef(t.Kind, t.Name) {
			u.defined[id] = true
			return false
		}
	}
	u.addDefinition(id)
	u.p.MarkUnnaturalAlignments(id)
	if t.Kind != cl.KindStruct && t.Kind != cl.KindUnion {
		return true // (an enum -C names: its enumerators need nothing)
	}
	for _, mb := range u.m.MembersOf(t) {
		if u.emitTag(mb.Type, depth+1) {
			u.p.WriteString("\n")
		}
	}
	return true
}

// emitTag is tag__emit_definitions for something of type ref: what the
// type needs defined first, through pointers (which need only a
// declaration of the struct pointed to), arrays and modifiers.
func (u *unit) emitTag(ref uint32, depth int) bool {
	if u.steps++; u.steps > emitBudget || depth > emitDepth {
		u.p.Overflow(errTooLong)
		return false
	}
	pointer := false
	for n := 0; n <= emitDepth; n++ {
		t := u.m.Type(ref)
		if t == nil {
			return false
		}
		switch t.Kind {
		case cl.KindBase:
			if u.skipAtoms {
				return false
			}
			return u.emitBase(ref)
		case cl.KindPointer:
			pointer = true
			ref = t.Ref
			continue
		case cl.KindArray, cl.KindConst, cl.KindVolatile, cl.KindAtomic:
			ref = t.Ref
			continue
		case cl.KindTypedef:
			return u.emitTypedef(ref, depth+1)
		case cl.KindEnum:
			if t.Name != "" {
				return u.emitEnum(ref, "")
			}
			return false
		case cl.KindStruct, cl.KindUnion:
			if pointer {
				if t.Name == "" {
					u.emitDefinitions(ref, depth+1)
				}
				return u.emitFwd(ref)
			}
			if u.emitDefinitions(ref, depth+1) {
				u.emitType(ref, "", "")
			}
			return true
		case cl.KindFuncProto:
			return u.emitFtype(ref, depth+1)
		}
		return false
	}
	return false
}

// emitFtype is ftype__emit_definitions: the return type's and the
// parameters' definitions, and a newline after them when there were some.
func (u *unit) emitFtype(id uint32, depth int) bool {
	t := &u.m.Types[id]
	printed := u.emitTag(t.Ref, depth)
	for _, prm := range u.m.Params[t.First : t.First+t.N] {
		if u.emitTag(prm.Type, depth) {
			printed = true
		}
	}
	if printed {
		u.p.WriteString("\n")
	}
	return printed
}

// emitEnum is enumeration__emit_definitions, with suffix the name of the
// typedef an anonymous enum is printed in.
func (u *unit) emitEnum(id uint32, suffix string) bool {
	t := &u.m.Types[id]
	if u.defined[id] {
		return false
	}
	if u.hasDef(cl.KindEnum, t.Name) {
		u.defined[id] = true
		return false
	}
	u.p.PrintEnumNested(id, suffix)
	u.p.WriteString(";\n")
	// An enum without enumerators may be a declaration BTF did not mark:
	// pahole leaves it undefined, to print it again where it is needed.
	if t.N != 0 {
		u.addDefinition(id)
	}
	return true
}

// emitTypedef is typedef__emit_definitions.
func (u *unit) emitTypedef(id uint32, depth int) bool {
	def := &u.m.Types[id]
	if u.defined[id] {
		return false
	}
	if u.hasDef(cl.KindTypedef, def.Name) {
		u.defined[id] = true
		return false
	}
	if depth > emitDepth {
		return false
	}
	if t := u.m.Type(def.Ref); t != nil {
		switch t.Kind {
		case cl.KindAtomic, cl.KindArray:
			u.emitTag(t.Ref, depth+1)
		case cl.KindTypedef:
			u.emitTypedef(def.Ref, depth+1)
		case cl.KindPointer:
			pt := u.m.Type(t.Ref)
			if pt == nil {
				break
			}
			if pt.Kind == cl.KindTypedef {
				u.emitTypedef(t.Ref, depth+1)
			} else if pt.Kind == cl.KindFuncProto {
				u.emitFtype(t.Ref, depth+1)
			}
		case cl.KindFuncProto:
			u.emitFtype(def.Ref, depth+1)
		case cl.KindEnum:
			if t.Name == "" {
				u.p.WriteString("typedef ")
				u.emitEnum(def.Ref, def.Name)
				u.addDefinition(id)
				return true
			}
			u.emitEnum(def.Ref, "")
		case cl.KindStruct, cl.KindUnion:
			if t.Name == "" {
				u.emitDefinitions(def.Ref, depth+1)
				u.emitType(def.Ref, "typedef", def.Name)
				u.addDefinition(id)
				return true
			}
			if u.emitDefinitions(def.Ref, depth+1) {
				u.emitType(def.Ref, "", "")
			}
		}
	}
	// (The typedef may have been emitted meanwhile, as one of the
	// parameters of a function type it names.)
	if !u.defined[id] {
		u.p.PrintTypedefNested(id)
		u.p.WriteString(";\n")
	}
	u.addDefinition(id)
	return true
}

// emitType is type__emit: a struct or union printed with pahole's default
// options, as "prefix struct {...} suffix;" when given those.
func (u *unit) emitType(id uint32, prefix, suffix string) {
	if u.m.Types[id].Name == "" && suffix == "" && prefix == "" {
		return
	}
	u.p.PrintNested(id, prefix, suffix)
	u.p.WriteString("\n")
}

// emitFwd is type__emit_fwd_decl: "struct foo;" once a name.
func (u *unit) emitFwd(id uint32) bool {
	t := &u.m.Types[id]
	if u.declared[id] || t.Name == "" {
		return false
	}
	if u.fwds[t.Name] > 0 {
		u.declared[id] = true
		return false
	}
	if t.Kind == cl.KindUnion {
		u.p.WriteString("union ")
	} else {
		u.p.WriteString("struct ")
	}
	u.p.WriteString(t.Name)
	u.p.WriteString(";\n")
	u.declared[id] = true
	if !u.inFwd[id] && !u.inDefs[id] {
		u.inFwd[id], u.fwdName[id] = true, t.Name
		u.fwds[t.Name]++
	}
	return true
}

// emitBase is base_type__emit_definitions: the typedef of an "atomic_"
// base type (atomic_int, atomic_ullong, ...), once a name.
func (u *unit) emitBase(id uint32) bool {
	t := &u.m.Types[id]
	const prefix = "atomic_"
	if u.defined[id] || !strings.HasPrefix(t.Name, prefix) {
		return false
	}
	if u.baseDefs[t.Name] {
		u.defined[id] = true
		return false
	}
	u.p.WriteString("typedef _Atomic" + atomicBase(t.Name[len(prefix):]) + " " + t.Name + ";\n")
	u.baseDefs[t.Name] = true
	u.defined[id] = true
	return true
}

// atomicBase is the C type (after a blank) of the atomic_ base type named
// n after its prefix, as pahole spells it.
func atomicBase(n string) string {
	at := func(i int) byte {
		if i < len(n) {
			return n[i]
		}
		return 0
	}
	switch {
	case at(0) == 's' && at(1) != 'i' && at(1) != 'h':
		return " signed " + n[1:]
	case at(0) == 'l' && at(1) == 'l':
		return " long long"
	case at(0) == 'u':
		if at(1) == 'l' {
			if at(2) == 'l' {
				return " unsigned long long"
			}
			return " unsigned long"
		}
		return " unsigned " + stdintSimple(n[1:])
	case at(0) == 'b':
		return " _Bool"
	}
	return " " + stdintSimple(n)
}

// stdintSimple is base_type__stdint2simple.
func stdintSimple(name string) string {
	switch name {
	case "int32_t":
		return "int"
	case "int16_t":
		return "short"
	case "int8_t":
		return "char"
	case "int64_t":
		return "long"
	}
	return name
}
