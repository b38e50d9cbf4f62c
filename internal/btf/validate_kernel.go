package btf

import (
	"encoding/binary"
	"fmt"
)

// CheckKernel checks a BTF blob as the kernel checks it on opts.Path, split
// on base when base is not nil (a module's BTF on the vmlinux's), in the
// kernel's order and with its words, and returns the faults it finds: the
// first is the kernel's verdict (it stops there); with opts.AllFaults the
// others that follow are listed too. It also returns the decoded Spec,
// once the header and the string section pass: all of the blob when it is
// accepted (no fault), and otherwise the types the kernel could frame, in
// which the faults' IDs can be looked up.
//
// Unlike [ValidateBlob], which decodes first and then applies the rules,
// CheckKernel reads the raw bytes the way the kernel does, so that every
// fault, framing ones included, is the one the kernel reports and is
// reported with the kernel's reason (ValidationError.Kernel): header fields
// are read from a header of hdr_len bytes (fields past it read as zero), the
// sections are ordered by the kernel's own comparison, the type section
// need not be aligned or a whole number of words on the lighter paths, and
// a truncated or unknown type is reported where the kernel meets it, after
// the faults of the types before it. A blob in either byte order is read
// in its own order: it is checked as the kernel it was made for reads it.
//
// For PathLoad with a base, the blob is checked together with its base as
// one blob, as btfload hands split BTF to BPF_BTF_LOAD; the caller merges
// the headers' sections first (the merged blob has the one header the
// kernel sees).
func CheckKernel(data []byte, base *Spec, opts ValidateOptions) (*Spec, []*ValidationError) {
	c := kernelCheck{data: data, split: base != nil, opts: opts}
	if opts.Path == PathLoad && !opts.IgnoreLimits && len(data) > KernelMaxBlobSize {
		// E2BIG before anything is logged.
		return nil, []*ValidationError{{Form: FormSilent, Errno: errnoE2BIG,
			Rule: fmt.Sprintf("blob of %d bytes exceeds the kernel's limit of %d bytes", len(data), KernelMaxBlobSize)}}
	}
	if f := c.header(); f != nil {
		return nil, []*ValidationError{f}
	}
	if f := c.strings(base); f != nil {
		return nil, []*ValidationError{f}
	}
	if opts.Path == PathLoad {
		if c.hdr.TypeOff%4 != 0 {
			return nil, []*ValidationError{blobErrorf("Unaligned type_off", "type section offset %d is not 4-byte aligned", c.hdr.TypeOff)}
		}
		if !c.split && c.hdr.TypeLen == 0 {
			return nil, []*ValidationError{blobErrorf("No type found", "type section is empty")}
		}
	}
	s, frameFault := c.frame(base)
	v := newValidator(s, opts)
	v.own = opts.Path != PathLoad || opts.OwnTypes
	var faults []*ValidationError
	add := func(err error) bool {
		if err == nil {
			return true
		}
		f := err.(*ValidationError)
		faults = append(faults, f)
		if f.ID != 0 {
			v.failed = append(v.failed, f.ID)
		}
		return opts.AllFaults
	}
	if !v.runMetas(add) {
		return s, faults
	}
	if frameFault != nil {
		return s, append(faults, frameFault)
	}
	if opts.Path == PathLoad && !v.runResolve(add) {
		return s, faults
	}
	v.runChains(add)
	return s, faults
}

// kernelCheck is the state of one CheckKernel call.
type kernelCheck struct {
	data  []byte
	split bool
	opts  ValidateOptions
	order binary.ByteOrder
	hdr   Header // as the kernel holds it: the first hdr_len bytes, zero past them
}

