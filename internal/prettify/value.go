package prettify

import (
	"strconv"

	"github.com/gobtf/gobtf/internal/classlayout"
)

// tabs is as many tabs as pahole indents by at most.
const tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"

// valuePrinter writes records as C initializers, byte for byte as pahole's
// tag__fprintf_value does, appending to buf. A record is read from rec at
// the offsets of its type's members; bytes past rec read as zero.
type valuePrinter struct {
	buf []byte
	hex bool // --hex: numbers as %#llx

	// The struct whose type= member prints as the name of its value in
	// enums (type_enum=): in pahole that member belongs to the struct's
	// one definition, so it prints so wherever the struct is nested.
	typeModel  *classlayout.Model
	typeStruct uint32
	typeMember int
	enums      []uint32
}

// record prints rec as type id of m (size bytes, the record's size): a
// struct as its members' initializers, anything else as a hex dump.
func (p *valuePrinter) record(m *classlayout.Model, id uint32, rec []byte, size int) {
	if t := m.Type(id); t != nil && t.Kind == classlayout.KindStruct {
		p.structValue(m, id, rec, 0, size, 0, true)
		return
	}
	p.hexdump(rec, 0, size)
}

// structValue is __class__fprintf_value: the members of struct or union
// id at off in rec, one a line, indented; an anonymous union's members
// print as if they were the enclosing struct's.
func (p *valuePrinter) structValue(m *classlayout.Model, id uint32, rec []byte, off, size, indent int, brackets bool) {
	t := m.Type(id)
	if brackets {
		p.buf = append(p.buf, '{')
	}
	members := m.MembersOf(t)
	typed := p.typeModel == m && p.typeStruct == id && len(p.enums) > 0
	for i := range members {
		mb := &members[i]
		at := off + int(mb.ByteOffset)
		if mb.Name != "" {
			p.buf = append(p.buf, '\n')
			p.buf = append(p.buf, tabs[:min(indent, len(tabs))]...)
			p.buf = append(p.buf, "\t."...)
			p.buf = append(p.buf, mb.Name...)
			p.buf = append(p.buf, " = "...)
		}
		mt := m.Type(mb.Type)
		switch {
		case typed && i == p.typeMember:
			v := baseValue(rec, at, int(mb.ByteSize))
			if name, ok := p.enumName(m, v); ok {
				p.buf = append(p.buf, name...)
			} else {
				p.number(v)
			}
		case mb.BitfieldSize != 0:
			p.number(bitfieldValue(rec, at, mb))
		case isBaseType(m, mb.Type):
			p.number(baseValue(rec, at, int(mb.ByteSize)))
		case isArray(m, mb.Type):
			n := int(mb.ByteSize)
			if n == 0 && i == len(members)-1 {
				n = size - int(mb.ByteOffset) // a flexible array: the rest of the record
			}
			p.arrayValue(m, mb.Type, rec, at, n)
		case mt != nil && mt.Kind == classlayout.KindStruct:
			p.structValue(m, mb.Type, rec, at, int(mb.ByteSize), indent+1, true)
		case mt != nil && mt.Kind == classlayout.KindUnion:
			if mb.Name == "" {
				p.structValue(m, mb.Type, rec, at, int(mb.ByteSize), indent, false)
				continue
			}
			p.structValue(m, mb.Type, rec, at, int(mb.ByteSize), indent+1, true)
		default:
			p.hexdump(rec, at, int(mb.ByteSize))
		}
		p.buf = append(p.buf, ',')
	}
	if brackets {
		p.buf = append(p.buf, '\n')
		p.buf = append(p.buf, tabs[:min(indent, len(tabs))]...)
		p.buf = append(p.buf, '}')
	}
}

// enumName is enumerations__lookup_value: the name of the first
// enumerator of the type_enum enumerations whose value is v.
func (p *valuePrinter) enumName(m *classlayout.Model, v uint64) (string, bool) {
	for _, e := range p.enums {
		for _, en := range enumerators(m, e) {
			if en.Value == v {
				return en.Name, true
			}
		}
	}
	return "", false
}

// arrayValue is array__fprintf_value on a member of array type id, n
// bytes at off: an array of char as a string, a one-dimensional array of
// an integer type as its values, anything else as a hex dump.
func (p *valuePrinter) arrayValue(m *classlayout.Model, id uint32, rec []byte, off, n int) {
	t := m.Type(id)
	if t.Kind != classlayout.KindArray {
		// pahole reaches an array through a typedef or const, whose
		// element it takes to be the typedef's or const's target: never
		// a char or an integer type.
		p.hexdump(rec, off, n)
		return
	}
	elem := m.Type(t.Ref)
	switch {
	case elem != nil && elem.Kind == classlayout.KindBase && elem.Name == "char":
		p.stringValue(rec, off, n)
	case isBaseType(m, t.Ref):
		if t.N != 1 {
			p.hexdump(rec, off, n)
			return
		}
		esize := int(baseSize(m, t.Ref))
		count := int(m.Dims[t.First])
		if count == 0 && esize != 0 {
			count = n / esize
		}
		p.buf = append(p.buf, "{ "...)
		for i := 0; i < count; i++ {
			if i > 0 {
				p.buf = append(p.buf, ", "...)
			}
			p.number(baseValue(rec, off+i*esize, esize))
		}
		p.buf = append(p.buf, " }"...)
	default:
		p.hexdump(rec, off, n)
	}
}

