package dwarf2btf

import (
	"fmt"
	"math"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
)

// Type conversion happens in two steps per compilation unit.
//
// During the walk, every type DIE becomes a typeRec, in DIE order, holding
// what the BTF type needs with references still as DIE offsets (a type may
// refer to a DIE that comes later). Members, enumerators and parameters are
// children of their type's DIE, possibly interleaved with nested type
// definitions (C++), so they are gathered on per-kind scratch stacks and moved
// into flat side arrays when their parent's children end; that keeps each
// type's members contiguous without a heap object per type.
//
// After the walk, emit numbers the records in pahole's order (skipping records
// that stand for void or pass through to their target), resolves every DIE
// offset to an ID through an offset index and writes the BTF words.
//
// pahole's order is DIE order except for types nested in a struct or union
// (clang nests the anonymous unions and structs of C members; C++ nests
// named types) and for the TYPE_TAGs of a pointer (clang's
// DW_TAG_LLVM_annotation children): pahole numbers a struct or a pointer
// only after all of its children are read, so nested types come before the
// struct that holds them, innermost first, and tags before their pointer.
// The order matters beyond IDs: when deduplication keeps two equivalent
// copies of a type (libbpf is not exact with forward declarations), which
// copies survive depends on it.

// Record kinds beyond the BTF kinds.
const (
	recVoid    btf.Kind = 0xff // DW_TAG_unspecified_type: references become void
	recSkip    btf.Kind = 0xfe // a modifier BTF cannot express (_Atomic): references see through it
	recIgnored btf.Kind = 0xfd // a type pahole cannot encode either: references become void
)

// typeRec is one type DIE awaiting emission.
type typeRec struct {
	off    uint64 // the DIE's offset
	ref    uint64 // DW_AT_type target offset (0: none, i.e. void)
	name   uint32 // string offset in the CU's Spec
	size   uint32
	kind   btf.Kind
	kflag  bool   // FWD: union; ENUM64: signed
	enc    uint8  // INT encoding
	first  uint32 // index of the first member/enumerator/parameter in its side array
	n      uint32 // number of members/enumerators/parameters
	nelems uint32 // ARRAY element count (product of all dimensions)
	vararg bool   // FUNC_PROTO ends with "..."
}

// memberRec is one struct/union member with its raw location attributes;
// the bit offset is computed at emission, when member type sizes are known.
//
// A kernel has millions of members, each written during the walk and read
// back at emission, so a member keeps only the bits of each attribute that
// memberOffset uses (24 bytes, not 56): the offset word is 32 bits, and of
// the bitfield attributes, 8-bit arithmetic decides the result.
type memberRec struct {
	name          uint32
	loc           uint32 // DW_AT_data_member_location, or DW_AT_data_bit_offset: the low 32 bits
	ref           uint64
	byteSize      uint32 // DW_AT_byte_size of the member (storage unit), see foldByteSize
	bitOffset     uint8  // DW_AT_bit_offset (MSB-relative, DWARF 2-4): the low 8 bits
	bitSize       uint8  // DW_AT_bit_size: the low 8 bits
	hasDataBitOff bool
}

// foldByteSize keeps what memberOffset uses of a member's byte size in 32
// bits: whether it is 0, and its low five bits (the storage unit's size in
// bits, modulo 256).
func foldByteSize(v uint64) uint32 {
	if v > math.MaxUint32 {
		return uint32(v&31) | 1<<31
	}
	return uint32(v)
}

// enumRec is one enumerator.
type enumRec struct {
	name uint32
	val  uint64
}

// paramRec is one parameter of a subroutine type.
type paramRec struct {
	name uint32
	ref  uint64
}

// declTagRec is a btf_decl_tag annotation on a struct, union or typedef (or
// one of its members, by component index).
type declTagRec struct {
	target    uint64 // offset of the annotated type's DIE
	component int32
	value     uint32
}

