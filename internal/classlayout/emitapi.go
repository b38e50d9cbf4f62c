package classlayout

// This file is what an Emitter (pahole's --compile, package compile) sees
// of a Printer: the unit's model, the output, and pahole's printing of one
// type, at the top level with the run's options or nested in the emitted
// definitions with pahole's defaults.

// Emitter prints, before a struct or union the run prints, the
// definitions and declarations it needs (pahole's --compile). Class is
// pahole's class_formatter under --compile, for type id of p's unit,
// prefix and suffix being "typedef" and its name for an anonymous struct
// printed as a typedef (null strings, "", otherwise). The run calls it for
// the units in order; with --sort, back and forth between kept units.
type Emitter interface {
	Class(p *Printer, id uint32, prefix, suffix string)
}

// EmitState returns what the emitter keeps for this printer's unit (nil
// at first); SetEmitState sets it. It lives as long as the printer.
func (p *Printer) EmitState() any { return p.emitState }

// SetEmitState sets what EmitState returns.
func (p *Printer) SetEmitState(v any) { p.emitState = v }

// Model returns the unit's model. An emitter may rename a struct, union or
// enum (pahole's disambiguation of a "union foo" after a "struct foo").
func (p *Printer) Model() *Model { return p.m }

// WriteString appends s to the output.
func (p *Printer) WriteString(s string) { p.str(s) }

// PrintTop prints type id as pahole's tag__fprintf does with the run's
// options, "prefix struct {...} suffix;" when prefix and suffix are not "".
func (p *Printer) PrintTop(id uint32, prefix, suffix string) {
	t := &p.m.Types[id]
	c := p.topConf(t)
	c.prefix, c.suffix = orNullStr(prefix), orNullStr(suffix)
	p.tagFprintf(t, &c)
}

// PrintNested prints type id as PrintTop does, with pahole's default
// options (a zeroed conf_fprintf) but for the cacheline size: how pahole's
// emitter prints the definitions it emits.
func (p *Printer) PrintNested(id uint32, prefix, suffix string) {
	p.nested(func() { p.PrintTop(id, prefix, suffix) })
}

// PrintEnumNested prints enum id as enumeration__fprintf does with
// pahole's defaults, suffix (when not "") after its closing brace.
func (p *Printer) PrintEnumNested(id uint32, suffix string) {
	p.nested(func() {
		c := conf{prefix: null, suffix: orNullStr(suffix)}
		p.enumFprintf(&p.m.Types[id], &c)
	})
}

// PrintTypedefNested prints typedef id as typedef__fprintf does with
// pahole's defaults (no semicolon).
func (p *Printer) PrintTypedefNested(id uint32) {
	p.nested(func() {
		t := &p.m.Types[id]
		c := p.topConf(t)
		p.typedefFprintf(t, &c, 0)
	})
}

// MarkUnnaturalAlignments is type__check_structs_at_unnatural_alignments:
// the structs that struct id holds at offsets their natural alignment
// forbids are marked packed.
func (p *Printer) MarkUnnaturalAlignments(id uint32) {
	if t := &p.m.Types[id]; t.Kind == KindStruct {
		p.markStructsAtUnnaturalOffsets(t)
	}
}

// Overflow ends the run with err after this unit, unless an earlier
// overflow did: an emitter's walk that went too long (corrupt input).
func (p *Printer) Overflow(err error) {
	if !p.overflow {
		p.overflow, p.overflowErr = true, err
	}
}

// nested runs fn with the options pahole's emitter prints nested types
// with: its defaults (a conf_fprintf of zeroes) but for the cacheline size.
func (p *Printer) nested(fn func()) {
	saved := p.opt
	p.opt = Options{CachelineSize: saved.CachelineSize, Separator: saved.Separator, Emitter: saved.Emitter}
	fn()
	p.opt = saved
}

func orNullStr(s string) string {
	if s == "" {
		return null
	}
	return s
}
