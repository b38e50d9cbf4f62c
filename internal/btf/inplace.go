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
	s.offs = make([]uint32, 0, n/8+1)
	for i := 0; i < n; {
		if n-i < headerWords {
			return nil, formatErr(typeStart+4*i, "type %d: truncated header (%d of 12 bytes)", s.firstID+TypeID(len(s.offs)), 4*(n-i))
		}
		info := s.words[i+1]
		k := InfoKind(info)
		tw, ok := trailingWords(k, InfoVlen(info))
		if !ok || k == KindUnknown {
			return nil, formatErr(typeStart+4*i+4, "type %d: unknown kind %d", s.firstID+TypeID(len(s.offs)), k)
		}
		if n-i-headerWords < tw {
			return nil, formatErr(typeStart+4*i, "type %d (%s): vlen %d needs %d bytes, %d left in the type section",
				s.firstID+TypeID(len(s.offs)), k, InfoVlen(info), 4*(headerWords+tw), 4*(n-i))
		}
		s.offs = append(s.offs, uint32(i))
		i += headerWords + tw
	}
	return s, nil
}
