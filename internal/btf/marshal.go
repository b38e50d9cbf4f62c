package btf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// Magic is the BTF magic number, 0xeB9F, read in the blob's byte order.
const Magic = 0xeb9f

// Version is the only BTF version.
const Version = 1

// HeaderLen is the length of the header this package writes.
const HeaderLen = 24

// Header is the BTF header (struct btf_header). Offsets are relative to the
// end of the header.
type Header struct {
	Magic   uint16
	Version uint8
	Flags   uint8
	HdrLen  uint32
	TypeOff uint32
	TypeLen uint32
	StrOff  uint32
	StrLen  uint32

	// The kind layout section (layout.go), in a header of at least
	// LayoutHeaderLen bytes; zero in a shorter one.
	LayoutOff uint32
	LayoutLen uint32
}

// FormatError reports malformed BTF bytes. Offset is the byte offset in the
// blob (header included) where decoding failed. Msg says what is wrong,
// and Err, when set, is the sentinel error it is an instance of (ErrNotBTF),
// for errors.Is.
type FormatError struct {
	Offset int
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("btf: offset %#x: %s", e.Offset, e.Msg)
}

// Unwrap returns the sentinel error the problem is an instance of, or nil.
func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(off int, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// ErrNotBTF is wrapped by the error Parse returns when the magic is wrong.
var ErrNotBTF = errors.New("not BTF (bad magic)")

// magicOrder returns the byte order in which data, of at least 2 bytes,
// starts with the BTF magic, or nil when it does not.
func magicOrder(data []byte) binary.ByteOrder {
	switch {
	case binary.LittleEndian.Uint16(data) == Magic:
		return binary.LittleEndian
	case binary.BigEndian.Uint16(data) == Magic:
		return binary.BigEndian
	}
	return nil
}

// ParseHeader decodes the header at the start of data and returns it with
// the byte order the magic revealed. It checks what the kernel checks of the
// header itself: magic, version, flags, hdr_len (at least 24, and any bytes
// beyond the known fields zero), and that the sections (types, strings and,
// in a header of LayoutHeaderLen bytes or more, the kind layout) lie inside
// data, are 4-byte aligned where required and do not overlap.
func ParseHeader(data []byte) (Header, binary.ByteOrder, error) {
	var h Header
	if len(data) < 8 {
		return h, nil, formatErr(0, "blob of %d bytes is too short for a header", len(data))
	}
	order := magicOrder(data)
	if order == nil {
		return h, nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("%v: %#04x", ErrNotBTF, binary.LittleEndian.Uint16(data)), Err: ErrNotBTF}
	}
	h.Magic = Magic
	h.Version = data[2]
	h.Flags = data[3]
	h.HdrLen = order.Uint32(data[4:])
	if h.Version != Version {
		return h, nil, formatErr(2, "unsupported version %d", h.Version)
	}
	if h.Flags != 0 {
		return h, nil, formatErr(3, "unsupported flags %#x", h.Flags)
	}
	if h.HdrLen < HeaderLen {
		return h, nil, formatErr(4, "hdr_len %d is shorter than %d", h.HdrLen, HeaderLen)
	}
	if uint64(h.HdrLen) > uint64(len(data)) {
		return h, nil, formatErr(4, "hdr_len %d exceeds blob size %d", h.HdrLen, len(data))
	}
	known := HeaderLen
	if h.HdrLen >= LayoutHeaderLen {
		known = LayoutHeaderLen
		h.LayoutOff = order.Uint32(data[24:])
		h.LayoutLen = order.Uint32(data[28:])
	}
	for i := known; i < int(h.HdrLen); i++ {
		if data[i] != 0 {
			return h, nil, formatErr(i, "unknown non-zero header byte")
		}
	}
	h.TypeOff = order.Uint32(data[8:])
	h.TypeLen = order.Uint32(data[12:])
	h.StrOff = order.Uint32(data[16:])
	h.StrLen = order.Uint32(data[20:])

	body := uint64(len(data)) - uint64(h.HdrLen)
	if uint64(h.TypeOff)+uint64(h.TypeLen) > body {
		return h, nil, formatErr(8, "type section [%d, +%d) exceeds data of %d bytes", h.TypeOff, h.TypeLen, body)
	}
	if uint64(h.StrOff)+uint64(h.StrLen) > body {
		return h, nil, formatErr(16, "string section [%d, +%d) exceeds data of %d bytes", h.StrOff, h.StrLen, body)
	}
	if h.TypeOff%4 != 0 {
		return h, nil, formatErr(8, "type section offset %d is not 4-byte aligned", h.TypeOff)
	}
	if h.TypeLen%4 != 0 {
		return h, nil, formatErr(12, "type section length %d is not a multiple of 4", h.TypeLen)
	}
	if h.TypeOff < h.StrOff && uint64(h.TypeOff)+uint64(h.TypeLen) > uint64(h.StrOff) ||
		h.StrOff < h.TypeOff && uint64(h.StrOff)+uint64(h.StrLen) > uint64(h.TypeOff) ||
		h.StrOff == h.TypeOff && h.StrLen != 0 && h.TypeLen != 0 {
		return h, nil, formatErr(8, "type and string sections overlap")
	}
	if err := checkLayoutSection(h, body); err != nil {
		return h, nil, err
	}
	return h, order, nil
}