// header applies btf_parse_hdr and btf_check_sec_info.
func (c *kernelCheck) header() *ValidationError {
	data := c.data
	size := uint64(len(data))
	if size < 8 {
		return blobErrorf("hdr_len not found", "blob of %d bytes is too short for a header", size)
	}
	// The kernel reads in its own byte order; a blob is read in the one
	// its magic shows, little-endian when neither does (then the magic
	// check below fails).
	c.order = magicOrder(data)
	if c.order == nil {
		c.order = binary.LittleEndian
	}
	hdrLen := c.order.Uint32(data[4:])
	if size < uint64(hdrLen) {
		return blobErrorf("btf_header not found", "hdr_len %d exceeds the blob's %d bytes", hdrLen, size)
	}
	known := uint32(HeaderLen)
	if c.opts.LayoutSection {
		known = LayoutHeaderLen
	}
	for i := known; i < hdrLen; i++ {
		if data[i] != 0 {
			e := blobErrorf("Unsupported btf_header", "offset %#x: non-zero header byte past the %d the kernel knows", i, known)
			e.Errno = errnoE2BIG
			return e
		}
	}
	var raw [LayoutHeaderLen]byte
	copy(raw[:min(hdrLen, known)], data)
	h := Header{Magic: c.order.Uint16(raw[0:]), Version: raw[2], Flags: raw[3], HdrLen: c.order.Uint32(raw[4:]),
		TypeOff: c.order.Uint32(raw[8:]), TypeLen: c.order.Uint32(raw[12:]),
		StrOff: c.order.Uint32(raw[16:]), StrLen: c.order.Uint32(raw[20:])}
	if known == LayoutHeaderLen {
		h.LayoutOff, h.LayoutLen = c.order.Uint32(raw[24:]), c.order.Uint32(raw[28:])
	}
	c.hdr = h
	switch {
	case h.Magic != Magic:
		return blobErrorf("Invalid magic", "bad magic %#04x", h.Magic)
	case h.Version != Version:
		e := blobErrorf("Unsupported version", "unsupported version %d", h.Version)
		e.Errno = errnoENOTSUPP
		return e
	case h.Flags != 0:
		e := blobErrorf("Unsupported flags", "unsupported flags %#x", h.Flags)
		e.Errno = errnoENOTSUPP
		return e
	case !c.split && size == uint64(h.HdrLen):
		return blobErrorf("No data", "blob holds a header and nothing else")
	}
	if c.opts.LayoutSection {
		if err := checkLayout(h, len(data), c.split, true); err != nil {
			return err.(*ValidationError)
		}
		return nil
	}
	return c.sections()
}

// sections is btf_check_sec_info: the type and string sections, in the
// order the kernel sorts them (by offset, then length, each compared as
// the sign of a 32-bit difference), must tile the bytes after the header.
func (c *kernelCheck) sections() *ValidationError {
	type section struct {
		name     string
		off, len uint32
	}
	secs := [2]section{{"type", c.hdr.TypeOff, c.hdr.TypeLen}, {"string", c.hdr.StrOff, c.hdr.StrLen}}
	cmp := func(a, b section) int32 {
		if d := int32(a.off - b.off); d != 0 {
			return d
		}
		return int32(a.len - b.len)
	}
	if cmp(secs[0], secs[1]) > 0 {
		secs[0], secs[1] = secs[1], secs[0]
	}
	expected := uint32(len(c.data)) - c.hdr.HdrLen
	var total uint32
	for _, s := range secs {
		switch {
		case expected < s.off:
			return blobErrorf("Invalid section offset", "%s section offset %d is beyond the %d bytes after the header", s.name, s.off, expected)
		case total < s.off:
			return blobErrorf("Unsupported section found", "%d unknown bytes before the %s section", s.off-total, s.name)
		case total > s.off:
			return blobErrorf("Section overlap found", "%s section at %d overlaps the previous section ending at %d", s.name, s.off, total)
		case expected-total < s.len:
			return blobErrorf("Total section length too long", "%s section of %d bytes at %d extends beyond the data", s.name, s.len, s.off)
		}
		total += s.len
	}
	if expected != total {
		return blobErrorf("Unsupported section found", "%d bytes after the last section belong to no section", expected-total)
	}
	return nil
}

// strings is btf_parse_str_sec. The string chain's total length must stay
// within the offsets the kernel can address.
func (c *kernelCheck) strings(base *Spec) *ValidationError {
	h := c.hdr
	start := uint64(h.HdrLen) + uint64(h.StrOff)
	end := start + uint64(h.StrLen)
	if !(c.opts.LayoutSection && h.HdrLen >= LayoutHeaderLen) && end != uint64(len(c.data)) {
		return blobErrorf("String section is not at the end", "the string section must be the last section")
	}
	if c.split && h.StrLen == 0 {
		return nil
	}
	strs := c.data[start:end]
	switch {
	case h.StrLen == 0:
		return blobErrorf("Invalid string section", "string section is empty (it must hold at least the empty string)")
	case h.StrLen-1 > KernelMaxNameOffset:
		return blobErrorf("Invalid string section", "string section of %d bytes exceeds the kernel's offset limit %#x", h.StrLen, KernelMaxNameOffset)
	case strs[len(strs)-1] != 0:
		return blobErrorf("Invalid string section", "string section does not end with a NUL byte")
	case !c.split && strs[0] != 0:
		return blobErrorf("Invalid string section", "string section does not start with a NUL byte (offset 0 must be the empty string)")
	}
	return nil
}

// Kernel info-word fields before Linux 7.1: vlen in bits 0-15, kind in
// bits 24-28.
const (
	kernelVlenMask = 0xffff
	kernelKindMask = 0x1f
)

