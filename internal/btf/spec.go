package btf

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Spec is a set of BTF types and their strings, standalone or split on a base.
// See the package documentation for the representation.
//
// Invariants: offs[i] is the index in words of the first word of own type i
// (ID firstID+i); each type occupies words[offs[i]:offs[i+1]] (or up to
// len(words) for the last one) and that length always equals
// headerWords + trailingWords(kind, vlen). Every mutation goes through methods
// that keep this true; writing through a [Type] may change IDs, string offsets,
// sizes and values, but never a type's kind or vlen.
type Spec struct {
	base    *Spec
	firstID TypeID
	strs    *StringTable
	words   []uint32
	offs    []uint32

	// order is the byte order the Spec was decoded from (little-endian for a
	// new Spec); Marshal callers usually pass it back.
	order binary.ByteOrder

	// hdrLen is the header length Marshal writes: HeaderLen for a new Spec,
	// the decoded hdr_len for a parsed one (newer tools write 32-byte
	// headers whose extra bytes are zero), so that decoding and re-encoding
	// reproduces a file byte for byte.
	hdrLen uint32

	// layout is the kind layout table Marshal writes (layout.go), nil for
	// none: a parsed Spec keeps its blob's.
	layout []KindLayout

	// remap is AppendSpec's scratch string-offset map, kept between calls.
	remap []uint32
}

// NewSpec returns an empty Spec. With a non-nil base it is a split Spec whose
// IDs and string offsets continue the base's.
func NewSpec(base *Spec) *Spec {
	s := &Spec{base: base, firstID: 1, order: binary.LittleEndian, hdrLen: HeaderLen}
	if base != nil {
		s.firstID = base.TypeCount() + 1
		s.strs = NewStringTable(base.strs)
		s.order = base.order
	} else {
		s.strs = NewStringTable(nil)
	}
	return s
}

// Base returns the base Spec of a split Spec, or nil.
func (s *Spec) Base() *Spec { return s.base }

// FirstID returns the ID of the Spec's first own type.
func (s *Spec) FirstID() TypeID { return s.firstID }

// NumTypes returns the number of own types (base types and void excluded).
func (s *Spec) NumTypes() int { return len(s.offs) }

// TypeCount returns the highest valid type ID: base and own types, void not
// counted. IDs 0..TypeCount() are valid.
func (s *Spec) TypeCount() TypeID { return s.firstID - 1 + TypeID(len(s.offs)) }

// Strings returns the Spec's own string table (which chains to the base's).
func (s *Spec) Strings() *StringTable { return s.strs }

// ByteOrder returns the byte order the Spec was decoded from, or
// little-endian for a Spec built in memory.
func (s *Spec) ByteOrder() binary.ByteOrder { return s.order }

// HeaderLen returns the header length Marshal writes.
func (s *Spec) HeaderLen() uint32 { return s.hdrLen }

// SetHeaderLen sets the header length Marshal writes; n must be at least
// [HeaderLen] and a multiple of 4. Bytes beyond the 24 known ones are zero.
func (s *Spec) SetHeaderLen(n uint32) { s.hdrLen = n }

// KeepEncoding makes s encode as of was decoded: the byte order ByteOrder
// reports, the header length and the kind layout table Marshal writes. A
// Spec derived from another (a deduplicated copy) keeps its file's form.
func (s *Spec) KeepEncoding(of *Spec) {
	s.order, s.hdrLen, s.layout = of.order, of.hdrLen, of.layout
}

// SetByteOrder sets the byte order reported by ByteOrder.
func (s *Spec) SetByteOrder(o binary.ByteOrder) { s.order = o }

// Words returns the own types' word stream. It aliases the Spec: callers may
// rewrite IDs and offsets in it but must not change kinds or vlens.
func (s *Spec) Words() []uint32 { return s.words }

// Type returns the type with the given ID, looking in the base for base IDs.
// It returns nil for void and for IDs out of range.
func (s *Spec) Type(id TypeID) Type {
	if id < s.firstID {
		if s.base == nil || id == 0 {
			return nil
		}
		return s.base.Type(id)
	}
	i := id - s.firstID
	if i >= TypeID(len(s.offs)) {
		return nil
	}
	return s.typeAt(int(i))
}