// checkLayoutSection checks the kind layout section of h, if it has one,
// as libbpf and the kernel do: whole entries, 4-byte aligned, inside the
// body's bytes, and clear of the type and string sections.
func checkLayoutSection(h Header, body uint64) error {
	if h.LayoutLen == 0 {
		return nil // an offset alone means nothing, to libbpf and the kernel
	}
	off, n := uint64(h.LayoutOff), uint64(h.LayoutLen)
	switch {
	case off%4 != 0:
		return formatErr(24, "layout section offset %d is not 4-byte aligned", h.LayoutOff)
	case n%kindLayoutSize != 0:
		return formatErr(28, "layout section length %d is not a multiple of %d", h.LayoutLen, kindLayoutSize)
	case off+n > body:
		return formatErr(24, "layout section [%d, +%d) exceeds data of %d bytes", h.LayoutOff, h.LayoutLen, body)
	case overlaps(off, n, uint64(h.TypeOff), uint64(h.TypeLen)):
		return formatErr(24, "layout section [%d, +%d) overlaps the type section", h.LayoutOff, h.LayoutLen)
	case overlaps(off, n, uint64(h.StrOff), uint64(h.StrLen)):
		return formatErr(24, "layout section [%d, +%d) overlaps the string section", h.LayoutOff, h.LayoutLen)
	}
	return nil
}

// overlaps reports whether the non-empty range [a, a+n) shares a byte with
// [b, b+m).
func overlaps(a, n, b, m uint64) bool { return m != 0 && a < b+m && b < a+n }

// Parse decodes a BTF blob. With a non-nil base the blob is split BTF whose
// IDs and string offsets continue the base's. Parse checks the framing
// (header, section bounds, known kinds, trailing data within the section) so
// that every accessor is safe on the result; it does not apply the kernel's
// semantic rules, which [Spec.Validate] does. The returned Spec does not
// alias data.
func Parse(data []byte, base *Spec) (*Spec, error) {
	h, order, err := ParseHeader(data)
	if err != nil {
		return nil, err
	}
	body := data[h.HdrLen:]
	tsec := body[h.TypeOff : h.TypeOff+h.TypeLen]
	ssec := body[h.StrOff : h.StrOff+h.StrLen]
	typeStart := int(h.HdrLen + h.TypeOff)

	s := &Spec{base: base, firstID: 1, order: order, hdrLen: h.HdrLen,
		layout: decodeLayout(h.layoutSection(body), order)}
	var baseStrs *StringTable
	if base != nil {
		s.firstID = base.TypeCount() + 1
		baseStrs = base.strs
	}
	s.strs = newStringTableFrom(baseStrs, append([]byte(nil), ssec...))

	n := len(tsec) / 4
	s.words = make([]uint32, n)
	decodeWords(s.words, tsec, order)
	if err := s.indexTypes(typeStart); err != nil {
		return nil, err
	}
	return s, nil
}

// indexTypes fills s.offs by walking s.words type by type, checking that
// every kind is known and every type's trailing data fits in the section.
// typeStart is the type section's offset in the blob, for error offsets.
func (s *Spec) indexTypes(typeStart int) error {
	return s.indexTypesLoading(typeStart, nil)
}

