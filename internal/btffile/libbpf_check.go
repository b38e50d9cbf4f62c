package btffile

import (
	"encoding/binary"
	"syscall"

	"github.com/gobtf/gobtf/internal/btf"
)

// libbpf's limits and sizes.
const (
	headerMin     = 24 // offsetofend(struct btf_header, str_len)
	headerFull    = 32 // sizeof(struct btf_header), with the layout fields
	maxStrOffset  = 0x7fffffff
	typeHeader    = 12 // sizeof(struct btf_type)
	kindLayoutLen = 4  // sizeof(struct btf_layout)
)

// blob is a BTF blob as libbpf's btf_new sees it while it checks it.
type blob struct {
	data                                                   []byte
	order                                                  binary.ByteOrder
	swapped                                                bool // the blob's byte order is not this machine's
	hdrLen                                                 uint32
	typeOff, typeLen, strOff, strLen, layoutOff, layoutLen uint32

	base     *btf.Spec
	startID  uint32 // the first own type ID
	startStr uint32 // the first own string offset
	offs     []uint32
}

// check runs btf_new's checks on data, split on base when not nil:
// btf_parse_hdr, btf_parse_str_sec, btf_parse_layout_sec,
// btf_parse_type_sec and btf_sanity_check, in that order, logging what
// libbpf logs.
func (o *opener) check(data []byte, base *btf.Spec) (*blob, error) {
	b := &blob{data: data, base: base, startID: 1}
	if base != nil {
		b.startID = base.TypeCount() + 1
		b.startStr = base.Strings().Len()
	}
	for _, step := range []func(*opener) error{b.header, b.strings, b.layout, b.types, b.sanity} {
		if err := step(o); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// canonical returns the blob's sections, as check found them, behind a
// header of version 1 of its own: types, then the kind layout section if
// any, then strings.
func (b *blob) canonical() []byte {
	sec := func(off, n uint32) []byte { return b.data[b.hdrLen+off:][:n] }
	types, strs := sec(b.typeOff, b.typeLen), sec(b.strOff, b.strLen)
	var layout []byte
	hdr := uint32(headerMin)
	if b.layoutLen != 0 {
		layout, hdr = sec(b.layoutOff, b.layoutLen), headerFull
	}
	out := make([]byte, hdr, int(hdr)+len(types)+len(layout)+len(strs))
	b.order.PutUint16(out, btf.Magic)
	out[2] = btf.Version
	put := func(i int, v uint32) { b.order.PutUint32(out[4*i:], v) }
	put(1, hdr)
	put(3, b.typeLen)
	put(4, b.typeLen+b.layoutLen)
	put(5, b.strLen)
	if layout != nil {
		put(6, b.typeLen)
		put(7, b.layoutLen)
	}
	return append(append(append(out, types...), layout...), strs...)
}

// header is btf_parse_hdr.
func (b *blob) header(o *opener) error {
	if len(b.data) < headerMin {
		o.logf(Debug, "BTF header not found")
		return o.fail(syscall.EINVAL)
	}
	native := binary.ByteOrder(binary.NativeEndian)
	other := binary.ByteOrder(binary.BigEndian)
	if native.Uint16([]byte{0, 1}) == 1 {
		other = binary.LittleEndian
	}
	switch magic := native.Uint16(b.data); magic {
	case btf.Magic:
		b.order = native
	case btf.Magic>>8 | btf.Magic&0xff<<8:
		b.order, b.swapped = other, true
		if n := other.Uint32(b.data[4:]); n < headerMin {
			o.logf(Warn, "Can't load BTF with non-native endianness due to unsupported header length %d", n)
			return o.fail(syscall.ENOTSUP)
		}
	default:
		o.logf(Debug, "Invalid BTF magic: %x", magic)
		return o.fail(syscall.EINVAL)
	}
	b.hdrLen = b.order.Uint32(b.data[4:])
	size := uint32(len(b.data))
	if uint64(len(b.data)) > 0xffffffff {
		size = 0xffffffff
	}
	if size < b.hdrLen {
		o.logf(Debug, "BTF header len %d larger than data size %d", b.hdrLen, size)
		return o.fail(syscall.EINVAL)
	}
	var hdr [headerFull]byte
	copy(hdr[:], b.data[:min(b.hdrLen, headerFull)])
	u32 := func(off int) uint32 { return b.order.Uint32(hdr[off:]) }
	b.typeOff, b.typeLen, b.strOff, b.strLen = u32(8), u32(12), u32(16), u32(20)
	b.layoutOff, b.layoutLen = u32(24), u32(28)
	for i := uint32(headerFull); i < b.hdrLen; i++ {
		if b.data[i] != 0 {
			o.logf(Debug, "Unknown BTF header data at offset %d; modification is disallowed", i)
			break
		}
	}
	left := int64(size) - int64(b.hdrLen)
	if left < int64(b.strOff)+int64(b.strLen) {
		o.logf(Debug, "Invalid BTF total size: %d", size)
		return o.fail(syscall.EINVAL)
	}
	if int64(b.typeOff)+int64(b.typeLen) > int64(b.strOff) {
		o.logf(Debug, "Invalid BTF data sections layout: type data at %d + %d, strings data at %d + %d",
			b.typeOff, b.typeLen, b.strOff, b.strLen)
		return o.fail(syscall.EINVAL)
	}
	if b.typeOff%4 != 0 {
		o.logf(Debug, "BTF type section is not aligned to 4 bytes")
		return o.fail(syscall.EINVAL)
	}
	if b.layoutLen == 0 {
		return nil
	}
	if b.layoutOff%4 != 0 {
		o.logf(Debug, "BTF layout section is not aligned to 4 bytes")
		return o.fail(syscall.EINVAL)
	}
	if int64(b.layoutOff) < int64(b.typeOff)+int64(b.typeLen) {
		o.logf(Debug, "Invalid BTF data sections layout: type data at %d + %d,  layout data at %d + %d",
			b.typeOff, b.typeLen, b.layoutOff, b.layoutLen)
		return o.fail(syscall.EINVAL)
	}
	if int64(b.layoutOff)+int64(b.layoutLen) > int64(b.strOff) || b.layoutOff > b.strOff {
		o.logf(Debug, "Invalid BTF data sections layout: layout data at %d + %d, strings data at %d",
			b.layoutOff, b.layoutLen, b.strOff)
		return o.fail(syscall.EINVAL)
	}
	return nil
}

// strings is btf_parse_str_sec: a base blob's strings start with the
// empty string; a split blob's may be empty.
func (b *blob) strings(o *opener) error {
	if b.base != nil && b.strLen == 0 {
		return nil
	}
	s := b.data[b.hdrLen+b.strOff:][:b.strLen]
	if b.strLen == 0 || b.strLen-1 > maxStrOffset || s[len(s)-1] != 0 {
		o.logf(Debug, "Invalid BTF string section")
		return o.fail(syscall.EINVAL)
	}
	if b.base == nil && s[0] != 0 {
		o.logf(Debug, "Malformed BTF string section, did you forget to provide base BTF?")
		return o.fail(syscall.EINVAL)
	}
	return nil
}

// layout is btf_parse_layout_sec.
func (b *blob) layout(o *opener) error {
	if b.layoutLen != 0 && b.layoutLen%kindLayoutLen != 0 {
		o.logf(Debug, "Invalid BTF kind layout section")
		return o.fail(syscall.EINVAL)
	}
	return nil
}

// kindLayout returns the layout entry of kind k, from the blob's layout
// section or else its base's, as btf_type_size_unknown looks it up.
func (b *blob) kindLayout(k uint32) (btf.KindLayout, bool) {
	if b.layoutLen != 0 {
		if k >= b.layoutLen/kindLayoutLen {
			return btf.KindLayout{}, false
		}
		e := b.data[b.hdrLen+b.layoutOff+k*kindLayoutLen:]
		return btf.KindLayout{InfoSize: e[0], ElemSize: e[1], Flags: b.order.Uint16(e[2:])}, true
	}
	if b.base != nil {
		if l := b.base.Layout(); uint64(k) < uint64(len(l)) {
			return l[k], true
		}
	}
	return btf.KindLayout{}, false
}

// typeSize is btf_type_size: the bytes of a type of that info word.
func (b *blob) typeSize(o *opener, info uint32) (uint32, bool) {
	kind, vlen := uint32(btf.InfoKind(info)), uint32(btf.InfoVlen(info))
	switch btf.Kind(kind) {
	case btf.KindFwd, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindPtr,
		btf.KindTypedef, btf.KindFunc, btf.KindFloat, btf.KindTypeTag:
		return typeHeader, true
	case btf.KindInt:
		return typeHeader + 4, true
	case btf.KindEnum:
		return typeHeader + 8*vlen, true
	case btf.KindEnum64:
		return typeHeader + 12*vlen, true
	case btf.KindArray:
		return typeHeader + 12, true
	case btf.KindStruct, btf.KindUnion:
		return typeHeader + 12*vlen, true
	case btf.KindFuncProto:
		return typeHeader + 8*vlen, true
	case btf.KindVar:
		return typeHeader + 4, true
	case btf.KindDatasec:
		return typeHeader + 12*vlen, true
	case btf.KindDeclTag:
		return typeHeader + 4, true
	}
	return b.unknownSize(o, kind, vlen)
}

// unknownSize is btf_type_size_unknown: a kind this libbpf does not know,
// sized by the kind layout section.
func (b *blob) unknownSize(o *opener, kind, vlen uint32) (uint32, bool) {
	l, ok := b.kindLayout(kind)
	switch {
	case !ok:
		o.logf(Debug, "Unsupported BTF_KIND: %d", kind)
		return 0, false
	case l.InfoSize%4 != 0:
		o.logf(Debug, "Unsupported info_sz %d for kind %d", l.InfoSize, kind)
		return 0, false
	case l.ElemSize%4 != 0:
		o.logf(Debug, "Unsupported elem_sz %d for kind %d", l.ElemSize, kind)
		return 0, false
	}
	return typeHeader + uint32(l.InfoSize) + vlen*uint32(l.ElemSize), true
}

// types is btf_parse_type_sec: every type's size is known and within the
// section.
func (b *blob) types(o *opener) error {
	sec := b.data[b.hdrLen+b.typeOff:][:b.typeLen]
	next := uint32(0)
	for next+typeHeader <= uint32(len(sec)) && next+typeHeader >= next {
		size, ok := b.typeSize(o, b.order.Uint32(sec[next+4:]))
		if !ok {
			return o.fail(syscall.EINVAL)
		}
		if uint64(next)+uint64(size) > uint64(len(sec)) {
			o.logf(Warn, "BTF type [%d] is malformed", b.startID+uint32(len(b.offs)))
			return o.fail(syscall.EINVAL)
		}
		if b.swapped && !b.knownKind(o, b.order.Uint32(sec[next+4:])) {
			return o.fail(syscall.EINVAL)
		}
		b.offs = append(b.offs, b.hdrLen+b.typeOff+next)
		next += size
	}
	if next != uint32(len(sec)) {
		o.logf(Warn, "BTF types data is malformed")
		return o.fail(syscall.EINVAL)
	}
	return nil
}

// knownKind is btf_bswap_type_rest's refusal of kinds it cannot swap.
func (b *blob) knownKind(o *opener, info uint32) bool {
	if k := btf.InfoKind(info); k == btf.KindUnknown || k > btf.MaxKind {
		o.logf(Debug, "Unsupported BTF_KIND:%d", k)
		return false
	}
	return true
}
