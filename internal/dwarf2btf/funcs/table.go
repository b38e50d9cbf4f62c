package funcs

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/gobtf/gobtf/internal/elfio"
)

// The ELF function table decides which DWARF functions may become FUNCs: a
// function is described only if the symbol table has an STT_FUNC symbol of
// its name. pahole builds the table this way (elf_functions__collect):
//
//   - every STT_FUNC symbol of .symtab counts, defined or not, except those
//     whose suffix (from the first '.') contains ".cold" or ".part": those
//     are pieces of functions split off by the compiler, not functions;
//   - a symbol is filed under its name cut at the first '.', so "foo",
//     "foo.isra.0" and "foo.constprop.1" all belong to the function "foo";
//   - the table is sorted by name (bytewise) and the symbols of one name are
//     merged, in symbol-table order;
//   - a name whose symbols sit at different addresses is ambiguous: which of
//     them a DWARF description belongs to cannot be told, so it is never
//     encoded. pahole decides this while merging, when it moves on to the
//     next name, so the very last name of the table is never marked; gobtf
//     reproduces that.

// elfFuncSym is one symbol of an ELF function.
type elfFuncSym struct {
	name string // the full symbol name, suffix included
	addr uint64 // st_value
}

// elfFunc is one entry of the table: a name and its symbols.
type elfFunc struct {
	name       string
	first, n   int32 // the function's symbols are syms[first : first+n]
	ambiguous  bool  // its symbols have different addresses
	kfunc      bool  // listed in a kfunc set of .BTF_ids
	kfuncFlags uint32
}

// Table is the ELF function table, sorted by name.
type Table struct {
	funcs []elfFunc
	syms  []elfFuncSym

	// byName maps each name to its index in funcs. Every function a unit
	// describes, inline ones from headers included, is looked up (several
	// hundred thousand lookups for a kernel, from all workers at once): a
	// hash lookup saves the string comparisons of a binary search.
	byName map[string]int32
}

// ELF is what the function table and the kfunc scan read of an ELF file.
type ELF struct {
	Symbols []elfio.Symbol // .symtab in order, the null symbol 0 included or not
	Order   binary.ByteOrder

	// The kfunc sets, read with decl_tag_kfuncs: the contents of
	// .BTF_ids (nil when it has none), its sh_addr and its section index.
	BTFIDs      []byte
	BTFIDsAddr  uint64
	BTFIDsIndex uint32
}

// BTFIDsSection is the section of the kernel's BTF ID sets, which name its
// kfuncs (kfuncs.go).
const BTFIDsSection = ".BTF_ids"

// NewTable builds the function table from the symbols of src, then marks
// the kfuncs when the decl_tag_kfuncs feature asks for them. A file
// without symbols has no functions (pahole then describes none).
func NewTable(src *ELF, opts *Options) (*Table, error) {
	type entry struct {
		name string
		sym  elfFuncSym
	}
	isFunc := func(s *elfio.Symbol) bool {
		return s.Type() == elf.STT_FUNC && s.Name != "" && !hasNonFuncSuffix(s.Name)
	}
	n := 0
	for i := range src.Symbols {
		if isFunc(&src.Symbols[i]) {
			n++
		}
	}
	// Sized exactly: appending would leave garbage of the same size, in
	// memory the process has not touched before, which costs page faults.
	ents := make([]entry, 0, n)
	order := make([]sortKey, 0, n)
	for i := range src.Symbols {
		s := &src.Symbols[i]
		if !isFunc(s) {
			continue
		}
		name := s.Name
		if i := strings.IndexByte(name, '.'); i >= 0 {
			name = name[:i]
		}
		order = append(order, sortKey{nameKey(name), nameKey(tail(name, 8)), uint32(len(ents))})
		ents = append(ents, entry{name, elfFuncSym{s.Name, s.Value}})
	}
	// Sorted by name, symbols of one name in symbol table order (their
	// index in ents): a stable sort, done as an unstable one on (name,
	// index). The sort moves small records, not the entries, and most
	// comparisons are decided by their keys, without reading the names
	// from the string table, all over memory (BenchmarkElfFuncsVmlinux).
	slices.SortFunc(order, func(a, b sortKey) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		if a.key2 != b.key2 {
			return cmp.Compare(a.key2, b.key2)
		}
		// Equal keys: the names' first 16 bytes are equal (symbol names
		// hold no NUL byte, so a shorter name's padding differs from a
		// longer name's bytes), and what follows decides.
		if c := strings.Compare(tail(ents[a.idx].name, 16), tail(ents[b.idx].name, 16)); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	t := &Table{syms: make([]elfFuncSym, len(ents))}
	for i, o := range order {
		e := &ents[o.idx]
		t.syms[i] = e.sym
		if n := len(t.funcs); n > 0 && t.funcs[n-1].name == e.name {
			t.funcs[n-1].n++
			continue
		}
		if n := len(t.funcs); n > 0 {
			t.funcs[n-1].ambiguous = t.addressesDiffer(&t.funcs[n-1])
		}
		t.funcs = append(t.funcs, elfFunc{name: e.name, first: int32(i), n: 1})
	}
	t.byName = make(map[string]int32, len(t.funcs))
	for i := range t.funcs {
		t.byName[t.funcs[i].name] = int32(i)
	}
	if opts.DeclTagKfuncs {
		if err := t.markKfuncs(src); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// sortKey is a function's place in NewTable' sort: the keys of its
// name's first and second 8 bytes (nameKey) and its index in symbol table
// order.
type sortKey struct {
	key, key2 uint64
	idx       uint32
}

// tail returns s from byte i on, or "" when s is shorter.
func tail(s string, i int) string { return s[min(i, len(s)):] }

// nameKey returns the first 8 bytes of name as a big-endian number, with
// zeros after the end of a shorter name: for names without NUL bytes, keys
// that differ order as strings.Compare orders the names.
func nameKey(name string) uint64 {
	var b [8]byte
	copy(b[:], name)
	return binary.BigEndian.Uint64(b[:])
}

// addressesDiffer reports whether f's symbols are at more than one address.
// As in pahole, an address of 0 does not count as a first address.
func (t *Table) addressesDiffer(f *elfFunc) bool {
	var addr uint64
	for _, s := range t.symsOf(f) {
		if addr != 0 && addr != s.addr {
			return true
		}
		addr = s.addr
	}
	return false
}

// Len returns the number of functions of the table: the names of its
// symbols.
func (t *Table) Len() int { return len(t.funcs) }

// symsOf returns f's symbols.
func (t *Table) symsOf(f *elfFunc) []elfFuncSym { return t.syms[f.first : f.first+f.n] }

// find returns the index of the function named name, or -1.
func (t *Table) find(name string) int32 {
	if i, ok := t.byName[name]; ok {
		return i
	}
	return -1
}

// suffixHas reports whether the part of name from its first '.' contains
// one of the given strings.
func suffixHas(name string, subs ...string) bool {
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return false
	}
	for _, s := range subs {
		if strings.Contains(name[i:], s) {
			return true
		}
	}
	return false
}

// hasNonFuncSuffix reports symbols that are parts of functions: partial
// inlining (".part") and cold paths moved away (".cold").
func hasNonFuncSuffix(name string) bool { return suffixHas(name, ".cold", ".part") }

// hasOptimizedSuffix reports symbols of clones whose calling convention the
// compiler may have changed (".constprop", ".isra").
func hasOptimizedSuffix(name string) bool { return suffixHas(name, ".constprop", ".isra") }
