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
	return ParseInPlaceLoading(data, base, nil)
}

// ParseInPlaceLoading is ParseInPlace for a blob that is still being loaded,
// front to back, while it is parsed, so that the parse of the types overlaps
// the reading of the file. ready(end) must wait until data[:end] holds the
// blob's bytes and return how many leading bytes do (at least end, at most
// len(data)); a nil ready means data is complete. It is called with growing
// ends, and with len(data) before the Spec is returned, so that the Spec
// never aliases bytes not yet loaded.
func ParseInPlaceLoading(data []byte, base *Spec, ready func(end int) int) (*Spec, error) {
	if ready == nil {
		ready = func(int) int { return len(data) }
	}
	avail := ready(min(len(data), 8))
	if len(data) >= 8 {
		// ParseHeader reads the whole header, whose length is in it.
		if order := magicOrder(data); order != nil {
			if hl := int(order.Uint32(data[4:])); hl > avail {
				ready(min(len(data), max(hl, HeaderLen)))
			}
		}
	}
	h, order, err := ParseHeader(data)
	if err != nil {
		return nil, err
	}
	body := data[h.HdrLen:]
	tsec := body[h.TypeOff : h.TypeOff+h.TypeLen]
	if order != hostOrder || len(tsec) == 0 || uintptr(unsafe.Pointer(&tsec[0]))%4 != 0 {
		ready(len(data))
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
	// wordsReady converts ready's bytes of the blob to words of the type
	// section.
	wordsReady := func(w int) int {
		return (ready(min(len(data), typeStart+4*w)) - typeStart) / 4
	}
	if err := s.indexTypesLoading(typeStart, wordsReady); err != nil {
		return nil, err
	}
	ready(len(data))
	s.layout = decodeLayout(h.layoutSection(body), order)
	return s, nil
}
