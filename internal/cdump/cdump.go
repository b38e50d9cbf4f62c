// Package cdump prints BTF as a C header, the vmlinux.h that
// "bpftool btf dump file FILE format c" writes.
//
// By default the output is Debian's bpftool 7.1's byte for byte (bpftool
// 7.1.0+6.1, built with the Linux 6.1 stable tree's libbpf: libbpf 1.1's
// btf_dump without its enum mode attributes, with the later "(void)" for
// prototypes without parameters): the header guard and the
// preserve_access_index pragma around every type of the Spec (base types
// included for a split Spec), each named type defined once, after the types
// it holds by value, with forward declarations where only a pointer needs a
// type early, anonymous types written inline, duplicate names given "___N"
// suffixes, and struct layouts (bitfields, padding members, packed structs)
// reconstructed from offsets the way libbpf's btf_dump does. [Options]
// select bpftool 7.6's header instead (modern.go).
//
// The work is three walks per type, in ID order: a topological ordering that
// queues the named types a type depends on (order.go), the emission of each
// queued type and the forward declarations it needs (emit.go, enum.go,
// pad.go), and the C declarator of every member, parameter and typedef
// (decl.go). Sizes and alignments come from layout.go and unique names from
// names.go.
package cdump

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/gobtf/gobtf/internal/btf"
)

// Header and footer bpftool writes around the types.
const (
	fileHeader = "#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n\n" +
		"#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n" +
		"#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n" +
		"#endif\n\n"
	fileFooter = "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n\n" +
		"#endif /* __VMLINUX_H__ */\n"
)

// flushAt is how many bytes of output are gathered before they are written.
const flushAt = 64 << 10

// errBudget reports input whose header would be out of all proportion to its
// size (types that fan out exponentially, or a struct of gigabytes of padding).
var errBudget = errors.New("cdump: output out of proportion to the BTF (pathological type graph)")

// Write prints every type of s (a split Spec's base types too, as bpftool
// does) as a C header to w, as Debian's bpftool 7.1 does.
//
// It returns an error, and may have written part of the header, when the
// types cannot be ordered: a struct that holds itself by value (libbpf's
// "unsatisfiable type cycle"), a loop of pointers, typedefs or modifiers that
// no struct breaks, or a reference to a type that does not exist.
func Write(w io.Writer, s *btf.Spec) error { return WriteOptions(w, s, Options{}) }

// Options select the bpftool release whose header WriteOptions reproduces
// and, for bpftool 7.6, its "format c" options.
type Options struct {
	// Bpftool76 prints as bpftool 7.6 (libbpf 1.6) does: its kfunc macros
	// and "BPF kfuncs" block of extern prototypes, enums of one or eight
	// bytes with mode attributes, type tags with kind_flag as plain
	// attributes, and the types sorted (see Unsorted). The zero Options
	// print as Debian's bpftool 7.1.
	Bpftool76 bool
	// Unsorted keeps bpftool 7.6's types in ID order ("format c
	// unsorted").
	Unsorted bool
	// RootIDs, when not empty, limits the header to these types and those
	// they need, in this order ("root_id ID", repeated), without the kfunc
	// block. As in bpftool, there may be at most 16 of them, none twice.
	RootIDs []btf.TypeID
}

// maxRoots is how many root types bpftool accepts.
const maxRoots = 16

// WriteOptions is Write for the bpftool release and options opts selects.
func WriteOptions(w io.Writer, s *btf.Spec, opts Options) error {
	p, err := newPrinter(w, s)
	if err != nil {
		return err
	}
	p.modern = opts.Bpftool76
	if len(opts.RootIDs) > maxRoots {
		return fmt.Errorf("cdump: %d root types, at most %d", len(opts.RootIDs), maxRoots)
	}
	for i, id := range opts.RootIDs {
		if id > p.last {
			return fmt.Errorf("cdump: root type %d out of range 0-%d", id, p.last)
		}
		if slices.Contains(opts.RootIDs[:i], id) {
			return fmt.Errorf("cdump: root type %d given twice", id)
		}
	}
	p.buf = append(p.buf, fileHeader...)
	if p.modern {
		p.buf = append(p.buf, kfuncMacros...)
	}
	order := opts.RootIDs
	if len(order) == 0 && p.modern && !opts.Unsorted {
		if order, err = p.sortedOrder(); err != nil {
			return err
		}
	}
	if len(order) == 0 {
		for id := btf.TypeID(1); id <= p.last; id++ {
			if err := p.dumpOne(id); err != nil {
				return err
			}
		}
	} else {
		for _, id := range order {
			if err := p.dumpOne(id); err != nil {
				return err
			}
		}
	}
	if p.modern && len(opts.RootIDs) == 0 {
		p.emitKfuncs()
		if p.err != nil {
			p.flush()
			return p.err
		}
	}
	p.buf = append(p.buf, fileFooter...)
	return p.flush()
}