// indexTypesLoading is indexTypes over a word stream that is still being
// loaded: ready(w), when not nil, waits until the first w words are in and
// returns how many are. Only a type's header words are read here; its
// trailing words are only counted.
func (s *Spec) indexTypesLoading(typeStart int, ready func(w int) int) error {
	n := len(s.words)
	avail := n
	if ready != nil {
		avail = 0
	}
	// A type takes at least 3 words; size the index for the common average
	// of about 10 words per type and let append grow it when needed.
	s.offs = make([]uint32, 0, n/8+1)
	for i := 0; i < n; {
		id := s.firstID + TypeID(len(s.offs))
		if n-i < headerWords {
			return formatErr(typeStart+4*i, "type %d: truncated header (%d of 12 bytes)", id, 4*(n-i))
		}
		if i+headerWords > avail {
			avail = ready(i + headerWords)
		}
		info := s.words[i+1]
		k := InfoKind(info)
		tw, ok := trailingWords(k, InfoVlen(info))
		if !ok || k == KindUnknown {
			return formatErr(typeStart+4*i+4, "type %d: unknown kind %d", id, k)
		}
		if n-i-headerWords < tw {
			return formatErr(typeStart+4*i, "type %d (%s): vlen %d needs %d bytes, %d left in the type section",
				id, k, InfoVlen(info), 4*(headerWords+tw), 4*(n-i))
		}
		s.offs = append(s.offs, uint32(i))
		i += headerWords + tw
	}
	return nil
}

// Marshal encodes the Spec's own types and strings as a BTF blob with a
// header of HeaderLen() bytes (24 unless the Spec was decoded from a blob with
// a longer one, or has a kind layout table, which needs LayoutHeaderLen), the
// type section first, then the layout table if any, then the string section,
// in the given byte order (libbpf's order). For a split Spec the blob holds
// only the split part, as split BTF files do.
func (s *Spec) Marshal(order binary.ByteOrder) []byte {
	strs := s.strs.Bytes()
	typeLen := 4 * len(s.words)
	layoutLen := kindLayoutSize * len(s.layout)
	hl := max(int(s.hdrLen), HeaderLen)
	if layoutLen > 0 {
		hl = max(hl, LayoutHeaderLen)
	}
	strOff := typeLen + layoutLen
	out := make([]byte, hl+strOff+len(strs))
	order.PutUint16(out[0:], Magic)
	out[2] = Version
	out[3] = 0
	order.PutUint32(out[4:], uint32(hl))
	order.PutUint32(out[8:], 0)
	order.PutUint32(out[12:], uint32(typeLen))
	order.PutUint32(out[16:], uint32(strOff))
	order.PutUint32(out[20:], uint32(len(strs)))
	if layoutLen > 0 {
		order.PutUint32(out[24:], uint32(typeLen))
		order.PutUint32(out[28:], uint32(layoutLen))
		encodeLayout(out[hl+typeLen:], s.layout, order)
	}
	encodeWords(out[hl:hl+typeLen], s.words, order)
	copy(out[hl+strOff:], strs)
	return out
}

// hostOrder is the byte order of the machine gobtf runs on.
var hostOrder binary.ByteOrder = binary.BigEndian

func init() {
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		hostOrder = binary.LittleEndian
	}
}

// wordBytes views a word slice as its bytes in host order.
func wordBytes(w []uint32) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 4*len(w))
}

// decodeWords fills dst from src (4*len(dst) bytes in the given order): a
// plain copy when the order is the host's, a byte swap otherwise.
func decodeWords(dst []uint32, src []byte, order binary.ByteOrder) {
	if order == hostOrder {
		copy(wordBytes(dst), src)
		return
	}
	for i := range dst {
		dst[i] = order.Uint32(src[4*i:])
	}
}

// encodeWords is the inverse of decodeWords.
func encodeWords(dst []byte, src []uint32, order binary.ByteOrder) {
	if order == hostOrder {
		copy(dst, wordBytes(src))
		return
	}
	for i, w := range src {
		order.PutUint32(dst[4*i:], w)
	}
}