// cuTypes accumulates one CU's type records.
type cuTypes struct {
	spec *btf.Spec // the CU's BTF, filled by emit; see nameStr for its strings
	opts *Options

	littleEndian bool
	addrSize     uint32
	addrx        func(index uint64) (uint64, bool) // resolves DW_OP_addrx; nil if unknown
	debugAddr    []byte                            // .debug_addr, for addrx

	recs  []typeRec
	order []int32 // record indexes in emission (ID) order, see emit

	recIndex offsetIndex // recs[i].off -> i, for find
	members  []memberRec
	enums    []enumRec
	params   []paramRec
	declTags []declTagRec
	vars     []varRec

	// gcc's annotations (gnuannot.go): the unit's annotation DIEs, and the
	// pointers and declarations that refer to them, resolved once the
	// whole unit is read.
	gnu gnuAnnotations

	// Scratch stacks for children of types whose DIE is still open.
	memberStack []memberRec
	enumStack   []enumRec
	paramStack  []paramRec
	tagStack    []int // record indexes of a pointer's TYPE_TAG children

	unitTag dwarf.Tag        // the unit DIE's tag
	clang   bool             // the unit's producer is clang
	funcs   *funcs.Collector // when functions are encoded: their collector, reused across units

	// With Options.Log: the unit DIE's DW_AT_name, and the reports
	// about the unit's variables (emitVars), handed over per unit.
	unitName string
	varLog   []logEntry
	plans    fixedPlans // the walk's compiled digests, reused across units

	hasArray bool
	intRec   int // index of the first base type named "int", or -1

	// noName is c.str(""), once noNameSet is set: many of the names
	// nameStr is asked for are absent (parameters of function types,
	// anonymous members), and interning "" gives the same offset every
	// time, after a hash and a probe.
	noName    uint32
	noNameSet bool
	ids       []btf.TypeID

	limitErr   error   // the first BTF limit the unit breaks (limits.go)
	curOff     uint64  // the DIE visit is handling, for limit errors
	cycleState []uint8 // checkCycles' scratch, per record
	cyclePath  []int
}

// newCUTypes returns a converter of the units of tgt (its functions too,
// given fs) with opts.
func newCUTypes(opts *Options, tgt *target, fs *funcSource) *cuTypes {
	spec := btf.NewSpec(nil)
	if tgt.shared != nil {
		spec.SetStrings(btf.NewStringTable(tgt.shared))
	}
	c := &cuTypes{spec: spec, opts: opts, littleEndian: tgt.littleEndian, addrSize: tgt.addrSize,
		debugAddr: tgt.debugAddr, intRec: -1}
	if fs != nil {
		c.funcs = funcs.NewCollector(fs.table, fs.opts)
	}
	return c
}

// reset prepares c for the next unit, keeping every buffer's storage: a
// worker converts many units with one cuTypes, so that its arrays stay
// allocated (and their memory warm) instead of being grown afresh per unit.
func (c *cuTypes) reset() {
	c.spec.Reset()
	c.recs = c.recs[:0]
	c.order = c.order[:0]
	c.recIndex.reset()
	c.members = c.members[:0]
	c.enums = c.enums[:0]
	c.params = c.params[:0]
	c.declTags = c.declTags[:0]
	c.vars = c.vars[:0]
	c.gnu.reset()
	c.memberStack = c.memberStack[:0]
	c.enumStack = c.enumStack[:0]
	c.paramStack = c.paramStack[:0]
	c.tagStack = c.tagStack[:0]
	c.hasArray = false
	c.intRec = -1
	c.noNameSet = false
	c.addrx = nil
	c.limitErr = nil
}

// setAddrBase makes DW_OP_addrx resolvable through the unit's slice of
// .debug_addr, which starts at base.
func (c *cuTypes) setAddrBase(base uint64) {
	tbl, size := c.debugAddr, uint64(c.addrSize)
	c.addrx = func(i uint64) (uint64, bool) {
		off := base + i*size
		if i > uint64(len(tbl)) || off+size > uint64(len(tbl)) || off < base {
			return 0, false
		}
		var a uint64
		for k := uint64(0); k < size; k++ {
			b := tbl[off+k]
			if c.littleEndian {
				a |= uint64(b) << (8 * k)
			} else {
				a = a<<8 | uint64(b)
			}
		}
		return a, true
	}
}

