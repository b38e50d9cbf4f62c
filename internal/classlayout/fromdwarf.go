package classlayout

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/dwarf/line"
	"github.com/gobtf/gobtf/internal/elfio"
)

// dwarfMaxDimensions is the most dimensions pahole's DWARF loader keeps
// of an array.
const dwarfMaxDimensions = 64

// DWARF is the DWARF of an ELF file as a Source: one unit per compilation
// unit, read one at a time as pahole reads them.
type DWARF struct {
	f    *elfio.File
	d    *die.Data
	le   bool
	name string

	// For -I: .debug_line and the string sections its tables point into.
	line, lineStr, str []byte
	order              binary.ByteOrder
}

// OpenDWARF opens the DWARF of the ELF file at path; ok is false (and err
// nil) when the file has none.
func OpenDWARF(path string) (dw *DWARF, ok bool, err error) {
	f, err := elfio.Open(path)
	if err != nil {
		return nil, false, err
	}
	if f.DebugSection(".debug_info") == nil {
		f.Close()
		return nil, false, nil
	}
	ds, err := f.DWARFSections()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	dw, err = newDWARF(&die.Sections{Order: ds.Order, Info: ds.Info, Abbrev: ds.Abbrev, Str: ds.Str, LineStr: ds.LineStr,
		StrOffsets: ds.StrOffsets, Addr: ds.Addr, RngLists: ds.RngLists, LocLists: ds.LocLists, Loc: ds.Loc,
		Ranges: ds.Ranges, Types: ds.Types}, path)
	if err != nil {
		f.Close()
		return nil, false, err
	}
	dw.f = f
	dw.line, dw.lineStr, dw.str, dw.order = ds.Line, ds.LineStr, ds.Str, ds.Order
	if dw.order == nil {
		dw.order = binary.LittleEndian
	}
	return dw, true, nil
}

// newDWARF indexes DWARF sections; path names them in errors.
func newDWARF(secs *die.Sections, path string) (*DWARF, error) {
	d, err := die.New(secs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &DWARF{d: d, le: secs.Order == nil || secs.Order == binary.LittleEndian, name: path}, nil
}

// Close releases the file.
func (dw *DWARF) Close() error {
	if dw.f == nil {
		return nil
	}
	return dw.f.Close()
}

func (dw *DWARF) numUnits() int             { return len(dw.d.Units()) }
func (dw *DWARF) badArgsFail() bool         { return true }
func (dw *DWARF) path() string              { return dw.name }
func (dw *DWARF) unitLang(i int) dwarf.Lang { return dwarf.Lang(dw.d.Units()[i].Language) }

// unitLoader holds the pieces of one unit's model while its DIEs are read:
// references are DIE offsets until every DIE has an ID. The members,
// enumerators, parameters and dimensions of all types are collected in
// DIE order with their owner's ID, and grouped by owner at the end (C
// nests types in structs rarely, but it does).
type unitLoader struct {
	m        *Model
	index    []uint32 // DIE offset - base -> type ID
	base     uint64   // the unit's offset
	offs     []uint32 // the entries of index set
	aux      []typeAux
	members  []pendingMember
	enums    []owned[Enumerator]
	params   []owned[Param]
	parOff   []uint64 // by entry of params
	dims     []owned[uint32]
	nested   []owned[NestedType]
	memCount []uint32 // by type ID: members read so far
	stack    []uint32 // type ID of the open DIE at each depth, 0 if none
	files    []string // the unit's source files, for -I
	fixSilly bool
}

type typeAux struct {
	refOff uint64         // DW_AT_type's DIE offset, 0 for none
	enc    dwarf.Encoding // base types' DW_AT_encoding
}

type pendingMember struct {
	owner  uint32
	hasBit bool
	typOff uint64
	mb     Member
}

type owned[T any] struct {
	owner uint32
	v     T
}

// loadUnit builds the model of compilation unit i, as pahole's DWARF
// loader sees it: its types in DIE order, member sizes and bitfield
// offsets worked out as pahole does (with --fixup_silly_bitfields'),
// alignment attributes as written, and, for -I and -P, where each type was
// declared. With typesOnly, the bodies of functions are skipped (see
// Source).
func (dw *DWARF) loadUnit(i int, opt *Options, typesOnly bool) (*Model, error) {
	fixupSillyBitfields := opt.FixupSillyBitfields
	declInfo := opt.ShowDeclInfo || opt.Packable // -P names an anonymous struct by where it was declared
	u := &dw.d.Units()[i]
	size := 1024 // a guess of the number of types, to allocate once
	if u.End > u.Offset {
		size = int(min((u.End-u.Offset)/64, 1<<20)) + 16
	}
	l := &unitLoader{m: &Model{Types: make([]Type, 1, size), AddrSize: uint32(u.AddrSize), HasAlignInfo: true},
		aux: make([]typeAux, 1, size), members: make([]pendingMember, 0, size),
		memCount: make([]uint32, 1, size),
		fixSilly: fixupSillyBitfields}
	r := dw.d.NewReader()
	r.SetLazyStrings(true)
	if typesOnly {
		r.SetFilter(func(tag, _ dwarf.Tag, _ int) bool { return tag < dwarf.Tag(len(loadedTags)) && loadedTags[tag] }, func(dwarf.Tag) bool { return true })
	}
	r.Seek(u)
	l.index = getIndex(int(u.End - u.Offset))
	defer l.putIndex()
	l.base = u.Offset
	var e die.Entry
	for {
		ok, err := r.Next(&e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dw.name, err)
		}
		if !ok {
			break
		}
		if e.Depth == 0 {
			l.push(0, 0)
			if declInfo {
				l.unitDecl(dw, &e)
			} else if f := e.Field(dwarf.AttrName); f != nil {
				l.m.UnitName = f.Str()
			}
			continue
		}
		if typesOnly && e.Tag == dwarf.TagSubprogram {
			if err := r.SkipChildren(); err != nil {
				return nil, fmt.Errorf("%s: %w", dw.name, err)
			}
			continue
		}
		l.entry(&e)
	}
	l.finish(dw.le)
	return l.m, nil
}

