package dwarf2btf

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
	"github.com/gobtf/gobtf/internal/elfio"
)

// The conversion's side of function encoding (package funcs): its options,
// the ELF function table, and what the collector reads of a unit's types
// (cuTypes as funcs.Types).

// funcOptions returns the options of the functions' encoding.
func funcOptions(o *Options) *funcs.Options {
	f := &o.Features
	return &funcs.Options{ConsistentFunc: f.ConsistentFunc, DeclTag: f.DeclTag, DeclTagKfuncs: f.DeclTagKfuncs,
		Attributes: f.Attributes, TrueSignature: f.TrueSignature, KabiPrefix: o.KabiPrefix, Jobs: max(1, o.Jobs),
		Log: funcsLog(o.Log)}
}

// funcsLog is log as the function encoding's log, nil when log is.
func funcsLog(log Log) funcs.Log {
	if log == nil {
		return nil
	}
	return log
}

// funcTable builds the table of f's functions from its symbols syms and
// the error reading them returned. A file without .symtab has no functions
// (pahole then describes none).
func funcTable(f *elfio.File, syms []elfio.Symbol, err error, o *funcs.Options) (*funcs.Table, error) {
	if err != nil {
		if errors.Is(err, elf.ErrNoSymbols) || errors.Is(err, elfio.ErrNoSymbols) {
			return funcs.NewTable(&funcs.ELF{Order: f.ByteOrder}, o)
		}
		if fe := (*elfio.FormatError)(nil); errors.As(err, &fe) {
			return nil, err // it names the section and the offset
		}
		return nil, fmt.Errorf("reading the symbol table: %w", err)
	}
	src := funcs.ELF{Symbols: syms, Order: f.ByteOrder}
	if o.DeclTagKfuncs {
		secs := f.Sections()
		for i := range secs {
			s := &secs[i]
			if s.Name != funcs.BTFIDsSection {
				continue
			}
			if s.Type != elf.SHT_NOBITS {
				b, err := f.SectionData(s)
				if err != nil {
					return nil, fmt.Errorf("section %s: %w", funcs.BTFIDsSection, err)
				}
				src.BTFIDs = b
			}
			src.BTFIDsAddr, src.BTFIDsIndex = s.Addr, uint32(i)
		}
	}
	return funcs.NewTable(&src, o)
}

// Spec returns the unit's BTF, as emit has written it.
func (c *cuTypes) Spec() *btf.Spec { return c.spec }

// TypeID returns the ID in the unit's BTF of the type DIE at offset off.
func (c *cuTypes) TypeID(off uint64) btf.TypeID { return c.resolve(off) }