// str interns a name, applying --kabi_prefix as pahole's attr_string does.
func (c *cuTypes) str(s string) uint32 {
	if p := c.opts.KabiPrefix; p != "" && len(s) >= len(p) && s[:len(p)] == p {
		s = p
	}
	if len(s) > btf.KernelMaxNameLen {
		c.checkName(s)
	}
	return c.spec.AddString(s)
}

// nameStr interns d's DW_AT_name, as c.str(d.nm()) does, except that a name
// read from .debug_str, when the unit's string table is a split table on
// .debug_str (btf.NewSharedStrings, given to newCUTypes), is not read at
// all: its offset there is its offset in .debug_str plus one. c.str's
// prefix rewrite is off then (no shared table is made with --kabi_prefix);
// its length check is made without reading the name either, and so is the
// check for an empty name, which is 0 as with c.str.
func (c *cuTypes) nameStr(d *digest) uint32 {
	if !d.strpName && !d.hasNameField && d.name == "" { // no DW_AT_name
		if !c.noNameSet {
			c.noName, c.noNameSet = c.str(""), true
		}
		return c.noName
	}
	if shared := c.spec.Strings().Base(); shared != nil {
		off, ok := uint64(0), false
		switch {
		case d.strpName:
			off, ok = d.nameOff, true
		case d.hasNameField:
			off, ok = d.nameField.StrOffset()
		}
		if off := shared.SectionOffset(off, ok); off != 0 {
			return off
		}
	}
	return c.str(d.nm())
}

// add appends a record for d, numbered in DIE order, and returns its index.
func (c *cuTypes) add(d *digest, k btf.Kind) int {
	i := c.addUnordered(d, k)
	c.order = append(c.order, int32(i))
	return i
}

// addUnordered appends a record for d without giving it its place in the
// emission order: close gives it, once the DIE's children are read.
func (c *cuTypes) addUnordered(d *digest, k btf.Kind) int {
	// Appended zero and filled in place: a composite literal would be
	// built on the stack and copied with 16-byte loads right after its
	// narrower stores, which cannot be forwarded from them (see walk).
	c.recs = append(grow(c.recs, 1), typeRec{})
	i := len(c.recs) - 1
	r := &c.recs[i]
	r.off, r.ref, r.kind = d.off, d.typ, k
	c.recIndex.put(d.off, int32(i))
	return i
}

// baseType records a DW_TAG_base_type by pahole's rules: signed (including
// signed char) beats bool beats float; floats become FLOAT only with the
// float feature, otherwise an INT without encoding; sizes that are not a
// power of two up to 16 bytes (DWARF 5 _BitInt-like helper types) become a
// placeholder INT so that the kernel accepts the result.
func (c *cuTypes) baseType(d *digest) {
	i := c.add(d, btf.KindInt)
	r := &c.recs[i]
	name := d.nm()
	size := d.byteSize
	switch {
	case d.encoding == uint64(dwarf.EncSigned) || d.encoding == uint64(dwarf.EncSignedChar):
		r.enc = btf.IntSigned
	case d.encoding == uint64(dwarf.EncBoolean):
		r.enc = btf.IntBool
	case (d.encoding == uint64(dwarf.EncFloat) || d.encoding == uint64(dwarf.EncComplexFloat)) && c.opts.Features.Float:
		// pahole refuses complex floats here; a FLOAT of the full size is
		// what the kernel can take, so gobtf keeps going with that.
		r.kind = btf.KindFloat
	}
	if r.kind == btf.KindInt && (size == 0 || size&(size-1) != 0 || size > 16) {
		name, size = "__SANITIZED_FAKE_INT__", 4
	}
	r.name = c.str(name)
	r.size = uint32(size)
	if name == "int" && c.intRec < 0 {
		c.intRec = i
	}
}

// enumType records an enumeration; its enumerators follow as children. A
// declaration without size gets pahole's default of 4 bytes.
func (c *cuTypes) enumType(d *digest, signed bool) int {
	i := c.add(d, btf.KindEnum)
	r := &c.recs[i]
	r.name = c.nameStr(d)
	r.size = uint32(d.byteSize)
	if r.size == 0 {
		r.size = 4
	}
	if r.size > 4 && c.opts.Features.Enum64 {
		r.kind = btf.KindEnum64
		r.kflag = signed
	}
	return i
}