func (l *unitLoader) push(depth int, id uint32) {
	for len(l.stack) <= depth {
		l.stack = append(l.stack, 0)
	}
	l.stack[depth] = id
}

// parent returns the type ID of the DIE's parent, 0 when it is no type.
func (l *unitLoader) parent(e *die.Entry) uint32 {
	if e.Depth-1 < len(l.stack) {
		return l.stack[e.Depth-1]
	}
	return 0
}

func (l *unitLoader) newType(e *die.Entry, k Kind) uint32 {
	id := uint32(len(l.m.Types))
	t := Type{Kind: k}
	if f := e.Field(dwarf.AttrName); f != nil {
		t.Name = f.Str()
	}
	if e.Depth > 1 {
		t.Flags |= FlagNested
	}
	l.m.Types = append(l.m.Types, t)
	var a typeAux
	if f := e.Field(dwarf.AttrType); f != nil && f.IsRef() {
		a.refOff = f.Val
	}
	if e.Tag == dwarf.TagBaseType {
		enc, _ := e.Val(dwarf.AttrEncoding)
		a.enc = dwarf.Encoding(enc)
	}
	l.aux = append(l.aux, a)
	if off := e.Offset - l.base; off < uint64(len(l.index)) {
		l.index[off] = id
		l.offs = append(l.offs, uint32(off))
	}
	l.memCount = append(l.memCount, 0)
	if p := l.parent(e); p != 0 && l.m.Types[p].Kind == KindStruct {
		l.nested = append(l.nested, owned[NestedType]{p, NestedType{l.memCount[p], id}})
	}
	if l.files != nil || l.m.Decl != nil {
		d := DeclInfo{Offset: e.Offset}
		// libdw's dwarf_decl_file takes index 0 for "no file", also in
		// DWARF 5, where clang refers to the unit's primary file so.
		if fi, ok := e.Val(dwarf.AttrDeclFile); ok && fi != 0 && fi < uint64(len(l.files)) {
			d.File = l.files[fi]
		}
		line, _ := e.Val(dwarf.AttrDeclLine)
		d.Line = uint32(line)
		l.m.Decl = append(l.m.Decl, d)
	}
	return id
}

