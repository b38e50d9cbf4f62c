package btf

// TypeID identifies a type: 0 is void, own types of a standalone Spec are 1..N,
// and a split Spec's IDs continue after its base's.
type TypeID = uint32

// Type is one type's words inside a Spec's word stream: the three header words
// (name offset, info, size-or-type) followed by the kind's trailing words. It
// aliases the Spec's storage, so writing through it rewrites the type in place.
// The zero Type (nil) stands for void.
type Type []uint32

// NameOff returns the offset of the type's name in the string section.
func (t Type) NameOff() uint32 { return t[0] }

// Info returns the raw info word.
func (t Type) Info() uint32 { return t[1] }

// Kind returns the type's kind; void's kind is KindUnknown.
func (t Type) Kind() Kind {
	if len(t) == 0 {
		return KindUnknown
	}
	return InfoKind(t[1])
}

// Vlen returns the type's vlen (member, value, parameter or entry count; FUNC
// linkage).
func (t Type) Vlen() int { return InfoVlen(t[1]) }

// KindFlag returns the type's kind_flag.
func (t Type) KindFlag() bool { return InfoKindFlag(t[1]) }

// Size returns the size word, meaningful for INT, STRUCT, UNION, ENUM, ENUM64,
// DATASEC and FLOAT.
func (t Type) Size() uint32 { return t[2] }

// Ref returns the type word, meaningful for PTR, TYPEDEF, the modifiers,
// TYPE_TAG, FUNC, FUNC_PROTO (return type), VAR and DECL_TAG.
func (t Type) Ref() TypeID { return t[2] }

// IntData returns an INT's encoding bits, bit offset and bit count.
func (t Type) IntData() (encoding, offset, bits uint8) {
	w := t[3]
	return uint8(w >> 24 & 0x0f), uint8(w >> 16), uint8(w)
}

// IntWord packs an INT's trailing word.
func IntWord(encoding, offset, bits uint8) uint32 {
	return uint32(encoding&0x0f)<<24 | uint32(offset)<<16 | uint32(bits)
}

// Array returns an ARRAY's element type, index type and element count.
func (t Type) Array() (elem, index TypeID, nelems uint32) { return t[3], t[4], t[5] }

// Member is one member of a STRUCT or UNION as stored: Offset is the raw
// offset word (see [Member.BitOffset] and [Member.BitfieldSize]).
type Member struct {
	NameOff uint32
	Type    TypeID
	Offset  uint32
}

// Member returns member i of a STRUCT or UNION.
func (t Type) Member(i int) Member {
	j := headerWords + 3*i
	return Member{t[j], t[j+1], t[j+2]}
}

// MemberBitOffset decodes a member's bit offset: with kind_flag set, the low
// 24 bits are the offset and the high 8 bits the bitfield size.
func MemberBitOffset(kindFlag bool, off uint32) uint32 {
	if kindFlag {
		return off & 0xffffff
	}
	return off
}

// MemberBitfieldSize decodes a member's bitfield size (0 for a plain member).
func MemberBitfieldSize(kindFlag bool, off uint32) uint32 {
	if kindFlag {
		return off >> 24
	}
	return 0
}

// EnumValue returns value i of an ENUM: its name offset and its 32-bit value.
func (t Type) EnumValue(i int) (nameOff, val uint32) {
	j := headerWords + 2*i
	return t[j], t[j+1]
}

// Enum64Value returns value i of an ENUM64: its name offset and 64-bit value.
func (t Type) Enum64Value(i int) (nameOff uint32, val uint64) {
	j := headerWords + 3*i
	return t[j], uint64(t[j+2])<<32 | uint64(t[j+1])
}

// Param returns parameter i of a FUNC_PROTO: its name offset and type. A
// trailing parameter with name 0 and type 0 marks varargs.
func (t Type) Param(i int) (nameOff uint32, typ TypeID) {
	j := headerWords + 2*i
	return t[j], t[j+1]
}

// Linkage returns a VAR's linkage (from its trailing word) or a FUNC's (from
// vlen).
func (t Type) Linkage() uint32 {
	if t.Kind() == KindFunc {
		return uint32(t.Vlen())
	}
	return t[3]
}

// SecInfo returns entry i of a DATASEC: the VAR (or FUNC) it places, the
// offset and the size.
func (t Type) SecInfo(i int) (typ TypeID, offset, size uint32) {
	j := headerWords + 3*i
	return t[j], t[j+1], t[j+2]
}

// ComponentIdx returns a DECL_TAG's component index: -1 for the type itself,
// otherwise a member or parameter index.
func (t Type) ComponentIdx() int32 { return int32(t[3]) }

// ForEachTypeRef calls fn with a pointer to every word of t that holds a type
// ID, in layout order. Writing through the pointer rewrites the reference in
// place. INT, ENUM, ENUM64, FWD and FLOAT refer to no type.
func (t Type) ForEachTypeRef(fn func(*uint32)) {
	switch t.Kind() {
	case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict,
		KindFunc, KindVar, KindDeclTag, KindTypeTag:
		fn(&t[2])
	case KindArray:
		fn(&t[3])
		fn(&t[4])
	case KindStruct, KindUnion:
		for j := headerWords + 1; j < len(t); j += 3 {
			fn(&t[j])
		}
	case KindFuncProto:
		fn(&t[2])
		for j := headerWords + 1; j < len(t); j += 2 {
			fn(&t[j])
		}
	case KindDatasec:
		for j := headerWords; j < len(t); j += 3 {
			fn(&t[j])
		}
	}
}

// ForEachStrRef calls fn with a pointer to every word of t that holds a string
// offset: the type's name, then member, enum value and parameter names.
func (t Type) ForEachStrRef(fn func(*uint32)) {
	fn(&t[0])
	switch t.Kind() {
	case KindStruct, KindUnion, KindEnum64:
		for j := headerWords; j < len(t); j += 3 {
			fn(&t[j])
		}
	case KindEnum, KindFuncProto:
		for j := headerWords; j < len(t); j += 2 {
			fn(&t[j])
		}
	}
}
