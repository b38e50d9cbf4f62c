package elfio

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// relocOp is what a relocation does to the bytes of its field, given the
// value v = S + A (symbol value plus addend).
type relocOp uint8

const (
	opNone    relocOp = iota // nothing (R_*_NONE, linker-relaxation markers)
	opSet                    // field = v
	opAdd                    // field += v
	opSub                    // field -= v
	opSet6                   // low 6 bits of the byte = v
	opSub6                   // low 6 bits of the byte -= v
	opSetULEB                // the ULEB128 already in place, same length, = v
	opSubULEB                // the ULEB128 already in place -= v
)

// relocRule is how one relocation type of one machine is applied: its
// operation and the width in bytes of the field it patches.
type relocRule struct {
	op   relocOp
	size uint8
}

// relocRules lists, per machine, the relocation types that occur in debug
// sections of relocatable objects: absolute addresses and section offsets,
// plus RISC-V's label differences (ADD/SUB pairs and friends, emitted
// because linker relaxation can move code). Types mean what the processor
// supplements to the ELF ABI say. Any other type is left unapplied, as
// libdwfl (and so pahole) leaves it: compilers do put such relocations in
// debug sections, e.g. gcc's R_386_GOTOFF in the DWARF expression of a
// call-site parameter of i386 position-independent code, and libdwfl
// relocates debug sections "partially", skipping the types it cannot apply.
var relocRules = map[elf.Machine]map[uint32]relocRule{
	elf.EM_X86_64: {
		uint32(elf.R_X86_64_NONE):     {opNone, 0},
		uint32(elf.R_X86_64_64):       {opSet, 8},
		uint32(elf.R_X86_64_32):       {opSet, 4},
		uint32(elf.R_X86_64_32S):      {opSet, 4},
		uint32(elf.R_X86_64_16):       {opSet, 2},
		uint32(elf.R_X86_64_8):        {opSet, 1},
		uint32(elf.R_X86_64_DTPOFF64): {opSet, 8},
		uint32(elf.R_X86_64_DTPOFF32): {opSet, 4},
	},
	elf.EM_386: {
		uint32(elf.R_386_NONE):       {opNone, 0},
		uint32(elf.R_386_32):         {opSet, 4},
		uint32(elf.R_386_TLS_LDO_32): {opSet, 4},
	},
	elf.EM_AARCH64: {
		uint32(elf.R_AARCH64_NONE):      {opNone, 0},
		uint32(elf.R_AARCH64_ABS64):     {opSet, 8},
		uint32(elf.R_AARCH64_ABS32):     {opSet, 4},
		uint32(elf.R_AARCH64_ABS16):     {opSet, 2},
		uint32(elf.R_AARCH64_P32_ABS32): {opSet, 4},
	},
	elf.EM_ARM: {
		uint32(elf.R_ARM_NONE):  {opNone, 0},
		uint32(elf.R_ARM_ABS32): {opSet, 4},
	},
	elf.EM_RISCV: {
		uint32(elf.R_RISCV_NONE):         {opNone, 0},
		uint32(elf.R_RISCV_RELAX):        {opNone, 0},
		uint32(elf.R_RISCV_32):           {opSet, 4},
		uint32(elf.R_RISCV_64):           {opSet, 8},
		uint32(elf.R_RISCV_ADD8):         {opAdd, 1},
		uint32(elf.R_RISCV_ADD16):        {opAdd, 2},
		uint32(elf.R_RISCV_ADD32):        {opAdd, 4},
		uint32(elf.R_RISCV_ADD64):        {opAdd, 8},
		uint32(elf.R_RISCV_SUB8):         {opSub, 1},
		uint32(elf.R_RISCV_SUB16):        {opSub, 2},
		uint32(elf.R_RISCV_SUB32):        {opSub, 4},
		uint32(elf.R_RISCV_SUB64):        {opSub, 8},
		uint32(elf.R_RISCV_SUB6):         {opSub6, 1},
		uint32(elf.R_RISCV_SET6):         {opSet6, 1},
		uint32(elf.R_RISCV_SET8):         {opSet, 1},
		uint32(elf.R_RISCV_SET16):        {opSet, 2},
		uint32(elf.R_RISCV_SET32):        {opSet, 4},
		uint32(elf.R_RISCV_TLS_DTPREL32): {opSet, 4},
		uint32(elf.R_RISCV_TLS_DTPREL64): {opSet, 8},
		60:                               {opSetULEB, 0}, // R_RISCV_SET_ULEB128
		61:                               {opSubULEB, 0}, // R_RISCV_SUB_ULEB128
	},
	elf.EM_S390: {
		uint32(elf.R_390_NONE): {opNone, 0},
		uint32(elf.R_390_64):   {opSet, 8},
		uint32(elf.R_390_32):   {opSet, 4},
		uint32(elf.R_390_16):   {opSet, 2},
		uint32(elf.R_390_8):    {opSet, 1},
	},
	elf.EM_PPC64: {
		uint32(elf.R_PPC64_NONE):     {opNone, 0},
		uint32(elf.R_PPC64_ADDR64):   {opSet, 8},
		uint32(elf.R_PPC64_ADDR32):   {opSet, 4},
		uint32(elf.R_PPC64_ADDR16):   {opSet, 2},
		uint32(elf.R_PPC64_DTPREL64): {opSet, 8},
	},
	elf.EM_PPC: {
		uint32(elf.R_PPC_NONE):   {opNone, 0},
		uint32(elf.R_PPC_ADDR32): {opSet, 4},
	},
}