func (l *unitLoader) entry(e *die.Entry) {
	var id uint32
	switch e.Tag {
	case dwarf.TagBaseType:
		id = l.newType(e, KindBase)
		sz, _ := e.Val(dwarf.AttrByteSize)
		l.m.Types[id].Size = uint32(sz)
	case dwarf.TagPointerType:
		id = l.newType(e, KindPointer)
	case dwarf.TagConstType:
		id = l.newType(e, KindConst)
	case dwarf.TagVolatileType:
		id = l.newType(e, KindVolatile)
	case dwarf.TagRestrictType:
		id = l.newType(e, KindRestrict)
	case dwarf.TagAtomicType:
		id = l.newType(e, KindAtomic)
	case dwarf.TagTypedef:
		id = l.newType(e, KindTypedef)
	case dwarf.TagArrayType:
		id = l.newType(e, KindArray)
		if _, ok := e.Val(dwarf.AttrGNUVector); ok {
			l.m.Types[id].Flags |= FlagVector
		}
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType:
		k := KindStruct
		if e.Tag == dwarf.TagUnionType {
			k = KindUnion
		}
		id = l.newType(e, k)
		t := &l.m.Types[id]
		sz, _ := e.Val(dwarf.AttrByteSize)
		al, _ := e.Val(dwarf.AttrAlignment)
		t.Size, t.Align = uint32(sz), uint32(al)
		if d, _ := e.Val(dwarf.AttrDeclaration); d != 0 {
			t.Flags |= FlagDeclaration
		}
	case dwarf.TagEnumerationType:
		id = l.newType(e, KindEnum)
		t := &l.m.Types[id]
		sz, _ := e.Val(dwarf.AttrByteSize)
		t.Size = uint32(sz)
		if sz == 0 {
			t.Size = 4
		}
		al, _ := e.Val(dwarf.AttrAlignment)
		t.Align = uint32(al)
		if d, _ := e.Val(dwarf.AttrDeclaration); d != 0 {
			t.Flags |= FlagDeclaration
		}
	case dwarf.TagSubroutineType:
		id = l.newType(e, KindFuncProto)
	case dwarf.TagMember, dwarf.TagInheritance:
		l.member(e)
	case dwarf.TagEnumerator:
		if p := l.parent(e); p != 0 && l.m.Types[p].Kind == KindEnum {
			v, _ := e.Val(dwarf.AttrConstValue)
			name := ""
			if f := e.Field(dwarf.AttrName); f != nil {
				name = f.Str()
			}
			l.enums = append(l.enums, owned[Enumerator]{p, Enumerator{name, v}})
		}
	case dwarf.TagSubrangeType:
		if p := l.parent(e); p != 0 && l.m.Types[p].Kind == KindArray {
			var n uint64
			if ub, ok := e.Val(dwarf.AttrUpperBound); ok {
				n = ub + 1
			} else if c, ok := e.Val(dwarf.AttrCount); ok {
				n = c
			}
			l.dims = append(l.dims, owned[uint32]{p, uint32(n)})
		}
	case dwarf.TagFormalParameter:
		if p := l.parent(e); p != 0 && l.m.Types[p].Kind == KindFuncProto {
			name := ""
			if f := e.Field(dwarf.AttrName); f != nil {
				name = f.Str()
			}
			ref, _ := e.Val(dwarf.AttrType)
			l.params = append(l.params, owned[Param]{p, Param{Name: name}})
			l.parOff = append(l.parOff, ref)
		}
	case dwarf.TagUnspecifiedParameters:
		if p := l.parent(e); p != 0 && l.m.Types[p].Kind == KindFuncProto {
			l.m.Types[p].Flags |= FlagVarargs
		}
	}
	if e.Children {
		l.push(e.Depth, id)
	}
}