// typeAt returns own type i (0-based).
func (s *Spec) typeAt(i int) Type {
	start := s.offs[i]
	end := uint32(len(s.words))
	if i+1 < len(s.offs) {
		end = s.offs[i+1]
	}
	return Type(s.words[start:end:end])
}

// Own returns own type i, counting from 0 (ID FirstID()+i). It panics if i is
// out of range.
func (s *Spec) Own(i int) Type { return s.typeAt(i) }

// Name returns a type's name ("" for anonymous types and void).
func (s *Spec) Name(t Type) string {
	if len(t) == 0 {
		return ""
	}
	return s.strs.String(t[0])
}

// AddString interns a string and returns its offset.
func (s *Spec) AddString(str string) uint32 { return s.strs.Add(str) }

// Append adds a type given as its words (header and trailing) and returns its
// ID. The words are copied. It returns an error if their count does not match
// the kind and vlen in the info word.
func (s *Spec) Append(w []uint32) (TypeID, error) {
	if len(w) < headerWords {
		return 0, fmt.Errorf("btf: type of %d words is shorter than its header", len(w))
	}
	k := InfoKind(w[1])
	n, ok := trailingWords(k, InfoVlen(w[1]))
	if !ok {
		return 0, fmt.Errorf("btf: unknown kind %d", k)
	}
	if len(w) != headerWords+n {
		return 0, fmt.Errorf("btf: %s with vlen %d needs %d words, got %d", k, InfoVlen(w[1]), headerWords+n, len(w))
	}
	return s.appendUnchecked(w), nil
}

// MustAppend is Append for callers that build the words themselves and so
// cannot get the count wrong; it panics on a mismatch, a programming error.
func (s *Spec) MustAppend(w ...uint32) TypeID {
	id, err := s.Append(w)
	if err != nil {
		panic(err)
	}
	return id
}

// AppendWords adds a type of n words and returns them for the caller to
// write, all n of them, before s is read or appended to again. Nothing is
// checked: it is for callers that build many small types whose length they
// know in advance, and that Append's copy and checks would slow down (a
// kernel's conversion appends 3.4 M types). Storage Reserve set aside is
// reused, so the words hold stale values until written.
func (s *Spec) AppendWords(n int) []uint32 {
	s.offs = append(s.offs, uint32(len(s.words)))
	start := len(s.words)
	if cap(s.words)-start < n {
		s.words = slices.Grow(s.words, n)
	}
	s.words = s.words[:start+n]
	return s.words[start : start+n : start+n]
}

// AppendBlank adds types types of words words in all, for the caller to
// fill in, possibly from several goroutines: offs holds the new types'
// start offsets in s's words, each to be set to base plus the type's
// offset in ws, and ws their words, in order. The caller must leave every
// type with the length its kind and vlen call for, as a copy of a type of
// another Spec has, and write all of both slices before s is used again.
func (s *Spec) AppendBlank(types, words int) (offs, ws []uint32, base uint32) {
	s.Reserve(types, words)
	n, w := len(s.offs), len(s.words)
	s.offs, s.words = s.offs[:n+types], s.words[:w+words]
	return s.offs[n:], s.words[w:], uint32(w)
}

func (s *Spec) appendUnchecked(w []uint32) TypeID {
	s.offs = append(s.offs, uint32(len(s.words)))
	s.words = append(s.words, w...)
	return s.TypeCount()
}

// Reserve grows the Spec's storage so that the given numbers of further types
// and words can be appended without reallocation.
func (s *Spec) Reserve(types, words int) {
	if cap(s.offs)-len(s.offs) < types {
		offs := make([]uint32, len(s.offs), len(s.offs)+types)
		copy(offs, s.offs)
		s.offs = offs
	}
	if cap(s.words)-len(s.words) < words {
		ws := make([]uint32, len(s.words), len(s.words)+words)
		copy(ws, s.words)
		s.words = ws
	}
}

