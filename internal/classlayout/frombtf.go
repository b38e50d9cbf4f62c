package classlayout

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
)

// btfSource is the one unit a BTF file is, loaded by FromBTF.
type btfSource struct {
	name string
	spec *btf.Spec
}

// BTFSource returns spec, the BTF read from the file name, as a Source of
// one unit: every type of spec, its base's included.
func BTFSource(name string, spec *btf.Spec) Source { return &btfSource{name, spec} }

func (s *btfSource) numUnits() int     { return 1 }
func (s *btfSource) badArgsFail() bool { return false }
func (s *btfSource) path() string      { return s.name }

// unitName is the file's path: pahole names a BTF file's one unit so.
func (s *btfSource) unitName(int) string { return s.name }

// unitLang is DW_LANG_C: pahole takes BTF for C.
func (s *btfSource) unitLang(int) dwarf.Lang { return dwarf.LangC }

func (s *btfSource) loadUnit(_ int, opt *Options, _ bool) (*Model, error) {
	m, err := FromBTF(s.spec, opt.cacheline())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	m.UnitName = s.name // -I names the file, as pahole names a BTF file's one unit
	return m, nil
}

// FromBTF builds the model of every type of spec (its base's included, as
// pahole loads split BTF), with pahole's BTF loader's reading of bitfields
// and its inference of __aligned__ attributes from member offsets, which
// depends on the cacheline size (bytes).
func FromBTF(spec *btf.Spec, cacheline uint32) (*Model, error) {
	n := int(spec.TypeCount()) + 1
	m := &Model{Types: make([]Type, n)}
	strs := spec.Strings()
	for id := 1; id < n; id++ {
		t := spec.Type(btf.TypeID(id))
		if t == nil {
			return nil, fmt.Errorf("btf: type %d missing", id)
		}
		if err := m.addBTF(strs, t, &m.Types[id]); err != nil {
			return nil, fmt.Errorf("btf: type %d: %w", id, err)
		}
	}
	m.AddrSize = spec.PointerSize()
	if err := m.checkRefs(); err != nil {
		return nil, err
	}
	for id := range m.Types {
		if t := &m.Types[id]; t.Kind == KindStruct || t.Kind == KindUnion {
			m.fixupBTFMembers(t, cacheline)
		}
	}
	return m, nil
}

func (m *Model) addBTF(strs *btf.StringTable, t btf.Type, out *Type) error {
	out.Name = strs.String(t.NameOff())
	switch t.Kind() {
	case btf.KindInt:
		// pahole keeps BTF_INT_BOOL in a one-bit field, where it is
		// lost: BTF booleans print as their name ("_Bool").
		_, _, bits := t.IntData()
		out.Kind, out.Size = KindBase, uint32(bits)/8
	case btf.KindFloat:
		out.Kind, out.Size, out.Flags = KindBase, t.Size(), FlagFloat
	case btf.KindPtr:
		out.Kind, out.Ref = KindPointer, t.Ref()
	case btf.KindConst:
		out.Kind, out.Ref = KindConst, t.Ref()
	case btf.KindVolatile:
		out.Kind, out.Ref = KindVolatile, t.Ref()
	case btf.KindRestrict:
		out.Kind, out.Ref = KindRestrict, t.Ref()
	case btf.KindTypeTag:
		out.Kind, out.Ref = KindAnnotation, t.Ref()
	case btf.KindTypedef:
		out.Kind, out.Ref = KindTypedef, t.Ref()
	case btf.KindArray:
		elem, _, nelems := t.Array()
		out.Kind, out.Ref, out.First, out.N = KindArray, elem, uint32(len(m.Dims)), 1
		m.Dims = append(m.Dims, nelems)
	case btf.KindStruct, btf.KindUnion:
		out.Kind, out.Size = KindStruct, t.Size()
		if t.Kind() == btf.KindUnion {
			out.Kind = KindUnion
		}
		out.First, out.N = uint32(len(m.Members)), uint32(t.Vlen())
		kf := t.KindFlag()
		for i := range t.Vlen() {
			mb := t.Member(i)
			bo := btf.MemberBitOffset(kf, mb.Offset)
			m.Members = append(m.Members, Member{
				Name: strs.String(mb.NameOff), Type: mb.Type, BitOffset: bo,
				BitfieldSize: btf.MemberBitfieldSize(kf, mb.Offset), ByteOffset: bo / 8,
			})
		}
	case btf.KindEnum, btf.KindEnum64:
		out.Kind, out.Size = KindEnum, t.Size()
		if out.Size == 0 {
			out.Size = 4
		}
		if t.KindFlag() {
			out.Flags |= FlagSigned
		}
		out.First, out.N = uint32(len(m.Enumerators)), uint32(t.Vlen())
		for i := range t.Vlen() {
			var name uint32
			var v uint64
			if t.Kind() == btf.KindEnum {
				var v32 uint32
				name, v32 = t.EnumValue(i)
				v = uint64(v32)
				if t.KindFlag() {
					v = uint64(int64(int32(v32)))
				}
			} else {
				name, v = t.Enum64Value(i)
			}
			m.Enumerators = append(m.Enumerators, Enumerator{strs.String(name), v})
		}
	case btf.KindFwd:
		out.Kind, out.Flags = KindStruct, FlagDeclaration
		if t.KindFlag() {
			out.Kind = KindUnion
		}
	case btf.KindFuncProto:
		out.Kind, out.Ref, out.First = KindFuncProto, t.Ref(), uint32(len(m.Params))
		for i := range t.Vlen() {
			name, typ := t.Param(i)
			if typ == 0 {
				out.Flags |= FlagVarargs
				continue
			}
			m.Params = append(m.Params, Param{strs.String(name), typ})
		}
		out.N = uint32(len(m.Params)) - out.First
	case btf.KindFunc:
		out.Kind, out.Ref = KindFunc, t.Ref()
	case btf.KindVar:
		out.Kind, out.Ref = KindVar, t.Ref()
	default: // DATASEC, DECL_TAG and kinds pahole does not know: no type.
		out.Kind = KindVoid
	}
	return nil
}