// dumpOne emits root and what it needs, flushing the output now and then.
func (p *printer) dumpOne(root btf.TypeID) error {
	if err := p.dumpType(root); err != nil {
		p.flush()
		return err
	}
	if len(p.buf) >= flushAt {
		return p.flush()
	}
	return nil
}

// typeState is libbpf's per-type bookkeeping: where the type is in the
// ordering walk and in the emission, whether its forward declaration is out,
// and whether any type refers to it.
type typeState struct {
	order      uint8
	emit       uint8
	fwdEmitted bool
	referenced bool
}

// Ordering and emission states.
const (
	notOrdered uint8 = iota
	ordering
	ordered
)

const (
	notEmitted uint8 = iota
	emitting
	emitted
)

// printer holds one header's state. Output is appended to buf; err is sticky
// and stops the walks once set.
type printer struct {
	s     *btf.Spec
	w     io.Writer
	last  btf.TypeID
	ptrSz int

	states []typeState
	queue  []btf.TypeID // named types to emit for the current root
	stack  []btf.TypeID // declarator chains (decl.go)

	names  // names.go
	aligns *btf.Alignments

	modern bool // print as bpftool 7.6 (Options.Bpftool76)
	budget int  // steps left before errBudget
	buf    []byte
	werr   error
	err    error
}

func newPrinter(w io.Writer, s *btf.Spec) (*printer, error) {
	last := s.TypeCount()
	p := &printer{
		s:      s,
		w:      w,
		last:   last,
		states: make([]typeState, last+1),
		buf:    make([]byte, 0, flushAt+4096),
	}
	words := 0
	for b := s; b != nil; b = b.Base() {
		words += len(b.Words())
	}
	p.budget = 1<<22 + 64*words
	if err := p.markReferenced(); err != nil {
		return nil, err
	}
	p.ptrSz = int(s.PointerSize())
	p.aligns = btf.NewAlignments(s, p.ptrSz)
	p.states[0] = typeState{order: ordered, emit: emitted}
	return p, nil
}

// flush writes out the gathered output.
func (p *printer) flush() error {
	if p.werr == nil && len(p.buf) > 0 {
		if _, err := p.w.Write(p.buf); err != nil {
			p.werr = fmt.Errorf("cdump: writing header: %w", err)
		}
	}
	p.buf = p.buf[:0]
	return p.werr
}

// step spends one unit of the budget and reports whether the walk may go on.
func (p *printer) step() bool {
	if p.err != nil {
		return false
	}
	p.budget--
	if p.budget < 0 {
		p.err = errBudget
		return false
	}
	return true
}

// dumpType orders the types root needs and emits those not emitted yet.
func (p *printer) dumpType(root btf.TypeID) error {
	p.queue = p.queue[:0]
	if _, err := p.orderType(root, false, 0); err != nil {
		return err
	}
	for _, id := range p.queue {
		p.emitType(id, 0, 0)
		if p.err != nil {
			return p.err
		}
	}
	return p.err
}

// typ returns type id (nil for void).
func (p *printer) typ(id btf.TypeID) btf.Type { return p.s.Type(id) }

// kind returns the kind of type id (KindUnknown for void).
func (p *printer) kind(id btf.TypeID) btf.Kind { return p.typ(id).Kind() }

// name returns the raw name of a type, member, parameter or enum value.
func (p *printer) str(off uint32) string {
	s, ok := p.s.Strings().Lookup(off)
	if !ok {
		return "(null)"
	}
	return s
}