// ruleSlices caches, per machine, relocRules as a slice indexed by type.
var ruleSlices sync.Map // elf.Machine -> []relocRule

// ruleSlice returns rules (the machine's relocRules) as a slice indexed by
// relocation type, so that applying an entry costs no map lookup.
func ruleSlice(m elf.Machine, rules map[uint32]relocRule) []relocRule {
	if v, ok := ruleSlices.Load(m); ok {
		return v.([]relocRule)
	}
	n := uint32(0)
	for typ := range rules {
		n = max(n, typ+1)
	}
	sl := make([]relocRule, n)
	for typ, r := range rules {
		sl[typ] = r
	}
	ruleSlices.Store(m, sl)
	return sl
}

// relocTable is one SHT_REL or SHT_RELA section, checked and ready to be
// read entry by entry.
type relocTable struct {
	sec   *Section
	data  []byte
	syms  *symtab
	rules []relocRule // by relocation type; op opNone past the end
	es    int         // bytes from one entry to the next (sh_entsize when larger)
	std   int         // bytes of the standard entry that are read
	rela  bool
	is64  bool
	le    bool // little-endian file
}

// relocTableOf checks rs (its machine's rules, its symbol table) and returns
// it as a relocTable.
func (f *File) relocTableOf(rs *Section) (*relocTable, error) {
	rules := relocRules[f.Machine]
	if rules == nil {
		return nil, f.secErrorf(rs, -1, nil, "applying relocations for machine %v is not supported", f.Machine)
	}
	symSec := f.SectionByIndex(int(rs.Link))
	if symSec == nil || (symSec.Type != elf.SHT_SYMTAB && symSec.Type != elf.SHT_DYNSYM) {
		return nil, f.secErrorf(rs, -1, nil, "link %d is not a symbol table", rs.Link)
	}
	syms, err := f.symtabOf(symSec)
	if err != nil {
		return nil, err
	}
	data, err := f.SectionData(rs)
	if err != nil {
		return nil, err
	}
	t := &relocTable{sec: rs, data: data, syms: syms, rules: ruleSlice(f.Machine, rules), rela: rs.Type == elf.SHT_RELA, is64: f.Class == elf.ELFCLASS64}
	t.le = f.Data == elf.ELFDATA2LSB
	t.std = 8 // Elf32_Rel; Elf32_Rela adds 4 bytes, the 64-bit forms double both
	if t.rela {
		t.std = 12
	}
	if t.is64 {
		t.std *= 2
	}
	t.es = t.std
	if rs.Entsize > uint64(t.std) && rs.Entsize < 1<<16 {
		t.es = int(rs.Entsize)
	}
	return t, nil
}

// len returns the number of entries.
func (t *relocTable) len() int {
	if len(t.data) < t.std {
		return 0
	}
	return (len(t.data)-t.std)/t.es + 1
}