// checkRefs makes sure every reference names a type of the model.
func (m *Model) checkRefs() error {
	n := uint32(len(m.Types))
	for id := range m.Types {
		t := &m.Types[id]
		if t.Ref >= n {
			return fmt.Errorf("btf: type %d refers to type %d, beyond the last (%d)", id, t.Ref, n-1)
		}
	}
	for i := range m.Members {
		if m.Members[i].Type >= n {
			return fmt.Errorf("btf: member %q refers to type %d, beyond the last (%d)", m.Members[i].Name, m.Members[i].Type, n-1)
		}
	}
	for i := range m.Params {
		if m.Params[i].Type >= n {
			return fmt.Errorf("btf: parameter %q refers to type %d, beyond the last (%d)", m.Params[i].Name, m.Params[i].Type, n-1)
		}
	}
	return nil
}

// fixupBTFMembers gives each member of a struct or union read from BTF the
// byte offset, size and bitfield offset pahole shows, and infers the
// __aligned__ attributes of the members and of the type from gaps the
// members' natural alignments do not explain.
func (m *Model) fixupBTFMembers(t *Type, cacheline uint32) {
	var smallest uint32
	for i := range m.MembersOf(t) {
		pos := &m.Members[t.First+uint32(i)]
		typ := m.stripTypedefsAndModifiers(pos.Type)
		if typ == nil {
			continue
		}
		pos.BitfieldOffset = 0
		pos.ByteSize = m.tagSize(typ, 0)
		pos.BitSize = pos.ByteSize * 8
		if pos.ByteSize == 0 {
			pos.Align = inferAlignment(cacheline, pos.ByteOffset, m.naturalAlignment(typ, 0), smallest)
			continue
		}
		if typ.Kind == KindBase || typ.Kind == KindEnum {
			if pos.BitfieldSize != 0 {
				pos.ByteOffset = pos.BitOffset / pos.BitSize * pos.BitSize / 8
				pos.BitfieldOffset = int32(pos.BitOffset - pos.ByteOffset*8)
				if pos.BitfieldOffset < 0 {
					pos.BitfieldOffset += int32(pos.BitSize)
					pos.ByteOffset -= pos.ByteSize
					pos.BitOffset = pos.ByteOffset*8 + uint32(pos.BitfieldOffset)
				}
			} else {
				pos.ByteOffset = pos.BitOffset / 8
			}
		}
		pos.Align = inferAlignment(cacheline, pos.ByteOffset, m.naturalAlignment(typ, 0), smallest)
		smallest = pos.ByteOffset
		if pos.BitfieldSize != 0 {
			smallest += (uint32(pos.BitfieldOffset) + pos.BitfieldSize + 7) / 8
		} else {
			smallest += pos.ByteSize
		}
	}
	t.Align = inferAlignment(cacheline, t.Size, m.naturalAlignment(t, 0), smallest)
}

// inferAlignment is pahole's guess of an __aligned__ attribute from a gap:
// the power of two above the distance from the end of the previous member,
// when it exceeds the natural alignment; the cacheline size when that is
// compatible.
func inferAlignment(cacheline, offset, natural, smallest uint32) uint32 {
	var a uint32
	if delta := offset - smallest; delta != 0 && offset%2 == 0 {
		a = 1 << (32 - clz32(delta))
	}
	if a <= natural || a == 1 {
		return 0
	}
	if a < cacheline && cacheline%a == 0 && offset%cacheline == 0 {
		return cacheline
	}
	return a
}

func clz32(x uint32) uint32 {
	n := uint32(0)
	for x&0x80000000 == 0 && n < 32 {
		x <<= 1
		n++
	}
	return n
}