// member records a struct or union member as pahole's class_member__new
// reads it; its size and bitfield place are settled in finish.
func (l *unitLoader) member(e *die.Entry) {
	p := l.parent(e)
	if p == 0 || (l.m.Types[p].Kind != KindStruct && l.m.Types[p].Kind != KindUnion) {
		return
	}
	var mb Member
	if f := e.Field(dwarf.AttrName); f != nil {
		mb.Name = f.Str()
	}
	al, _ := e.Val(dwarf.AttrAlignment)
	mb.Align = uint32(al)
	bitOff, hasBit := e.Val(dwarf.AttrDataBitOffset)
	if hasBit {
		mb.BitOffset = uint32(bitOff)
	} else {
		loc, _ := e.Val(dwarf.AttrDataMemberLoc)
		mb.ByteOffset = uint32(loc)
		mb.BitOffset = mb.ByteOffset * 8
		bo, _ := e.Val(dwarf.AttrBitOffset)
		mb.BitfieldOffset = int32(int8(bo))
	}
	bs, _ := e.Val(dwarf.AttrByteSize)
	mb.ByteSize = uint32(bs)
	bf, _ := e.Val(dwarf.AttrBitSize)
	mb.BitfieldSize = uint32(uint8(bf))
	ref, _ := e.Val(dwarf.AttrType)
	l.members = append(l.members, pendingMember{p, hasBit, ref, mb})
	l.memCount[p]++
}

// unitDecl prepares -I's declaration info from the unit DIE: the unit's
// name and its line table's files.
func (l *unitLoader) unitDecl(dw *DWARF, e *die.Entry) {
	l.m.Decl = []DeclInfo{{}}
	if f := e.Field(dwarf.AttrName); f != nil {
		l.m.UnitName = f.Str()
	}
	off, ok := e.Val(dwarf.AttrStmtList)
	if !ok {
		return
	}
	compDir := ""
	if f := e.Field(dwarf.AttrCompDir); f != nil {
		compDir = f.Str()
	}
	if files, err := line.Files(dw.line, dw.lineStr, dw.str, off, compDir, dw.order); err == nil {
		l.files = files
	}
}

// resolve maps a DIE offset to its type ID (0, void, when no type DIE of
// the unit is there).
func (l *unitLoader) resolve(off uint64) uint32 {
	if off < l.base || off-l.base >= uint64(len(l.index)) {
		return 0
	}
	return l.index[off-l.base]
}

// loadedTags are the DIEs whose attributes the loader reads.
var loadedTags = func() (m [0x50]bool) {
	for _, t := range []dwarf.Tag{dwarf.TagCompileUnit, dwarf.TagArrayType, dwarf.TagClassType, dwarf.TagEnumerationType, dwarf.TagFormalParameter, dwarf.TagMember, dwarf.TagPointerType, dwarf.TagStructType,
		dwarf.TagSubroutineType, dwarf.TagTypedef, dwarf.TagUnionType, dwarf.TagUnspecifiedParameters, dwarf.TagInheritance, dwarf.TagBaseType, dwarf.TagSubrangeType, dwarf.TagConstType,
		dwarf.TagEnumerator, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagAtomicType} {
		m[t] = true
	}
	return m
}()

// indexPool holds zeroed DIE-offset-to-ID tables for the units to load.
var indexPool sync.Pool

// getIndex returns a zeroed table for a unit of n bytes.
func getIndex(n int) []uint32 {
	if p, _ := indexPool.Get().(*[]uint32); p != nil && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]uint32, n)
}

// putIndex zeroes the entries the unit set and gives the table back.
func (l *unitLoader) putIndex() {
	for _, off := range l.offs {
		l.index[off] = 0
	}
	s := l.index[:cap(l.index)]
	indexPool.Put(&s)
}

// group orders items by owner, stably, and returns for each owner ID the
// index of its first item and their number.
func group[T any](items []owned[T], n int) (out []T, first, count []uint32) {
	first, count = make([]uint32, n), make([]uint32, n)
	for _, it := range items {
		count[it.owner]++
	}
	var sum uint32
	for id := range count {
		first[id] = sum
		sum += count[id]
	}
	out = make([]T, len(items))
	next := slices.Clone(first)
	for _, it := range items {
		out[next[it.owner]] = it.v
		next[it.owner]++
	}
	return out, first, count
}