// UseStorage makes an empty Spec append its types into offs and words
// (their capacity; their contents are ignored): for a caller that makes
// the storage itself, advised for huge pages, say (package hugemem). It
// panics on a Spec with types, a programming error.
func (s *Spec) UseStorage(offs, words []uint32) {
	if len(s.offs) != 0 {
		panic("btf: UseStorage on a Spec with types") // a programming error
	}
	s.offs, s.words = offs[:0], words[:0]
}

// Storage returns the Spec's type offsets and words with the capacity
// reserved past them, for memory advice (faulting it in ahead of the
// appends, say): the caller must not write them, and they are the Spec's
// storage only until an append outgrows it.
func (s *Spec) Storage() (offs, words []uint32) { return s.offs, s.words }

// SetStrings replaces the string table of a Spec that holds no types yet;
// it panics on a Spec with types, a programming error.
func (s *Spec) SetStrings(strs *StringTable) {
	if len(s.offs) != 0 {
		panic("btf: SetStrings on a Spec with types")
	}
	s.strs = strs
}

// RemapStrings gives the Spec the string table strs, translating every
// string offset of its own types through newOff, which reports false for an
// offset it cannot translate. Then RemapStrings returns an error naming the
// type and changes nothing.
func (s *Spec) RemapStrings(strs *StringTable, newOff func(off uint32) (uint32, bool)) error {
	for i := range s.offs {
		var bad uint32
		ok := true
		s.typeAt(i).ForEachStrRef(func(p *uint32) {
			if _, found := newOff(*p); !found && ok {
				ok, bad = false, *p
			}
		})
		if !ok {
			return fmt.Errorf("type %d: string offset %d has no translation", s.firstID+TypeID(i), bad)
		}
	}
	for i := range s.offs {
		s.typeAt(i).ForEachStrRef(func(p *uint32) { *p, _ = newOff(*p) })
	}
	s.strs = strs
	return nil
}

// The helpers below add one type each and take strings rather than offsets;
// they suit tests and small builders. Hot paths build words and call Append.

// AddInt adds an INT.
func (s *Spec) AddInt(name string, size uint32, encoding uint8, bits uint8) TypeID {
	return s.MustAppend(s.AddString(name), Info(KindInt, false, 0), size, IntWord(encoding, 0, bits))
}

// AddFloat adds a FLOAT.
func (s *Spec) AddFloat(name string, size uint32) TypeID {
	return s.MustAppend(s.AddString(name), Info(KindFloat, false, 0), size)
}

// AddRef adds a type whose only data is one referenced type: PTR, TYPEDEF,
// VOLATILE, CONST, RESTRICT or TYPE_TAG (kind_flag false).
func (s *Spec) AddRef(k Kind, name string, ref TypeID) TypeID {
	return s.MustAppend(s.AddString(name), Info(k, false, 0), ref)
}

// AddFwd adds a FWD; union selects a union forward declaration.
func (s *Spec) AddFwd(name string, union bool) TypeID {
	return s.MustAppend(s.AddString(name), Info(KindFwd, union, 0), 0)
}

// AddArray adds an ARRAY.
func (s *Spec) AddArray(elem, index TypeID, nelems uint32) TypeID {
	return s.MustAppend(0, Info(KindArray, false, 0), 0, elem, index, nelems)
}

// MemberSpec describes a member for AddStruct: BitfieldSize 0 is a plain member.
type MemberSpec struct {
	Name         string
	Type         TypeID
	BitOffset    uint32
	BitfieldSize uint32
}

// AddStruct adds a STRUCT (or UNION when union is set). kind_flag is set when
// any member is a bitfield, as pahole does.
func (s *Spec) AddStruct(union bool, name string, size uint32, members []MemberSpec) TypeID {
	k := KindStruct
	if union {
		k = KindUnion
	}
	kflag := false
	for _, m := range members {
		if m.BitfieldSize != 0 {
			kflag = true
		}
	}
	w := []uint32{s.AddString(name), Info(k, kflag, len(members)), size}
	for _, m := range members {
		off := m.BitOffset
		if kflag {
			off |= m.BitfieldSize << 24
		}
		w = append(w, s.AddString(m.Name), m.Type, off)
	}
	return s.MustAppend(w...)
}

