package btf

import (
	"fmt"
	"io"
	"strconv"
)

// This file renders types as text, in the exact format of the raw dump of
// "bpftool btf dump file FILE" (bpftool v7.1.0, src/btf.c, dump_btf_type).
// Per type, the format is:
//
//	[ID] KIND 'NAME'<kind-specific fields>
//	<one tab-indented line per member, enum value, parameter or DATASEC entry>
//
// NAME is "(anon)" for name offset 0 and "(invalid)" for an offset outside the
// string sections; names are printed raw, without escaping. Unknown encodings
// and linkages print as "UNKN" and "(unknown)". Everything is appended to a
// reused byte buffer with strconv.Append*, so dumping allocates nothing per
// type.

// dumpChunk is how many bytes Dump gathers before handing them to its writer.
const dumpChunk = 64 << 10

// Dump writes every own type of s (for a split Spec, only the split part, as
// "bpftool -B BASE btf dump file FILE" does) to w in bpftool's raw text
// format. Names of base types and strings are resolved through the base. It
// gathers output in 64 KiB chunks, so w need not be buffered.
func (s *Spec) Dump(w io.Writer) error {
	buf := make([]byte, 0, dumpChunk+4096)
	for i := range s.offs {
		buf = s.appendDump(buf, s.firstID+TypeID(i), s.typeAt(i))
		if len(buf) >= dumpChunk {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("btf: writing dump: %w", err)
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("btf: writing dump: %w", err)
		}
	}
	return nil
}

// AppendDump appends the bpftool text of the type with the given ID (own or
// base) to dst and returns the extended slice. An ID with no type (void or out
// of range) appends nothing.
func (s *Spec) AppendDump(dst []byte, id TypeID) []byte {
	t := s.Type(id)
	if len(t) == 0 {
		return dst
	}
	return s.appendDump(dst, id, t)
}

// dumpKindName is the kind name bpftool prints: kinds it does not know print
// as UNKNOWN.
func dumpKindName(k Kind) string {
	if k > MaxKind {
		k = KindUnknown
	}
	return kindNames[k]
}

// appendName appends a quoted name as bpftool's btf_str renders it.
func (s *Spec) appendName(dst []byte, off uint32) []byte {
	dst = append(dst, '\'')
	if off == 0 {
		dst = append(dst, "(anon)"...)
	} else if name, ok := s.strs.Lookup(off); ok {
		dst = append(dst, name...)
	} else {
		dst = append(dst, "(invalid)"...)
	}
	return append(dst, '\'')
}

// intEncodingName names an INT encoding; only single flags have names.
func intEncodingName(enc uint8) string {
	switch enc {
	case 0:
		return "(none)"
	case IntSigned:
		return "SIGNED"
	case IntChar:
		return "CHAR"
	case IntBool:
		return "BOOL"
	}
	return "UNKN"
}

// linkageName names a FUNC or VAR linkage (both use the same numbering).
func linkageName(l uint32) string {
	switch l {
	case LinkageStatic:
		return "static"
	case LinkageGlobal:
		return "global"
	case LinkageExtern:
		return "extern"
	}
	return "(unknown)"
}

// appendField appends " key=" and an unsigned decimal value.
func appendField(dst []byte, key string, v uint32) []byte {
	dst = append(dst, key...)
	return strconv.AppendUint(dst, uint64(v), 10)
}