// finish resolves references, lays the members, enumerators, parameters
// and dimensions out by owner, and settles member sizes and bitfields.
func (l *unitLoader) finish(littleEndian bool) {
	m := l.m
	n := len(m.Types)
	for i := range l.params {
		l.params[i].v.Type = l.resolve(l.parOff[i])
	}
	var enFirst, enCount, pFirst, pCount, dFirst, dCount []uint32
	m.Enumerators, enFirst, enCount = group(l.enums, n)
	m.Params, pFirst, pCount = group(l.params, n)
	m.Dims, dFirst, dCount = group(l.dims, n)
	var nFirst, nCount []uint32
	m.Nested, nFirst, nCount = group(l.nested, n)
	mbs := make([]owned[int], len(l.members))
	for i := range l.members {
		mbs[i] = owned[int]{l.members[i].owner, i}
	}
	order, mFirst, mCount := group(mbs, n)
	m.Members = make([]Member, len(order))
	for j, i := range order {
		pm := &l.members[i]
		pm.mb.Type = l.resolve(pm.typOff)
		m.Members[j] = pm.mb
	}
	for id := 1; id < n; id++ {
		t := &m.Types[id]
		t.Ref = l.resolve(l.aux[id].refOff)
		switch t.Kind {
		case KindStruct, KindUnion:
			t.First, t.N = mFirst[id], mCount[id]
			t.NestedFirst, t.NestedN = nFirst[id], nCount[id]
		case KindEnum:
			t.First, t.N = enFirst[id], enCount[id]
			if r := m.Type(t.Ref); r != nil && r.Kind == KindBase {
				if enc := l.aux[t.Ref].enc; enc == dwarf.EncSigned || enc == dwarf.EncSignedChar {
					t.Flags |= FlagSigned
				}
			}
		case KindFuncProto:
			t.First, t.N = pFirst[id], pCount[id]
		case KindArray:
			t.First, t.N = dFirst[id], min(dCount[id], dwarfMaxDimensions)
		}
	}
	for j, i := range order {
		l.settleMember(&m.Members[j], l.members[i].hasBit, littleEndian)
	}
}

// settleMember is pahole's class_member__cache_byte_size: the size of a
// member's storage unit and, for a bitfield, its place in that unit.
func (l *unitLoader) settleMember(mb *Member, hasBit, littleEndian bool) {
	m := l.m
	if mb.BitfieldSize == 0 {
		if mb.ByteSize == 0 {
			mb.ByteSize = m.tagSize(m.Type(mb.Type), 0)
		}
		mb.BitSize = mb.ByteSize * 8
		return
	}
	if mb.ByteSize == 0 {
		t := m.stripTypedefsAndModifiers(mb.Type)
		mb.ByteSize = m.tagSize(t, 0)
		if mb.ByteSize == 0 && t != nil {
			mb.ByteSize = (t.Size*8 + 7) / 8 * 8
		}
	}
	mb.BitSize = mb.ByteSize * 8
	if mb.ByteSize == 0 || mb.BitSize == 0 { // (the second: a size that wraps, in corrupt input)
		mb.BitfieldOffset = 0
		return
	}
	bfo := int8(mb.BitfieldOffset)
	if !hasBit {
		if littleEndian {
			bfo = int8(int32(mb.BitSize) - int32(bfo) - int32(mb.BitfieldSize))
		}
		mb.BitOffset = mb.ByteOffset*8 + uint32(int32(bfo))
	} else {
		mb.ByteOffset = mb.BitOffset / 8
		bfo = int8(mb.BitOffset - mb.ByteOffset*8)
	}
	if bfo < 0 {
		bfo = int8(int32(bfo) + int32(mb.BitSize))
		mb.ByteOffset -= mb.ByteSize
		mb.BitOffset = mb.ByteOffset*8 + uint32(int32(bfo))
	}
	bfo = int8(int32(bfo) + int32(mb.ByteOffset%mb.ByteSize)*8)
	mb.ByteOffset = mb.BitOffset / mb.BitSize * mb.BitSize / 8
	if int32(bfo) >= int32(mb.BitSize) {
		bfo = int8(int32(bfo) - int32(mb.BitSize))
		mb.ByteOffset += mb.ByteSize
	}
	mb.BitfieldOffset = int32(bfo)
	if l.fixSilly && mb.ByteSize == 8*mb.BitfieldSize {
		mb.BitfieldSize, mb.BitfieldOffset = 0, 0
	}
}