// entry decodes entry i: the field's offset, the symbol number, the
// relocation type and (RELA) the explicit addend.
func (t *relocTable) entry(i int) (rOff, symNo uint64, typ uint32, addend int64) {
	b := t.data[i*t.es:]
	if t.is64 {
		rOff = getN(b[:8], t.le)
		info := getN(b[8:16], t.le)
		symNo, typ = info>>32, uint32(info)
		if t.rela {
			addend = int64(getN(b[16:24], t.le))
		}
	} else {
		rOff = getN(b[:4], t.le)
		info := uint32(getN(b[4:8], t.le))
		symNo, typ = uint64(info>>8), info&0xff
		if t.rela {
			addend = int64(int32(getN(b[8:12], t.le)))
		}
	}
	return
}

// relocSection applies the relocations in section rs (SHT_REL or SHT_RELA)
// to dst, the contents of their target section tgt. dst must be a private
// copy. Symbol values come from the symbol table rs links to; as in a
// relocatable object every section sits at address 0, S is the symbol's
// st_value, plus bases[i] when the symbol's section i has been placed at
// that offset of a concatenation. For SHT_REL the addend is the value
// already in the field.
func (f *File) relocSection(dst []byte, tgt, rs *Section, bases []uint64) error {
	t, err := f.relocTableOf(rs)
	if err != nil {
		return err
	}
	return f.applyRelocs(dst, tgt, t, 0, t.len(), bases, nil)
}

// applyRelocs applies entries lo to hi-1 of t to dst, in order. With a
// window, it first checks that each field lies within dst[window[0]:
// window[1]] and has a fixed width, and stops with errOutsideWindow at the
// first that does not.
func (f *File) applyRelocs(dst []byte, tgt *Section, t *relocTable, lo, hi int, bases []uint64, window *[2]uint64) error {
	return f.applyRelocsWith(dst, tgt, t, lo, hi, bases, window, t.relaFast())
}

// applyRelocsWith is applyRelocs, with fast set when t is a table relaFast
// accepts: each entry is then read with fixed-width loads, and the 4- and
// 8-byte fields of opSet rules are patched in place; every other entry, and
// any field that does not fit in dst, goes through applyReloc, so the bytes
// written and the errors returned are the same either way (tests compare
// the two).
func (f *File) applyRelocsWith(dst []byte, tgt *Section, t *relocTable, lo, hi int, bases []uint64, window *[2]uint64, fast bool) error {
	var syms symCache
	n := uint64(len(dst))
	for i := lo; i < hi; i++ {
		var rOff, symNo uint64
		var typ uint32
		var addend int64
		if fast {
			e := t.data[i*24 : i*24+24 : i*24+24]
			rOff = binary.LittleEndian.Uint64(e)
			info := binary.LittleEndian.Uint64(e[8:])
			addend = int64(binary.LittleEndian.Uint64(e[16:]))
			symNo, typ = info>>32, uint32(info)
		} else {
			rOff, symNo, typ, addend = t.entry(i)
		}
		var rule relocRule
		if uint64(typ) < uint64(len(t.rules)) {
			rule = t.rules[typ]
		}
		if rule.op == opNone {
			// Not an address or offset type (see relocRules): the field
			// keeps the bytes the assembler wrote, as with libdwfl.
			continue
		}
		if window != nil && (rule.op == opSetULEB || rule.op == opSubULEB ||
			rOff < window[0] || rOff > window[1] || window[1]-rOff < uint64(rule.size)) {
			return errOutsideWindow
		}
		s, ok := syms.get(symNo)
		if !ok {
			var err error
			if s, err = f.symValue(&syms, t, i, symNo, bases); err != nil {
				return err
			}
		}
		if fast && rule.op == opSet && n >= 8 && rOff <= n-8 {
			switch rule.size {
			case 4:
				binary.LittleEndian.PutUint32(dst[rOff:], uint32(s+uint64(addend)))
				continue
			case 8:
				binary.LittleEndian.PutUint64(dst[rOff:], s+uint64(addend))
				continue
			}
		}
		if err := f.applyReloc(dst, rOff, rule, s, addend, t, tgt, typ); err != nil {
			return t.fromEntry(err, i)
		}
	}
	return nil
}

// fromEntry adds to err, a FormatError about the section t relocates (its
// offset is the entry's r_offset, which may itself be the corrupt part),
// where entry i of t lies, so that the entry can be found.
func (t *relocTable) fromEntry(err error, i int) error {
	if fe, ok := err.(*FormatError); ok {
		fe.Msg += fmt.Sprintf(" (the entry at offset %#x of %s)", i*t.es, t.sec.Name)
	}
	return err
}

