package btf

import "unsafe"

// ParseInPlace decodes a BTF blob like [Parse] but, when it can, without
// copying it: if the blob is in the host's byte order and its type section
// is 4-byte aligned in memory, the returned Spec's word stream and string
// table alias data. Writes through the Spec (type IDs and string offsets)
// then modify data, and data must stay valid and otherwise unmodified while
// the Spec is in use. Strings added later go to fresh storage. When aliasing
// is impossible it returns Parse(data, base).
//
// It suits large inputs that are read once and discarded, e.g. a memory-
// mapped vmlinux BTF that is about to be deduplicated in place.
func ParseInPlace(data []byte, base *Spec) (*Spec, error) {
	h, order, err := ParseHeader(data)
	if err != nil {
		return nil, err
	}
	body := data[h.HdrLen:]
	tsec := body[h.TypeOff : h.TypeOff+h.TypeLen]
	if order != hostOrder || len(tsec) == 0 || uintptr(unsafe.Pointer(&tsec[0]))%4 != 0 {
		return Parse(data, base)
	}
	ssec := body[h.StrOff : h.StrOff+h.StrLen : h.StrOff+h.StrLen]
	typeStart := int(h.HdrLen + h.TypeOff)

	s := &Spec{base: base, firstID: 1, order: order, hdrLen: h.HdrLen}
	var baseStrs *StringTable
	if base != nil {
		s.firstID = base.TypeCount() + 1
		baseStrs = base.strs
	}
	s.strs = newStringTableFrom(baseStrs, ssec)
	n := len(tsec) / 4
	s.words = unsafe.Slice((*uint32)(unsafe.Pointer(&tsec[0])), n)[:n:n]
	if err := s.indexTypes(typeStart); err != nil {
		return nil, err
	}
	return s, nil
}
