package elfio

// relaFast reports whether t has the layout applyRelocsWith reads with
// fixed-width loads: 64-bit little-endian RELA entries of the standard 24
// bytes. That is every kernel module of x86-64, arm64, riscv64 and ppc64le,
// whose .debug_info alone carries hundreds of thousands of entries (730 k in
// xfs.ko).
func (t *relocTable) relaFast() bool {
	return t.is64 && t.rela && t.le && t.es == 24
}

// symCacheSize is the number of slots of a symCache.
const symCacheSize = 256

// symCache holds the values of the symbols a relocation table named last,
// direct-mapped by symbol number; symbol 0 is never looked up, so a zero
// key marks a free slot.
//
// Why: debug sections relocate against a handful of section symbols
// (.debug_str, .debug_abbrev, .debug_line, ...) and, for addresses, the
// symbols of code sections, interleaved, so remembering only the last
// symbol missed often and decoded the symbol entry again.
type symCache struct {
	keys, vals [symCacheSize]uint64
}

// get returns S for symbol symNo when c holds it, and 0 for symbol 0.
func (c *symCache) get(symNo uint64) (uint64, bool) {
	if symNo == 0 {
		return 0, true
	}
	slot := symNo % symCacheSize
	return c.vals[slot], c.keys[slot] == symNo
}

// symValue returns S for entry i of t, which names symbol symNo (not 0, and
// not in c): the symbol's value, plus bases[k] when its section k has been
// placed at that offset of a concatenation. It enters the value in c.
func (f *File) symValue(c *symCache, t *relocTable, i int, symNo uint64, bases []uint64) (uint64, error) {
	slot := symNo % symCacheSize
	if symNo >= uint64(t.syms.n) {
		return 0, f.secErrorf(t.sec, int64(i*t.es), nil, "relocation symbol %d out of range (%d symbols)", symNo, t.syms.n)
	}
	var sym Symbol
	if _, ok := f.symEntry(t.syms, int(symNo), &sym); !ok {
		return 0, f.secErrorf(t.sec, int64(i*t.es), nil, "symbol %d: SHN_XINDEX without an entry in .symtab_shndx", symNo)
	}
	v := sym.Value
	if int(sym.Section) < len(bases) {
		v += bases[sym.Section]
	}
	c.keys[slot], c.vals[slot] = symNo, v
	return v, nil
}