// applyReloc patches the field at offset off of dst (the contents of tgt)
// by rule, with symbol value s and, for RELA, the explicit addend; t is the
// table the entry comes from (its kind and byte order).
func (f *File) applyReloc(dst []byte, off uint64, rule relocRule, s uint64, addend int64, t *relocTable, tgt *Section, typ uint32) error {
	if rule.op == opSetULEB || rule.op == opSubULEB {
		return f.applyULEB(dst, off, rule.op, s+uint64(addend), tgt)
	}
	n := uint64(rule.size)
	if off > uint64(len(dst)) || uint64(len(dst))-off < n {
		return f.secErrorf(tgt, int64(min(off, 1<<62)), nil, "relocation %s of %d bytes beyond the section's %#x bytes", relocName(f.Machine, typ), n, len(dst))
	}
	field := dst[off : off+n]
	le := t.le
	old := getN(field, le)
	a := uint64(addend)
	if !t.rela && rule.op == opSet {
		a = old // REL keeps its addend in the field
	}
	v := s + a
	switch rule.op {
	case opSet:
		putN(field, v, le)
	case opAdd:
		putN(field, old+v, le)
	case opSub:
		putN(field, old-v, le)
	case opSet6:
		field[0] = field[0]&0xc0 | byte(v)&0x3f
	case opSub6:
		field[0] = field[0]&0xc0 | (field[0]-byte(v))&0x3f
	}
	return nil
}

// getN reads a field of 1, 2, 4 or 8 bytes, little-endian when le is set,
// else big-endian.
//
// The byte order is a flag, not the binary.ByteOrder interface, whose calls
// the compiler cannot inline: every relocation entry and relocated field
// goes through here, hundreds of thousands of them in a kernel module.
func getN(b []byte, le bool) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		if le {
			return uint64(binary.LittleEndian.Uint16(b))
		}
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		if le {
			return uint64(binary.LittleEndian.Uint32(b))
		}
		return uint64(binary.BigEndian.Uint32(b))
	}
	if le {
		return binary.LittleEndian.Uint64(b)
	}
	return binary.BigEndian.Uint64(b)
}

// putN writes the low bytes of v into a field of 1, 2, 4 or 8 bytes, in the
// byte order getN reads.
func putN(b []byte, v uint64, le bool) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		if le {
			binary.LittleEndian.PutUint16(b, uint16(v))
		} else {
			binary.BigEndian.PutUint16(b, uint16(v))
		}
	case 4:
		if le {
			binary.LittleEndian.PutUint32(b, uint32(v))
		} else {
			binary.BigEndian.PutUint32(b, uint32(v))
		}
	default:
		if le {
			binary.LittleEndian.PutUint64(b, v)
		} else {
			binary.BigEndian.PutUint64(b, v)
		}
	}
}

// applyULEB rewrites the ULEB128 number at dst[off:] in place, keeping its
// encoded length (assemblers pad such fields so the final value fits): set
// to v, or decreased by v.
func (f *File) applyULEB(dst []byte, off uint64, op relocOp, v uint64, tgt *Section) error {
	if off >= uint64(len(dst)) {
		return f.secErrorf(tgt, int64(min(off, 1<<62)), nil, "ULEB128 relocation beyond the section's %#x bytes", len(dst))
	}
	old, end, ok := leb128.Uint(dst, int(off))
	if n := end - int(off); !ok || n > 10 {
		return f.secErrorf(tgt, int64(off), nil, "unterminated ULEB128 field under a relocation")
	}
	if op == opSubULEB {
		v = old - v
	}
	leb128.PutUint(dst[off:end], v)
	return nil
}

// relocName spells a relocation type the way readelf does, when known.
func relocName(m elf.Machine, typ uint32) string {
	var s fmt.Stringer
	switch m {
	case elf.EM_X86_64:
		s = elf.R_X86_64(typ)
	case elf.EM_386:
		s = elf.R_386(typ)
	case elf.EM_AARCH64:
		s = elf.R_AARCH64(typ)
	case elf.EM_ARM:
		s = elf.R_ARM(typ)
	case elf.EM_RISCV:
		s = elf.R_RISCV(typ)
	case elf.EM_S390:
		s = elf.R_390(typ)
	case elf.EM_PPC64:
		s = elf.R_PPC64(typ)
	case elf.EM_PPC:
		s = elf.R_PPC(typ)
	default:
		return fmt.Sprintf("%d", typ)
	}
	return s.String()
}