// frame walks the type section as btf_check_all_metas does and returns a
// Spec of the types up to the first one the kernel cannot frame, and the
// fault that stops it (nil when every type is whole). Framing needs each
// type's header to be whole, its info word free of reserved bits, its kind
// known and, before the kernel looks at its trailing data, its name offset
// valid; the trailing data must then fit in what is left of the section.
func (c *kernelCheck) frame(base *Spec) (*Spec, *ValidationError) {
	h := c.hdr
	body := c.data[h.HdrLen:]
	tsec := body[h.TypeOff : h.TypeOff+h.TypeLen]
	s := &Spec{base: base, firstID: 1, order: c.order, hdrLen: h.HdrLen}
	var baseStrs *StringTable
	if base != nil {
		s.firstID = base.TypeCount() + 1
		baseStrs = base.strs
	}
	s.strs = newStringTableFrom(baseStrs, append([]byte(nil), body[h.StrOff:h.StrOff+h.StrLen]...))
	nameOK := func(off uint32) bool { return off <= KernelMaxNameOffset && off < s.strs.Len() }

	s.words = make([]uint32, 0, len(tsec)/4)
	s.offs = make([]uint32, 0, len(tsec)/40+1)
	word := func(i int) uint32 { return c.order.Uint32(tsec[i:]) }
	for cur := 0; cur < len(tsec); {
		id := s.firstID + TypeID(len(s.offs))
		left := len(tsec) - cur
		fault := func(form LogForm, kernel, format string, args ...any) *ValidationError {
			return &ValidationError{ID: id, Form: form, Kernel: kernel, Rule: fmt.Sprintf(format, args...), Errno: errnoEINVAL}
		}
		if left < 4*headerWords {
			return s, fault(FormPlain, fmt.Sprintf("meta_left:%d meta_needed:%d", left, 4*headerWords),
				"type header truncated: %d of %d bytes left in the type section", left, 4*headerWords)
		}
		nameOff, info := word(cur), word(cur+4)
		if info&^infoValidMask != 0 {
			return s, fault(FormPlain, fmt.Sprintf("Invalid btf_info:%x", info), "info word %#08x sets reserved bits", info)
		}
		k := Kind(info >> infoKindShift & kernelKindMask)
		if k == KindUnknown || k > MaxKind {
			return s, fault(FormPlain, fmt.Sprintf("Invalid kind:%d", k), "unknown kind %d", k)
		}
		if !nameOK(nameOff) {
			return s, fault(FormPlain, fmt.Sprintf("Invalid name_offset:%d", nameOff), "name offset %d is outside the string section (%d bytes)", nameOff, s.strs.Len())
		}
		vlen := int(info & kernelVlenMask)
		tw, _ := trailingWords(k, vlen)
		if left -= 4 * headerWords; left < 4*tw {
			e := fault(FormBasic, fmt.Sprintf("meta_left:%d meta_needed:%d", left, 4*tw),
				"%s with vlen %d needs %d bytes after its header, %d left in the type section", k, vlen, 4*tw, left)
			e.Kind, e.NameOff = k, nameOff
			e.Name, _ = s.strs.Lookup(nameOff)
			return s, e
		}
		s.offs = append(s.offs, uint32(len(s.words)))
		for i := range headerWords + tw {
			s.words = append(s.words, word(cur+4*i))
		}
		cur += 4 * (headerWords + tw)
	}
	return s, nil
}

// MergeSplit builds the standalone blob that stands for split BTF on the
// load path, as the btfload tool builds it to hand split BTF to
// BPF_BTF_LOAD (which cannot take a base): one 24-byte header, the base's
// types then the split's, the base's strings then the split's. Split IDs and
// string offsets already continue the base's, so nothing is renumbered.
// The split blob's header is first checked as the kernel checks a split
// header (byte order, header fields, sections, string section); a fault
// there is returned instead, as the merged blob could not stand for it.
// baseData must be a well-formed standalone blob.
func MergeSplit(baseData, split []byte) ([]byte, *ValidationError) {
	sc := kernelCheck{data: split, split: true}
	if f := sc.header(); f != nil {
		return nil, f
	}
	if f := sc.strings(nil); f != nil {
		return nil, f
	}
	bh, border, err := ParseHeader(baseData)
	if err != nil {
		return nil, blobErrorf("", "the base: %v", err)
	}
	if border != sc.order {
		return nil, blobErrorf("", "the split BTF's byte order is not its base's")
	}
	sec := func(data []byte, h Header) (types, strs []byte) {
		body := data[h.HdrLen:]
		return body[h.TypeOff : h.TypeOff+h.TypeLen], body[h.StrOff : h.StrOff+h.StrLen]
	}
	bt, bs := sec(baseData, bh)
	st, ss := sec(split, sc.hdr)
	out := make([]byte, HeaderLen, HeaderLen+len(bt)+len(st)+len(bs)+len(ss))
	o := sc.order
	o.PutUint16(out[0:], Magic)
	out[2] = Version
	o.PutUint32(out[4:], HeaderLen)
	o.PutUint32(out[12:], uint32(len(bt)+len(st)))
	o.PutUint32(out[16:], uint32(len(bt)+len(st)))
	o.PutUint32(out[20:], uint32(len(bs)+len(ss)))
	out = append(out, bt...)
	out = append(out, st...)
	out = append(out, bs...)
	return append(out, ss...), nil
}