// appendDump appends the text of type t, whose ID is id. t must be a whole
// type (as every Type of a Spec is), so its trailing words match its vlen.
func (s *Spec) appendDump(dst []byte, id TypeID, t Type) []byte {
	k := t.Kind()
	dst = append(dst, '[')
	dst = strconv.AppendUint(dst, uint64(id), 10)
	dst = append(dst, "] "...)
	dst = append(dst, dumpKindName(k)...)
	dst = append(dst, ' ')
	dst = s.appendName(dst, t.NameOff())

	kflag := t.KindFlag()
	vlen := t.Vlen()
	switch k {
	case KindInt:
		enc, off, bits := t.IntData()
		dst = appendField(dst, " size=", t.Size())
		dst = appendField(dst, " bits_offset=", uint32(off))
		dst = appendField(dst, " nr_bits=", uint32(bits))
		dst = append(dst, " encoding="...)
		dst = append(dst, intEncodingName(enc)...)
	case KindPtr, KindConst, KindVolatile, KindRestrict, KindTypedef, KindTypeTag:
		dst = appendField(dst, " type_id=", t.Ref())
	case KindArray:
		elem, index, n := t.Array()
		dst = appendField(dst, " type_id=", elem)
		dst = appendField(dst, " index_type_id=", index)
		dst = appendField(dst, " nr_elems=", n)
	case KindStruct, KindUnion:
		dst = appendField(dst, " size=", t.Size())
		dst = appendField(dst, " vlen=", uint32(vlen))
		for i := 0; i < vlen; i++ {
			m := t.Member(i)
			dst = append(dst, "\n\t"...)
			dst = s.appendName(dst, m.NameOff)
			dst = appendField(dst, " type_id=", m.Type)
			dst = appendField(dst, " bits_offset=", MemberBitOffset(kflag, m.Offset))
			if sz := MemberBitfieldSize(kflag, m.Offset); sz != 0 {
				dst = appendField(dst, " bitfield_size=", sz)
			}
		}
	case KindEnum:
		dst = appendEnumHeader(dst, kflag, t.Size(), vlen)
		for i := 0; i < vlen; i++ {
			name, val := t.EnumValue(i)
			dst = append(dst, "\n\t"...)
			dst = s.appendName(dst, name)
			dst = append(dst, " val="...)
			if kflag {
				dst = strconv.AppendInt(dst, int64(int32(val)), 10)
			} else {
				dst = strconv.AppendUint(dst, uint64(val), 10)
			}
		}
	case KindEnum64:
		dst = appendEnumHeader(dst, kflag, t.Size(), vlen)
		for i := 0; i < vlen; i++ {
			name, val := t.Enum64Value(i)
			dst = append(dst, "\n\t"...)
			dst = s.appendName(dst, name)
			dst = append(dst, " val="...)
			if kflag {
				dst = strconv.AppendInt(dst, int64(val), 10)
				dst = append(dst, "LL"...)
			} else {
				dst = strconv.AppendUint(dst, val, 10)
				dst = append(dst, "ULL"...)
			}
		}
	case KindFwd:
		if kflag {
			dst = append(dst, " fwd_kind=union"...)
		} else {
			dst = append(dst, " fwd_kind=struct"...)
		}
	case KindFunc:
		dst = appendField(dst, " type_id=", t.Ref())
		dst = append(dst, " linkage="...)
		dst = append(dst, linkageName(uint32(vlen))...)
	case KindFuncProto:
		dst = appendField(dst, " ret_type_id=", t.Ref())
		dst = appendField(dst, " vlen=", uint32(vlen))
		for i := 0; i < vlen; i++ {
			name, typ := t.Param(i)
			dst = append(dst, "\n\t"...)
			dst = s.appendName(dst, name)
			dst = appendField(dst, " type_id=", typ)
		}
	case KindVar:
		// bpftool separates the two fields of a VAR with a comma.
		dst = appendField(dst, " type_id=", t.Ref())
		dst = append(dst, ", linkage="...)
		dst = append(dst, linkageName(t[3])...)
	case KindDatasec:
		dst = appendField(dst, " size=", t.Size())
		dst = appendField(dst, " vlen=", uint32(vlen))
		count := s.TypeCount()
		for i := 0; i < vlen; i++ {
			typ, off, size := t.SecInfo(i)
			dst = appendField(dst, "\n\ttype_id=", typ)
			dst = appendField(dst, " offset=", off)
			dst = appendField(dst, " size=", size)
			// The referenced type is named only when its ID is
			// valid; ID 0 is void, an UNKNOWN without a name.
			if typ <= count {
				vt := s.Type(typ)
				var nameOff uint32
				if len(vt) != 0 {
					nameOff = vt.NameOff()
				}
				dst = append(dst, " ("...)
				dst = append(dst, dumpKindName(vt.Kind())...)
				dst = append(dst, ' ')
				dst = s.appendName(dst, nameOff)
				dst = append(dst, ')')
			}
		}
	case KindFloat:
		dst = appendField(dst, " size=", t.Size())
	case KindDeclTag:
		dst = appendField(dst, " type_id=", t.Ref())
		dst = append(dst, " component_idx="...)
		dst = strconv.AppendInt(dst, int64(t.ComponentIdx()), 10)
	}
	return append(dst, '\n')
}

// appendEnumHeader appends the fields ENUM and ENUM64 share: the signedness
// (kind_flag), the size and vlen.
func appendEnumHeader(dst []byte, signed bool, size uint32, vlen int) []byte {
	if signed {
		dst = append(dst, " encoding=SIGNED"...)
	} else {
		dst = append(dst, " encoding=UNSIGNED"...)
	}
	dst = appendField(dst, " size=", size)
	return appendField(dst, " vlen=", uint32(vlen))
}