// EnumValueSpec is one enumerator for AddEnum.
type EnumValueSpec struct {
	Name  string
	Value int64
}

// AddEnum adds an ENUM (size up to 4) or ENUM64; signed sets kind_flag.
func (s *Spec) AddEnum(name string, size uint32, signed bool, wide bool, values []EnumValueSpec) TypeID {
	k := KindEnum
	if wide {
		k = KindEnum64
	}
	w := []uint32{s.AddString(name), Info(k, signed, len(values)), size}
	for _, v := range values {
		if wide {
			w = append(w, s.AddString(v.Name), uint32(v.Value), uint32(uint64(v.Value)>>32))
		} else {
			w = append(w, s.AddString(v.Name), uint32(v.Value))
		}
	}
	return s.MustAppend(w...)
}

// ParamSpec is one parameter for AddFuncProto.
type ParamSpec struct {
	Name string
	Type TypeID
}

// AddFuncProto adds a FUNC_PROTO. A final {"" , 0} parameter marks varargs.
func (s *Spec) AddFuncProto(ret TypeID, params []ParamSpec) TypeID {
	w := []uint32{0, Info(KindFuncProto, false, len(params)), ret}
	for _, p := range params {
		w = append(w, s.AddString(p.Name), p.Type)
	}
	return s.MustAppend(w...)
}

// AddFunc adds a FUNC with the given linkage referring to a FUNC_PROTO.
func (s *Spec) AddFunc(name string, proto TypeID, linkage uint32) TypeID {
	return s.MustAppend(s.AddString(name), Info(KindFunc, false, int(linkage)), proto)
}

// AddVar adds a VAR.
func (s *Spec) AddVar(name string, typ TypeID, linkage uint32) TypeID {
	return s.MustAppend(s.AddString(name), Info(KindVar, false, 0), typ, linkage)
}

// SecInfoSpec is one DATASEC entry for AddDatasec.
type SecInfoSpec struct {
	Type   TypeID
	Offset uint32
	Size   uint32
}

// AddDatasec adds a DATASEC.
func (s *Spec) AddDatasec(name string, size uint32, entries []SecInfoSpec) TypeID {
	w := []uint32{s.AddString(name), Info(KindDatasec, false, len(entries)), size}
	for _, e := range entries {
		w = append(w, e.Type, e.Offset, e.Size)
	}
	return s.MustAppend(w...)
}

// AddDeclTag adds a DECL_TAG on typ (component -1 for the type itself);
// attr sets kind_flag (an __attribute__ rather than a btf_decl_tag).
func (s *Spec) AddDeclTag(value string, typ TypeID, component int32, attr bool) TypeID {
	return s.MustAppend(s.AddString(value), Info(KindDeclTag, attr, 0), typ, uint32(component))
}

// AddTypeTag adds a TYPE_TAG; attr sets kind_flag.
func (s *Spec) AddTypeTag(value string, typ TypeID, attr bool) TypeID {
	return s.MustAppend(s.AddString(value), Info(KindTypeTag, attr, 0), typ)
}

// Reset empties a standalone Spec for reuse, keeping its allocated storage:
// a converter that builds one Spec per compilation unit reuses one scratch
// Spec per worker and keeps only an exact-size Clone of each. It panics on
// a split Spec, a programming error.
func (s *Spec) Reset() {
	if s.base != nil {
		panic("btf: Reset of a split Spec")
	}
	s.words = s.words[:0]
	s.offs = s.offs[:0]
	s.strs.Reset()
}

// Clone returns a copy of s whose storage is exactly as large as its
// contents. The copy shares nothing with s except the base.
func (s *Spec) Clone() *Spec {
	c := *s
	c.words = append([]uint32(nil), s.words...)
	c.offs = append([]uint32(nil), s.offs...)
	c.strs = s.strs.Clone()
	return &c
}