// emit writes every record into the CU's Spec, then the "int" index type for
// arrays if the CU has none, then the DECL_TAGs.
func (c *cuTypes) emit() {
	c.ids = append(c.ids[:0], make([]btf.TypeID, len(c.recs))...)
	next := btf.TypeID(1)
	for _, i := range c.order {
		if c.recs[i].kind <= btf.MaxKind {
			c.ids[i] = next
			next++
		}
	}
	// The records that pass through resolve to their target's ID (those
	// that stand for void are 0 already): resolve reads only ids.
	for i := range c.recs {
		if c.recs[i].kind == recSkip {
			c.ids[i] = c.resolveRec(i)
		}
	}
	indexID := btf.TypeID(0)
	if c.hasArray {
		if c.intRec >= 0 {
			indexID = c.ids[c.intRec]
		} else {
			indexID = next
		}
	}
	s := c.spec
	s.Reserve(int(next), 4*len(c.recs)+3*len(c.members)+2*len(c.enums)+2*len(c.params))
	// Each type's words are written where they go (Spec.AppendWords),
	// not built apart and appended, which would copy and check them once
	// more. Every case writes all the words it asks for.
	for _, i := range c.order {
		r := &c.recs[i]
		switch r.kind {
		case btf.KindInt:
			w := s.AppendWords(4)
			w[0], w[1], w[2], w[3] = r.name, btf.Info(btf.KindInt, false, 0), r.size, btf.IntWord(r.enc, 0, uint8(r.size*8))
		case btf.KindFloat:
			w := s.AppendWords(3)
			w[0], w[1], w[2] = r.name, btf.Info(btf.KindFloat, false, 0), r.size
		case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef, btf.KindTypeTag:
			w := s.AppendWords(3)
			w[0], w[1], w[2] = r.name, btf.Info(r.kind, false, 0), c.resolve(r.ref)
		case btf.KindFwd:
			w := s.AppendWords(3)
			w[0], w[1], w[2] = r.name, btf.Info(btf.KindFwd, r.kflag, 0), 0
		case btf.KindArray:
			w := s.AppendWords(6)
			w[0], w[1], w[2], w[3], w[4], w[5] = 0, btf.Info(btf.KindArray, false, 0), 0, c.resolve(r.ref), indexID, r.nelems
		case btf.KindStruct, btf.KindUnion:
			c.appendStruct(s.AppendWords(3+3*int(r.n)), r)
		case btf.KindEnum:
			c.appendEnum(s.AppendWords(3+2*int(r.n)), r)
		case btf.KindEnum64:
			c.appendEnum(s.AppendWords(3+3*int(r.n)), r)
		case btf.KindFuncProto:
			n := int(r.n)
			if r.vararg {
				n++
			}
			w := s.AppendWords(3 + 2*n)
			w[0], w[1], w[2] = 0, btf.Info(btf.KindFuncProto, false, n), c.resolve(r.ref)
			for k, p := range c.params[r.first : r.first+r.n] {
				w[3+2*k], w[4+2*k] = p.name, c.resolve(p.ref)
			}
			if r.vararg {
				w[len(w)-2], w[len(w)-1] = 0, 0
			}
		default:
			if r.kind <= btf.MaxKind { // numbered above, so it must be written
				panic(fmt.Sprintf("dwarf2btf: no encoding for a record of kind %s", r.kind))
			}
		}
	}
	if c.hasArray && c.intRec < 0 {
		s.AddInt("int", 4, btf.IntSigned, 32)
	}
	for _, t := range c.declTags {
		s.MustAppend(t.value, btf.Info(btf.KindDeclTag, false, 0), c.resolve(t.target), uint32(t.component))
	}
}

