package elfio

import "encoding/binary"

// relaFast reports whether t has the layout applyRelaFast handles: 64-bit
// little-endian RELA entries of the standard 24 bytes. That is every
// kernel module of x86-64, arm64, riscv64 and ppc64le, whose .debug_info
// alone carries hundreds of thousands of entries (730 k in xfs.ko).
func (t *relocTable) relaFast() bool {
	return t.is64 && t.rela && t.le && t.es == 24
}

// symCacheSize is the number of slots of applyRelaFast's symbol cache.
const symCacheSize = 256

// applyRelaFast is applyRelocs for a table relaFast accepts. It reads each
// entry with fixed-width loads and patches the 4- and 8-byte fields of
// opSet rules in place; any other entry, and any field that does not fit
// in dst, goes through applyReloc, so the bytes written and the errors
// returned are exactly applyRelocs'.
//
// Why a cache of symbol values: debug sections relocate against a handful
// of section symbols (.debug_str, .debug_abbrev, .debug_line, ...) and,
// for addresses, the symbols of code sections, interleaved, so remembering
// only the last symbol missed often and decoded the symbol entry again.
// The cache is direct-mapped by symbol number, on the stack; symbol 0 is
// never looked up, so a zero key marks a free slot.
func (f *File) applyRelaFast(dst []byte, t *relocTable, lo, hi int, bases []uint64, window *[2]uint64, tgt *Section) error {
	var keys, vals [symCacheSize]uint64
	var sym Symbol
	data, rules, nsyms := t.data, t.rules, uint64(t.syms.n)
	n := uint64(len(dst))
	for i := lo; i < hi; i++ {
		e := data[i*24 : i*24+24 : i*24+24]
		rOff := binary.LittleEndian.Uint64(e)
		info := binary.LittleEndian.Uint64(e[8:])
		addend := binary.LittleEndian.Uint64(e[16:])
		symNo, typ := info>>32, uint32(info)
		var rule relocRule
		if uint64(typ) < uint64(len(rules)) {
			rule = rules[typ]
		}
		if rule.op == opNone {
			continue // see applyRelocs
		}
		if window != nil && (rule.op == opSetULEB || rule.op == opSubULEB ||
			rOff < window[0] || rOff > window[1] || window[1]-rOff < uint64(rule.size)) {
			return errOutsideWindow
		}
		var s uint64
		if symNo != 0 {
			if symNo >= nsyms {
				return f.secErrorf(t.sec, int64(i*24), nil, "relocation symbol %d out of range (%d symbols)", symNo, nsyms)
			}
			slot := symNo % symCacheSize
			if keys[slot] == symNo {
				s = vals[slot]
			} else {
				if _, ok := f.symEntry(t.syms, int(symNo), &sym); !ok {
					return f.secErrorf(t.sec, int64(i*24), nil, "symbol %d: SHN_XINDEX without an entry in .symtab_shndx", symNo)
				}
				s = sym.Value
				if int(sym.Section) < len(bases) {
					s += bases[sym.Section]
				}
				keys[slot], vals[slot] = symNo, s
			}
		}
		if rule.op == opSet && n >= 8 && rOff <= n-8 {
			switch rule.size {
			case 4:
				binary.LittleEndian.PutUint32(dst[rOff:], uint32(s+addend))
				continue
			case 8:
				binary.LittleEndian.PutUint64(dst[rOff:], s+addend)
				continue
			}
		}
		if err := f.applyReloc(dst, rOff, rule, s, int64(addend), t, tgt, typ); err != nil {
			return err
		}
	}
	return nil
}