// stringValue is "%-.*s": at most n bytes, up to the first NUL; a
// negative n (a flexible array past the record's end) means no limit.
func (p *valuePrinter) stringValue(rec []byte, off, n int) {
	p.buf = append(p.buf, '"')
	for i := 0; n < 0 || i < n; i++ {
		c := byteAt(rec, off+i)
		if c == 0 {
			break
		}
		p.buf = append(p.buf, c)
	}
	p.buf = append(p.buf, '"')
}

const hexDigits = "0123456789abcdef"

// hexdump is instance__fprintf_hexdump_value: n bytes as 0x%02x, blank
// separated.
func (p *valuePrinter) hexdump(rec []byte, off, n int) {
	for i := 0; i < n; i++ {
		if i != 0 {
			p.buf = append(p.buf, ' ')
		}
		c := byteAt(rec, off+i)
		p.buf = append(p.buf, '0', 'x', hexDigits[c>>4], hexDigits[c&15])
	}
}

// number is fprintf__value: %lld, or %#llx with --hex (0 without "0x").
func (p *valuePrinter) number(v uint64) {
	switch {
	case !p.hex:
		p.buf = strconv.AppendInt(p.buf, int64(v), 10)
	case v == 0:
		p.buf = append(p.buf, '0')
	default:
		p.buf = append(p.buf, '0', 'x')
		p.buf = strconv.AppendUint(p.buf, v, 16)
	}
}

// byteAt is rec[i], zero past its end.
func byteAt(rec []byte, i int) byte {
	if i < 0 || i >= len(rec) {
		return 0
	}
	return rec[i]
}

// baseValue is base_type__value: n bytes at off, little endian, sign
// extended from C's int, long, char or short (sizes 4, 8, 1, 2); 0 for
// any other size.
func baseValue(rec []byte, off, n int) uint64 {
	if off >= 0 && off+n <= len(rec) {
		b := rec[off : off+n]
		switch n {
		case 4:
			return uint64(int64(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)))
		case 8:
			return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		case 1:
			return uint64(int64(int8(b[0])))
		case 2:
			return uint64(int64(int16(uint16(b[0]) | uint16(b[1])<<8)))
		}
		return 0
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(byteAt(rec, off+i))
	}
	switch n {
	case 4:
		return uint64(int64(int32(v)))
	case 8:
		return v
	case 1:
		return uint64(int64(int8(v)))
	case 2:
		return uint64(int64(int16(v)))
	}
	return 0
}

// bitfieldValue is class_member__bitfield_value: the member's bits of the
// storage unit it is read from.
func bitfieldValue(rec []byte, off int, mb *classlayout.Member) uint64 {
	v := baseValue(rec, off, int(mb.ByteSize))
	var mask uint64
	if mb.BitfieldSize >= 64 {
		mask = ^uint64(0)
	} else {
		mask = 1<<mb.BitfieldSize - 1
	}
	sh := uint(mb.BitfieldOffset) & 63
	return (v & (mask << sh)) >> sh
}

// isBaseType is tag__is_base_type: an integer or floating-point type,
// through typedefs.
func isBaseType(m *classlayout.Model, id uint32) bool {
	for range 64 {
		t := m.Type(id)
		if t == nil {
			return false
		}
		switch t.Kind {
		case classlayout.KindBase:
			return true
		case classlayout.KindTypedef:
			id = t.Ref
		default:
			return false
		}
	}
	return false
}

// isArray is tag__is_array: an array, through typedefs and const.
func isArray(m *classlayout.Model, id uint32) bool {
	for range 64 {
		t := m.Type(id)
		if t == nil {
			return false
		}
		switch t.Kind {
		case classlayout.KindArray:
			return true
		case classlayout.KindTypedef, classlayout.KindConst:
			id = t.Ref
		default:
			return false
		}
	}
	return false
}

// baseSize is base_type__size of an array's element, through typedefs.
func baseSize(m *classlayout.Model, id uint32) uint32 {
	for range 64 {
		t := m.Type(id)
		if t == nil {
			return 0
		}
		if t.Kind != classlayout.KindTypedef {
			return t.Size
		}
		id = t.Ref
	}
	return 0
}

// sizeOf is tag__size: the bytes a type takes (through typedefs and
// modifiers; arrays by their elements; pointers the address size).
func sizeOf(m *classlayout.Model, id uint32) int {
	mult := 1
	for range 64 {
		t := m.Type(id)
		if t == nil {
			return 0
		}
		switch t.Kind {
		case classlayout.KindStruct, classlayout.KindUnion:
			if t.Size == 1 && t.N == 0 {
				return 0 // pahole's empty base optimization trick (C++'s empty classes)
			}
			return mult * int(t.Size)
		case classlayout.KindEnum, classlayout.KindBase:
			return mult * int(t.Size)
		case classlayout.KindPointer:
			return mult * int(m.AddrSize)
		case classlayout.KindArray:
			for _, d := range m.Dims[t.First : t.First+t.N] {
				mult *= int(d)
			}
		}
		id = t.Ref
	}
	return 0
}
