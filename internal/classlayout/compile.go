package classlayout

import "strings"

// This file is pahole's --compile: before a struct or union is printed,
// the definitions it needs (its members' types, the typedefs, enums and
// function types they go through) are printed first, and the structs it
// only points to are declared ("struct foo;"), so that the whole output is
// C a compiler takes. What pahole prints of each type is the layout view's
// (tagFprintf, comments included); the order and the choice of what to
// print before are dwarves_emit.c's, reproduced here.
//
// pahole keeps what it emitted in lists that outlive a unit (DWARF's
// compilation units share them, by name): definitions by kind and name,
// forward declarations by name, and "atomic_" base typedefs by name. A
// type also remembers, for its unit, that it was emitted or declared. A
// type sits in at most one list: declared, then defined, it moves from
// the declarations to the definitions, where no declaration lookup finds
// it any more, and pahole declares the name again for a later type of the
// same name. Those rules show in the output; emissions keeps them.

// emitKey is a definition's kind and name.
type emitKey struct {
	kind Kind
	name string
}

// emissions is what --compile has printed, across the units of a run.
type emissions struct {
	defs      map[emitKey]bool
	shadows   map[string]uint8 // by name: bit 1<<kind for each struct, union or enum kind defined
	fwds      map[string]int   // the names of the types in the declarations list
	baseDefs  map[string]bool  // the atomic_ base typedefs
	skipAtoms bool             // --skip_emitting_atomic_typedefs
}

func newEmissions(skipAtomic bool) *emissions {
	return &emissions{defs: map[emitKey]bool{}, shadows: map[string]uint8{}, fwds: map[string]int{},
		baseDefs: map[string]bool{}, skipAtoms: skipAtomic}
}

// unitEmit is the per-unit part: each type's flags, and which list holds
// it (and under which name it entered the declarations list).
type unitEmit struct {
	*emissions
	defined  []bool // definition_emitted
	declared []bool // fwd_decl_emitted
	inFwd    []bool
	fwdName  []string
	inDefs   []bool
	steps    int // emitTag's calls for the top-level type being emitted
}

// compileState returns the printer's --compile state, made on first use.
func (p *Printer) compileState() *unitEmit {
	if p.emit == nil {
		if p.emits == nil {
			p.emits = newEmissions(p.opt.SkipAtomicTypedefs)
		}
		n := len(p.m.Types)
		p.emit = &unitEmit{emissions: p.emits, defined: make([]bool, n), declared: make([]bool, n),
			inFwd: make([]bool, n), fwdName: make([]string, n), inDefs: make([]bool, n)}
	}
	return p.emit
}

// addDefinition records id as defined (type_emissions__add_definition).
func (e *unitEmit) addDefinition(m *Model, id uint32) {
	t := &m.Types[id]
	e.defined[id] = true
	if e.inFwd[id] {
		name := e.fwdName[id]
		if e.fwds[name]--; e.fwds[name] == 0 {
			delete(e.fwds, name)
		}
		e.inFwd[id] = false
	}
	e.inDefs[id] = true
	if t.Name != "" {
		e.defs[emitKey{t.Kind, t.Name}] = true
		if canShadow(t.Kind) {
			e.shadows[t.Name] |= 1 << t.Kind
		}
	}
}

func canShadow(k Kind) bool { return k == KindStruct || k == KindUnion || k == KindEnum }

// hasDef is type_emissions__find_definition.
func (e *unitEmit) hasDef(k Kind, name string) bool {
	return name != "" && e.defs[emitKey{k, name}]
}