// appendStruct encodes a STRUCT or UNION into w, its 3+3*r.n words. As
// libbpf's btf__add_field does, kind_flag is set when any member is a
// bitfield or sits at an offset that is not a whole byte, and every member's
// offset word then carries its bitfield size in the top 8 bits.
func (c *cuTypes) appendStruct(w []uint32, r *typeRec) {
	kflag := false
	ms := c.members[r.first : r.first+r.n]
	w = w[:3+3*len(ms)]
	mw := w[3:]
	for k := range ms {
		m := &ms[k]
		off, bits := c.memberOffset(m)
		if bits != 0 || off%8 != 0 {
			kflag = true
		}
		mw[0], mw[1], mw[2] = m.name, c.resolve(m.ref), off|bits<<24
		mw = mw[3:]
	}
	w[0], w[1], w[2] = r.name, btf.Info(r.kind, kflag, int(r.n)), r.size
}

// memberOffset computes a member's BTF bit offset and bitfield size the way
// pahole's loader does. DW_AT_data_bit_offset (DWARF 4+) is already what BTF
// wants. The older DW_AT_bit_offset counts from the most significant bit of
// the storage unit, so on little-endian targets it is turned around within
// the unit's size (DW_AT_byte_size, or the size of the member's type).
// pahole keeps the bitfield size in 8 bits and the within-unit offset in a
// signed 8-bit field; the truncations are reproduced.
func (c *cuTypes) memberOffset(m *memberRec) (off, bits uint32) {
	bits = uint32(m.bitSize)
	if m.hasDataBitOff {
		return m.loc, bits
	}
	byteOff := m.loc
	if bits == 0 {
		return byteOff * 8, 0
	}
	unit := uint64(m.byteSize)
	if unit == 0 {
		unit = c.recordSize(m.ref, false)
	}
	if unit == 0 {
		return byteOff * 8, bits
	}
	within := int64(m.bitOffset)
	if c.littleEndian {
		within = int64(unit*8) - within - int64(bits)
	}
	return byteOff*8 + uint32(int32(int8(within))), bits
}

// recordSize is the byte size of the type at DIE offset ref, through
// typedefs, qualifiers and the modifiers BTF cannot express, pointers
// addrSize bytes; 0 when unknown, and after 64 links. whole picks one of
// pahole's two sizes: with it, tag__size, what a variable of the type takes
// (arrays multiplied out, function types pointer-sized); without, the size
// of a bitfield's storage unit, the type's own byte size (arrays and
// function types have none).
func (c *cuTypes) recordSize(ref uint64, whole bool) uint64 {
	mult := uint64(1)
	for hops := 0; ref != 0 && hops < 64; hops++ {
		i, ok := c.find(ref)
		if !ok {
			return 0
		}
		r := &c.recs[i]
		switch r.kind {
		case btf.KindArray:
			if !whole {
				return uint64(r.size)
			}
			mult *= uint64(r.nelems)
			ref = r.ref
		case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag, recSkip:
			ref = r.ref
		case btf.KindPtr:
			return mult * uint64(c.addrSize)
		case btf.KindFuncProto:
			if !whole {
				return uint64(r.size)
			}
			return mult * uint64(c.addrSize)
		default:
			return mult * uint64(r.size)
		}
	}
	return 0
}

// appendEnum encodes an ENUM or ENUM64. An ENUM's kind_flag (signed) follows
// libbpf's btf__add_enum_value: it is set by any negative value; with the
// enum64 feature off, values are first cut to 32 bits, as pahole does, so no
// value is negative.
func (c *cuTypes) appendEnum(w []uint32, r *typeRec) {
	vals := c.enums[r.first : r.first+r.n]
	if r.kind == btf.KindEnum64 {
		w = w[:3+3*len(vals)]
		w[0], w[1], w[2] = r.name, btf.Info(btf.KindEnum64, r.kflag, len(vals)), r.size
		for k, v := range vals {
			w[3+3*k], w[4+3*k], w[5+3*k] = v.name, uint32(v.val), uint32(v.val>>32)
		}
		return
	}
	signed := false
	w = w[:3+2*len(vals)]
	for k, v := range vals {
		val := int64(v.val)
		if !c.opts.Features.Enum64 {
			val = int64(uint32(v.val))
		}
		if val < 0 {
			signed = true
		}
		w[3+2*k], w[4+2*k] = v.name, uint32(val)
	}
	w[0], w[1], w[2] = r.name, btf.Info(btf.KindEnum, signed, len(vals)), r.size
}

