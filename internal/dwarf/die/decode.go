package die

import (
	"bytes"
	"errors"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// maxIndirect bounds chains of DW_FORM_indirect (a form naming another form),
// which valid DWARF never nests; it keeps crafted chains from looping.
const maxIndirect = 4

// decodeAttrs decodes the attribute values of abbreviation a, which start at
// p in u.data, into e.Fields, and returns the position after them. Every
// read is checked against the end of the unit.
func (r *Reader) decodeAttrs(u *Unit, a *abbrev, p int, e *Entry) (int, error) {
	specs := u.abbrevs.specs[a.first : a.first+a.n]
	n := len(specs)
	if cap(e.Fields) < n {
		e.Fields = make([]Field, n, max(n, 32))
	}
	fs := e.Fields[:n]
	e.Sibling = 0
	b := u.data
	le := u.d.le
	var err error
	k := 0 // fields filled; fewer than specs in a lean table
	for i := range specs {
		s := &specs[i]
		if s.form == formSkip {
			if int(s.implicit) > len(b)-p {
				return 0, u.trunc(p)
			}
			p += int(s.implicit)
			continue
		}
		f := &fs[k]
		k++
		f.Attr = s.attr
		f.Data = nil
		f.lazy = false
		form := s.form
		if form == dwarf.FormIndirect {
			if form, p, err = indirect(u, b, p); err != nil {
				return 0, err
			}
		}
		f.Form = form
		var v uint64
		switch form {
		case dwarf.FormRef4:
			if len(b)-p < 4 {
				return 0, u.trunc(p)
			}
			v = u32(b, p, le) + u.Offset
			p += 4
			if s.attr == dwarf.AttrSibling {
				e.Sibling = v
			}
		case dwarf.FormStrp, dwarf.FormLineStrp:
			if len(b)-p < int(u.OffsetSize) {
				return 0, u.trunc(p)
			}
			if u.OffsetSize == 4 { // uN, which is not inlined
				v = u32(b, p, le)
			} else {
				v = u64(b, p, le)
			}
			sec, ends := u.d.sec.Str, u.d.strEnds
			if form == dwarf.FormLineStrp {
				sec, ends = u.d.sec.LineStr, u.d.lineStrEnds
			}
			if r.lazy && ends && v < uint64(len(sec)) {
				f.Data, f.lazy = sec[v:], true
			} else if f.Data = cstr(sec, v); f.Data == nil {
				return 0, u.badString(p, form, v)
			}
			p += int(u.OffsetSize)
		case dwarf.FormData1, dwarf.FormFlag:
			if p >= len(b) {
				return 0, u.trunc(p)
			}
			v = uint64(b[p])
			p++
		case dwarf.FormData2:
			if len(b)-p < 2 {
				return 0, u.trunc(p)
			}
			v = u16(b, p, le)
			p += 2
		case dwarf.FormData4:
			if len(b)-p < 4 {
				return 0, u.trunc(p)
			}
			v = u32(b, p, le)
			p += 4
		case dwarf.FormData8:
			if len(b)-p < 8 {
				return 0, u.trunc(p)
			}
			v = u64(b, p, le)
			p += 8
		case dwarf.FormUdata:
			var ok bool
			if v, p, ok = leb128.Uint(b, p); !ok {
				return 0, u.trunc(p)
			}
		case dwarf.FormSdata:
			sv, np, ok := leb128.Int(b, p)
			if !ok {
				return 0, u.trunc(p)
			}
			v, p = uint64(sv), np
		case dwarf.FormImplicitConst:
			v = uint64(u.abbrevs.implicit[s.implicit])
		case dwarf.FormFlagPresent:
			v = 1
		case dwarf.FormRef1, dwarf.FormRef2, dwarf.FormRef8:
			sz := 1 << (form - dwarf.FormRef1)
			if len(b)-p < sz {
				return 0, u.trunc(p)
			}
			v = uN(b, p, sz, le) + u.Offset
			p += sz
			if s.attr == dwarf.AttrSibling {
				e.Sibling = v
			}
		case dwarf.FormRefUdata:
			var ok bool
			if v, p, ok = leb128.Uint(b, p); !ok {
				return 0, u.trunc(p)
			}
			v += u.Offset
			if s.attr == dwarf.AttrSibling {
				e.Sibling = v
			}
		case dwarf.FormRefAddr:
			sz := int(u.OffsetSize)
			if u.Version <= 2 {
				sz = int(u.AddrSize)
			}
			if len(b)-p < sz {
				return 0, u.trunc(p)
			}
			v = uN(b, p, sz, le)
			p += sz
		case dwarf.FormRefSig8:
			if len(b)-p < 8 {
				return 0, u.trunc(p)
			}
			v = u64(b, p, le)
			p += 8
		case dwarf.FormSecOffset:
			if len(b)-p < int(u.OffsetSize) {
				return 0, u.trunc(p)
			}
			v = uN(b, p, int(u.OffsetSize), le)
			p += int(u.OffsetSize)
		case dwarf.FormString:
			i := bytes.IndexByte(b[p:], 0)
			if i < 0 {
				return 0, u.trunc(p)
			}
			v, f.Data = uint64(p), b[p:p+i:p+i]
			p += i + 1
		case dwarf.FormExprloc, dwarf.FormBlock, dwarf.FormBlock1, dwarf.FormBlock2, dwarf.FormBlock4:
			if f.Data, p, err = block(u, b, p, form); err != nil {
				return 0, err
			}
			v = uint64(len(f.Data))
		case dwarf.FormData16:
			if len(b)-p < 16 {
				return 0, u.trunc(p)
			}
			f.Data = b[p : p+16 : p+16]
			p += 16
		case dwarf.FormAddr:
			sz := int(u.AddrSize)
			if len(b)-p < sz {
				return 0, u.trunc(p)
			}
			v = uN(b, p, sz, le)
			p += sz
		case dwarf.FormStrx, dwarf.FormStrx1, dwarf.FormStrx2, dwarf.FormStrx3, dwarf.FormStrx4,
			dwarf.FormAddrx, dwarf.FormAddrx1, dwarf.FormAddrx2, dwarf.FormAddrx3, dwarf.FormAddrx4,
			dwarf.FormLoclistx, dwarf.FormRnglistx, dwarf.FormGNUStrIndex, dwarf.FormGNUAddrIndex:
			start := p
			if v, p, err = index(u, b, p, form); err != nil {
				return 0, err
			}
			if !r.raw {
				if v, f.Data, err = u.resolve(form, v); err != nil {
					return 0, decodeErrf(u.Section.String(), start, "%#x form %#x index %d: %w", s.attr, form, v, err)
				}
			}
		case dwarf.FormStrpSup, dwarf.FormGNUStrpAlt, dwarf.FormRefSup4, dwarf.FormRefSup8, dwarf.FormGNURefAlt:
			if v, f.Data, p, err = supForm(u, b, p, form); err != nil {
				return 0, err
			}
		default:
			return 0, decodeErrf(u.Section.String(), p, "attribute %#x form %#x: %w", s.attr, form, errBadForm)
		}
		f.Val = v
	}
	// Re-slicing the field itself stores only its length: storing fs[:k]
	// would write the pointer too, behind a write-barrier check.
	e.Fields = e.Fields[:k]
	return p, nil
}

// skipAttrs steps over the attribute values of abbreviation a starting at p
// without decoding them, for walking past children.
func skipAttrs(u *Unit, a *abbrev, p int) (int, error) {
	return skipAttrsSized(u, a, p, u.fixedLen(a))
}

// skipAttrsSized is skipAttrs given u.fixedLen(a), sz.
func skipAttrsSized(u *Unit, a *abbrev, p int, sz int32) (int, error) {
	if sz >= 0 {
		if int(sz) > len(u.data)-p {
			return 0, u.trunc(p)
		}
		return p + int(sz), nil
	}
	specs := u.abbrevs.specs[a.first : a.first+a.n]
	b := u.data
	var err error
	for i := range specs {
		form := specs[i].form
		if form == dwarf.FormIndirect {
			if form, p, err = indirect(u, b, p); err != nil {
				return 0, err
			}
		}
		// The forms fixedSize knows need nothing more; the others are
		// sized by the unit, or stepped over here (sz stays 0).
		sz := fixedSize(form)
		switch form {
		case dwarf.FormStrp, dwarf.FormLineStrp, dwarf.FormSecOffset, dwarf.FormStrpSup, dwarf.FormGNURefAlt, dwarf.FormGNUStrpAlt:
			sz = int(u.OffsetSize)
		case dwarf.FormAddr:
			sz = int(u.AddrSize)
		case dwarf.FormRefAddr:
			sz = int(u.OffsetSize)
			if u.Version <= 2 {
				sz = int(u.AddrSize)
			}
		case formSkip:
			sz = int(specs[i].implicit)
		case dwarf.FormUdata, dwarf.FormSdata, dwarf.FormRefUdata, dwarf.FormStrx, dwarf.FormAddrx, dwarf.FormLoclistx, dwarf.FormRnglistx,
			dwarf.FormGNUStrIndex, dwarf.FormGNUAddrIndex:
			sz = 0
			var ok bool
			if _, p, ok = leb128.Uint(b, p); !ok {
				return 0, u.trunc(p)
			}
		case dwarf.FormString:
			sz = 0
			i := bytes.IndexByte(b[p:], 0)
			if i < 0 {
				return 0, u.trunc(p)
			}
			p += i + 1
		case dwarf.FormExprloc, dwarf.FormBlock, dwarf.FormBlock1, dwarf.FormBlock2, dwarf.FormBlock4:
			sz = 0
			if _, p, err = block(u, b, p, form); err != nil {
				return 0, err
			}
		default:
			if sz < 0 {
				return 0, decodeErrf(u.Section.String(), p, "attribute %#x form %#x: %w", specs[i].attr, form, errBadForm)
			}
		}
		if len(b)-p < sz {
			return 0, u.trunc(p)
		}
		p += sz
	}
	return p, nil
}

// indirect reads the form that a DW_FORM_indirect value names.
func indirect(u *Unit, b []byte, p int) (dwarf.Form, int, error) {
	for range maxIndirect {
		f, np, ok := leb128.Uint(b, p)
		if !ok {
			return 0, 0, u.trunc(p)
		}
		if f > 0xffff {
			return 0, 0, decodeErrf(u.Section.String(), p, "indirect form %#x: %w", f, errBadForm)
		}
		if p = np; dwarf.Form(f) != dwarf.FormIndirect {
			return dwarf.Form(f), p, nil
		}
	}
	return 0, 0, decodeErrf(u.Section.String(), p, "DW_FORM_indirect nested more than %d deep", maxIndirect)
}

// block returns the block of a block or exprloc form at p.
func block(u *Unit, b []byte, p int, form dwarf.Form) ([]byte, int, error) {
	var n uint64
	switch form {
	case dwarf.FormBlock1, dwarf.FormBlock2, dwarf.FormBlock4:
		sz := 1
		switch form {
		case dwarf.FormBlock2:
			sz = 2
		case dwarf.FormBlock4:
			sz = 4
		}
		if len(b)-p < sz {
			return nil, 0, u.trunc(p)
		}
		n = uN(b, p, sz, u.d.le)
		p += sz
	default:
		var ok bool
		if n, p, ok = leb128.Uint(b, p); !ok {
			return nil, 0, u.trunc(p)
		}
	}
	if n > uint64(len(b)-p) {
		return nil, 0, decodeErrf(u.Section.String(), p, "block of %d bytes past the unit end", n)
	}
	e := p + int(n)
	return b[p:e:e], e, nil
}

// index reads the index of an index form (strx*, addrx*, loclistx,
// rnglistx and their GNU predecessors).
func index(u *Unit, b []byte, p int, form dwarf.Form) (uint64, int, error) {
	sz := 0
	switch form {
	case dwarf.FormStrx1, dwarf.FormAddrx1:
		sz = 1
	case dwarf.FormStrx2, dwarf.FormAddrx2:
		sz = 2
	case dwarf.FormStrx3, dwarf.FormAddrx3:
		sz = 3
	case dwarf.FormStrx4, dwarf.FormAddrx4:
		sz = 4
	default:
		v, np, ok := leb128.Uint(b, p)
		if !ok {
			return 0, 0, u.trunc(p)
		}
		return v, np, nil
	}
	if len(b)-p < sz {
		return 0, 0, u.trunc(p)
	}
	var v uint64
	switch sz {
	case 3:
		v = u24(b, p, u.d.le)
	default:
		v = uN(b, p, sz, u.d.le)
	}
	return v, p + sz, nil
}

var (
	errNoSection = errors.New("the section it indexes is missing")
	errIndex     = errors.New("index out of range")
	errSup       = errors.New("needs the supplementary (dwz alt or .debug_sup) file, which was not given")
)

// resolve turns the index of an index form into the value it stands for:
// a string (with its .debug_str offset), an address, or a list offset.
func (u *Unit) resolve(form dwarf.Form, idx uint64) (uint64, []byte, error) {
	d := u.d
	switch form {
	case dwarf.FormAddrx, dwarf.FormAddrx1, dwarf.FormAddrx2, dwarf.FormAddrx3, dwarf.FormAddrx4, dwarf.FormGNUAddrIndex:
		v, ok := entryAt(d.sec.Addr, u.AddrBase, idx, int(u.AddrSize), d.le)
		if !ok {
			return idx, nil, indexErr(d.sec.Addr)
		}
		return v, nil, nil
	case dwarf.FormLoclistx, dwarf.FormRnglistx:
		sec, base := d.sec.LocLists, u.LocListsBase
		if form == dwarf.FormRnglistx {
			sec, base = d.sec.RngLists, u.RngListsBase
		}
		v, ok := entryAt(sec, base, idx, int(u.OffsetSize), d.le)
		if !ok {
			return idx, nil, indexErr(sec)
		}
		return base + v, nil, nil
	}
	off, ok := entryAt(d.sec.StrOffsets, u.StrOffsetsBase, idx, int(u.OffsetSize), d.le)
	if !ok {
		return idx, nil, indexErr(d.sec.StrOffsets)
	}
	s := cstr(d.sec.Str, off)
	if s == nil {
		return idx, nil, errors.New("string offset out of .debug_str")
	}
	return off, s, nil
}

func indexErr(sec []byte) error {
	if len(sec) == 0 {
		return errNoSection
	}
	return errIndex
}

// entryAt reads the idx-th sz-byte entry of the table at base in sec.
func entryAt(sec []byte, base, idx uint64, sz int, le bool) (uint64, bool) {
	n := uint64(len(sec))
	if base > n || idx > (n-base)/uint64(sz) {
		return 0, false
	}
	off := base + idx*uint64(sz)
	if off+uint64(sz) > n {
		return 0, false
	}
	return uN(sec, int(off), sz, le), true
}

// supForm decodes the forms that point into a supplementary file.
func supForm(u *Unit, b []byte, p int, form dwarf.Form) (uint64, []byte, int, error) {
	sz := int(u.OffsetSize)
	switch form {
	case dwarf.FormRefSup4:
		sz = 4
	case dwarf.FormRefSup8:
		sz = 8
	}
	if len(b)-p < sz {
		return 0, nil, 0, u.trunc(p)
	}
	v := uN(b, p, sz, u.d.le)
	sup := u.d.sec.Sup
	if sup == nil {
		return 0, nil, 0, decodeErrf(u.Section.String(), p, "form %#x %w: %w", form, errSup, ErrUnsupported)
	}
	var s []byte
	if form == dwarf.FormStrpSup || form == dwarf.FormGNUStrpAlt {
		if s = cstr(sup.sec.Str, v); s == nil {
			return 0, nil, 0, u.badString(p, form, v)
		}
	}
	return v, s, p + sz, nil
}

// cstr returns the NUL-terminated string at off in sec, without the NUL, or
// nil when off is out of range or the string unterminated. An empty string
// is returned as a non-nil empty slice.
func cstr(sec []byte, off uint64) []byte {
	if off >= uint64(len(sec)) {
		return nil
	}
	s := sec[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return nil
	}
	return s[:i:i]
}

func (u *Unit) trunc(p int) error {
	return decodeErr(u.Section.String(), p, errTruncated)
}

func (u *Unit) badString(p int, form dwarf.Form, off uint64) error {
	return decodeErrf(u.Section.String(), p, "form %#x string offset %#x out of range or unterminated", form, off)
}