// hasShadow is type_emissions__find_shadow_definition: a struct, union or
// enum of that name but another kind was defined.
func (e *unitEmit) hasShadow(k Kind, name string) bool {
	return name != "" && e.shadows[name]&^(1<<k) != 0
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

// compileClass is class_formatter under --compile: the definitions t
// needs, then t itself, then a newline.
func (p *Printer) compileClass(t *Type, id uint32, c *conf) {
	p.startType()
	p.compileState().steps = 0
	if p.emitDefinitions(id, 0) {
		p.tagFprintf(t, c) // (with the semicolon pahole's class_formatter adds)
	}
	p.byte1('\n')
}

// nested runs fn with the options pahole's emitter prints nested types
// with: its defaults (a conf_fprintf of zeroes) but for the cacheline size.
func (p *Printer) nested(fn func()) {
	saved := p.opt
	p.opt = Options{CachelineSize: saved.CachelineSize, Separator: saved.Separator, Compile: true,
		SkipAtomicTypedefs: saved.SkipAtomicTypedefs}
	fn()
	p.opt = saved
}

// emitDefinitions is type__emit_definitions for a struct or union: false
// when it was emitted before (in this unit, or by name in an earlier one).
func (p *Printer) emitDefinitions(id uint32, depth int) bool {
	e := p.compileState()
	t := &p.m.Types[id]
	if e.defined[id] {
		return false
	}
	if e.hasDef(t.Kind, t.Name) {
		e.defined[id] = true
		return false
	}
	if t.Kind == KindTypedef {
		return p.emitTypedef(id, depth)
	}
	if canShadow(t.Kind) && e.hasShadow(t.Kind, t.Name) {
		// pahole tells "union foo" from an earlier "struct foo" apart
		// by renaming it, for good.
		t.Name += "__1"
		if e.hasDef(t.Kind, t.Name) {
			e.defined[id] = true
			return false
		}
	}
	e.addDefinition(p.m, id)
	if t.Kind == KindStruct {
		p.markStructsAtUnnaturalOffsets(t)
	}
	if t.Kind != KindStruct && t.Kind != KindUnion {
		return true // (an enum -C names: its enumerators need nothing)
	}
	for _, mb := range p.m.MembersOf(t) {
		if p.emitTag(mb.Type, depth+1) {
			p.byte1('\n')
		}
	}
	return true
}

// emitTag is tag__emit_definitions for something of type ref: what the
// type needs defined first, through pointers (which need only a
// declaration of the struct pointed to), arrays and modifiers.
func (p *Printer) emitTag(ref uint32, depth int) bool {
	e := p.compileState()
	if e.steps++; e.steps > emitBudget || depth > emitDepth {
		if !p.overflow {
			p.overflow, p.overflowErr = true, errTooBig{"(--compile)"}
		}
		return false
	}
	pointer := false
	for n := 0; n <= emitDepth; n++ {
		t := p.m.Type(ref)
		if t == nil {
			return false
		}
		switch t.Kind {
		case KindBase:
			if e.skipAtoms {
				return false
			}
			return p.emitBase(ref)
		case KindPointer:
			pointer = true
			ref = t.Ref
			continue
		case KindArray, KindConst, KindVolatile, KindAtomic:
			ref = t.Ref
			continue
		case KindTypedef:
			return p.emitTypedef(ref, depth+1)
		case KindEnum:
			if t.Name != "" {
				return p.emitEnum(ref, null)
			}
			return false
		case KindStruct, KindUnion:
			if pointer {
				if t.Name == "" {
					p.emitDefinitions(ref, depth+1)
				}
				return p.emitFwd(ref)
			}
			if p.emitDefinitions(ref, depth+1) {
				p.emitType(ref, null, null)
			}
			return true
		case KindFuncProto:
			return p.emitFtype(ref, depth+1)
		}
		return false
	}
	return false
}

// emitFtype is ftype__emit_definitions: the return type's and the
// parameters' definitions, and a newline after them when there were some.
func (p *Printer) emitFtype(id uint32, depth int) bool {
	t := &p.m.Types[id]
	printed := p.emitTag(t.Ref, depth)
	for _, prm := range p.m.Params[t.First : t.First+t.N] {
		if p.emitTag(prm.Type, depth) {
			printed = true
		}
	}
	if printed {
		p.byte1('\n')
	}
	return printed
}

// emitEnum is enumeration__emit_definitions, with suffix the name of the
// typedef an anonymous enum is printed in.
func (p *Printer) emitEnum(id uint32, suffix string) bool {
	e := p.compileState()
	t := &p.m.Types[id]
	if e.defined[id] {
		return false
	}
	if e.hasDef(KindEnum, t.Name) {
		e.defined[id] = true
		return false
	}
	p.nested(func() {
		c := conf{prefix: null, suffix: suffix}
		p.enumFprintf(t, &c)
	})
	p.str(";\n")
	// An enum without enumerators may be a declaration BTF did not mark:
	// pahole leaves it undefined, to print it again where it is needed.
	if t.N != 0 {
		e.addDefinition(p.m, id)
	}
	return true
}

// emitTypedef is typedef__emit_definitions.
func (p *Printer) emitTypedef(id uint32, depth int) bool {
	e := p.compileState()
	def := &p.m.Types[id]
	if e.defined[id] {
		return false
	}
	if e.hasDef(KindTypedef, def.Name) {
		e.defined[id] = true
		return false
	}
	if depth > emitDepth {
		return false
	}
	if t := p.m.Type(def.Ref); t != nil {
		switch t.Kind {
		case KindAtomic, KindArray:
			p.emitTag(t.Ref, depth+1)
		case KindTypedef:
			p.emitTypedef(def.Ref, depth+1)
		case KindPointer:
			pt := p.m.Type(t.Ref)
			if pt == nil {
				break
			}
			if pt.Kind == KindTypedef {
				p.emitTypedef(t.Ref, depth+1)
			} else if pt.Kind == KindFuncProto {
				p.emitFtype(t.Ref, depth+1)
			}
		case KindFuncProto:
			p.emitFtype(def.Ref, depth+1)
		case KindEnum:
			if t.Name == "" {
				p.str("typedef ")
				p.emitEnum(def.Ref, def.Name)
				e.addDefinition(p.m, id)
				return true
			}
			p.emitEnum(def.Ref, null)
		case KindStruct, KindUnion:
			if t.Name == "" {
				p.emitDefinitions(def.Ref, depth+1)
				p.emitType(def.Ref, "typedef", def.Name)
				e.addDefinition(p.m, id)
				return true
			}
			if p.emitDefinitions(def.Ref, depth+1) {
				p.emitType(def.Ref, null, null)
			}
		}
	}
	// (The typedef may have been emitted meanwhile, as one of the
	// parameters of a function type it names.)
	if !e.defined[id] {
		p.nested(func() {
			c := p.topConf(def)
			p.typedefFprintf(def, &c, 0)
		})
		p.str(";\n")
	}
	e.addDefinition(p.m, id)
	return true
}

// emitType is type__emit: a struct or union printed with pahole's default
// options, as "prefix struct {...} suffix;" when given those.
func (p *Printer) emitType(id uint32, prefix, suffix string) {
	t := &p.m.Types[id]
	if t.Name == "" && suffix == null && prefix == null {
		return
	}
	p.nested(func() {
		c := p.topConf(t)
		c.prefix, c.suffix = prefix, suffix
		p.tagFprintf(t, &c)
	})
	p.byte1('\n')
}

// emitFwd is type__emit_fwd_decl: "struct foo;" once a name.
func (p *Printer) emitFwd(id uint32) bool {
	e := p.compileState()
	t := &p.m.Types[id]
	if e.declared[id] || t.Name == "" {
		return false
	}
	if e.fwds[t.Name] > 0 {
		e.declared[id] = true
		return false
	}
	if t.Kind == KindUnion {
		p.str("union ")
	} else {
		p.str("struct ")
	}
	p.str(t.Name)
	p.str(";\n")
	e.declared[id] = true
	if !e.inFwd[id] && !e.inDefs[id] {
		e.inFwd[id], e.fwdName[id] = true, t.Name
		e.fwds[t.Name]++
	}
	return true
}

// emitBase is base_type__emit_definitions: the typedef of an "atomic_"
// base type (atomic_int, atomic_ullong, ...), once a name.
func (p *Printer) emitBase(id uint32) bool {
	e := p.compileState()
	t := &p.m.Types[id]
	const prefix = "atomic_"
	if e.defined[id] || !strings.HasPrefix(t.Name, prefix) {
		return false
	}
	if e.baseDefs[t.Name] {
		e.defined[id] = true
		return false
	}
	p.str("typedef _Atomic")
	n := t.Name[len(prefix):]
	at := func(i int) byte {
		if i < len(n) {
			return n[i]
		}
		return 0
	}
	switch {
	case at(0) == 's' && at(1) != 'i' && at(1) != 'h':
		p.str(" signed ")
		p.str(n[1:])
	case at(0) == 'l' && at(1) == 'l':
		p.str(" long long")
	case at(0) == 'u':
		p.str(" unsigned")
		if at(1) == 'l' {
			p.str(" long")
			if at(2) == 'l' {
				p.str(" long")
			}
		} else {
			p.byte1(' ')
			p.str(stdintSimple(n[1:]))
		}
	case at(0) == 'b':
		p.str(" _Bool")
	default:
		p.byte1(' ')
		p.str(stdintSimple(n))
	}
	p.byte1(' ')
	p.str(t.Name)
	p.str(";\n")
	e.baseDefs[t.Name] = true
	e.defined[id] = true
	return true
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