// find returns the index of the record made for the DIE at off.
func (c *cuTypes) find(off uint64) (int, bool) {
	i := c.recIndex.get(off)
	return int(i), i >= 0
}

// offsetIndex maps DIE offsets to record indexes: an open-addressing hash
// table, since find runs for every type reference of a unit (a binary
// search over the records spends its time in mispredicted branches). The
// first record with an offset wins, as the
// search found it. A slot holds key and value together, so that a lookup
// touches one cache line, not one in each of two arrays.
type offsetIndex struct {
	slots []offsetSlot
	n     int
	moved []offsetSlot // grow's copy of the entries, kept for reuse
}

// offsetSlot is one entry of an offsetIndex: key is offset+1, 0 for an
// empty slot.
type offsetSlot struct {
	key uint64
	val int32
}

// reset empties the index, which then starts with four slots per entry
// of the last unit (units of one file vary less from one to the next than
// from the largest to the smallest) and grows as needed, so that a small
// unit after a large one is neither cleared nor probed over the large
// one's spread. Only the last unit's slots are cleared, not the whole
// capacity; grow clears what it takes back.
func (x *offsetIndex) reset() {
	clear(x.slots)
	size := minIndexSize
	for size < 4*x.n {
		size *= 2
	}
	x.slots, x.n = x.slots[:min(size, len(x.slots))], 0
}

// minIndexSize is the fewest slots an offsetIndex has.
const minIndexSize = 1024

func offsetHash(off uint64) uint64 { return (off * 0x9e3779b97f4a7c15) >> 20 }

// put maps off to i unless off is already present.
func (x *offsetIndex) put(off uint64, i int32) {
	if (x.n+1)*2 > len(x.slots) {
		x.grow()
	}
	mask := uint64(len(x.slots) - 1)
	for h := offsetHash(off) & mask; ; h = (h + 1) & mask {
		sl := &x.slots[h]
		switch sl.key {
		case 0:
			sl.key, sl.val = off+1, i
			x.n++
			return
		case off + 1:
			return
		}
	}
}

// get returns the index off maps to, or -1.
func (x *offsetIndex) get(off uint64) int32 {
	if len(x.slots) == 0 {
		return -1
	}
	mask := uint64(len(x.slots) - 1)
	for h := offsetHash(off) & mask; ; h = (h + 1) & mask {
		sl := &x.slots[h]
		switch sl.key {
		case 0:
			return -1
		case off + 1:
			return sl.val
		}
	}
}

// grow doubles the table, in the memory it has where that is large enough
// (reset keeps it), the entries moved through a copy.
func (x *offsetIndex) grow() {
	old := x.slots
	size := max(2*len(old), minIndexSize)
	if size <= cap(old) {
		x.moved = append(x.moved[:0], old...)
		old = x.moved
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]offsetSlot, size)
	}
	x.n = 0
	for _, sl := range old {
		if sl.key != 0 {
			x.put(sl.key-1, sl.val)
		}
	}
}

// resolve maps a DIE offset to the BTF ID of its record: 0 for none, for
// references that leave the CU or hit no type (pahole leaves those void too),
// and for unspecified types; pass-through records resolve to their target.
//
// emit has made ids what it returns: so a reference costs one look-up in the
// index and one read of the dense ids, not a read of a record as well.
func (c *cuTypes) resolve(off uint64) btf.TypeID {
	if off == 0 { // void: no look-up
		return 0
	}
	if i := c.recIndex.get(off); i >= 0 {
		return c.ids[i]
	}
	return 0
}

// resolveRec returns the ID the offset of record i resolves to, from the
// IDs of the records numbered: 0 for one that stands for void, and for
// one that passes through, the ID at the end of its chain (0 after 64
// hops: a cycle, or an absurdly long chain).
func (c *cuTypes) resolveRec(i int) btf.TypeID {
	for hops := 0; hops < 64; hops++ {
		switch c.recs[i].kind {
		case recVoid, recIgnored:
			return 0
		case recSkip:
			ref := c.recs[i].ref
			if ref == 0 {
				return 0
			}
			j, ok := c.find(ref)
			if !ok {
				return 0
			}
			i = j
			continue
		}
		return c.ids[i]
	}
	return 0
}
