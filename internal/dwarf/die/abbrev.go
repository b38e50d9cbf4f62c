package die

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// attrSpec is one attribute of an abbreviation: its name, its form and, for
// DW_FORM_implicit_const, the index in the table's implicit list of the value
// stored in the abbreviation itself. Eight bytes: a kernel has millions.
type attrSpec struct {
	attr     dwarf.Attr
	form     dwarf.Form
	implicit uint16
}

// maxImplicit is the number of DW_FORM_implicit_const values one table can
// hold (attrSpec.implicit indexes them); compilers write a few dozen.
const maxImplicit = 1 << 16

// abbrev describes the DIEs that use one abbreviation code. Its attributes
// are specs[first : first+n] of the table that holds it.
type abbrev struct {
	tag      dwarf.Tag
	children bool
	first, n uint32

	// skipSize is the size of the attribute values of every DIE of this
	// abbreviation when each of its forms has a size the form alone fixes,
	// and -1 otherwise: skipAttrs then steps over them in one move.
	skipSize int32

	// fixSize is the same size in a unit of the common shape (see
	// Unit.fixedLen), where offsets are 4 bytes and addresses 8, so that
	// strp, sec_offset, ref_addr and addr have fixed sizes too; -1 when
	// some form's size is still not fixed.
	fixSize int32
}

// abbrevTable is one abbreviation table of .debug_abbrev, stored flatly: all
// attribute specs in one slice, each abbreviation a range of it. When the
// codes are 1, 2, 3, ... in order (as every compiler writes them) list is
// indexed by code-1 and sparse is nil; otherwise sparse maps codes to list
// indices. A table is immutable once built and shared by every unit (and
// every goroutine) that names its offset.
type abbrevTable struct {
	list     []abbrev
	specs    []attrSpec
	implicit []int64
	sparse   map[uint64]int32
}

// abbrevScratch holds the growing buffers a table is parsed into before it
// is copied out at its exact size, so that parsing thousands of tables
// leaves neither spare capacity nor garbage behind.
type abbrevScratch struct {
	list     []abbrev
	specs    []attrSpec
	implicit []int64
	codes    []uint64
}

// lookup returns the abbreviation with the given code, or nil.
func (t *abbrevTable) lookup(code uint64) *abbrev {
	if t == nil {
		return nil // a unit whose table was dropped (Data.Forget)
	}
	if t.sparse == nil {
		if code-1 < uint64(len(t.list)) {
			return &t.list[code-1]
		}
		return nil
	}
	if i, ok := t.sparse[code]; ok {
		return &t.list[i]
	}
	return nil
}

// parseAbbrevTable reads the table starting at off in sec (.debug_abbrev),
// using sc's buffers (nil: fresh ones) while parsing. Every read is bounded by
// the section, so bad input ends in an error.
//
// With lean set, the values of attributes no caller reads (leanSkips) are
// folded into formSkip steps where their size is fixed (see New).
func parseAbbrevTable(sec []byte, off uint64, sc *abbrevScratch, lean bool) (*abbrevTable, error) {
	const name = ".debug_abbrev"
	if off >= uint64(len(sec)) {
		return nil, decodeErrf(name, int(min(off, uint64(len(sec)))), "abbreviation table offset %#x out of range", off)
	}
	if sc == nil {
		sc = &abbrevScratch{}
	}
	list, specs, implicit, codes := sc.list[:0], sc.specs[:0], sc.implicit[:0], sc.codes[:0]
	defer func() { sc.list, sc.specs, sc.implicit, sc.codes = list, specs, implicit, codes }()
	dense := true
	p := int(off)
	for {
		start := p
		code, np, ok := leb128.Uint(sec, p)
		if !ok {
			return nil, decodeErr(name, p, errTruncated)
		}
		p = np
		if code == 0 {
			break
		}
		tag, np, ok := leb128.Uint(sec, p)
		if !ok || np >= len(sec) {
			return nil, decodeErr(name, p, errTruncated)
		}
		if tag > 0xffffffff {
			return nil, decodeErrf(name, start, "tag %#x out of range", tag)
		}
		p = np
		a := abbrev{tag: dwarf.Tag(tag), children: sec[p] != 0, first: uint32(len(specs))}
		p++
		for {
			at, np, ok := leb128.Uint(sec, p)
			if !ok {
				return nil, decodeErr(name, p, errTruncated)
			}
			form, np2, ok := leb128.Uint(sec, np)
			if !ok {
				return nil, decodeErr(name, np, errTruncated)
			}
			p = np2
			if at == 0 && form == 0 {
				break
			}
			if at > 0xffffffff || form > 0xffff {
				return nil, decodeErrf(name, start, "attribute %#x form %#x out of range", at, form)
			}
			s := attrSpec{attr: dwarf.Attr(at), form: dwarf.Form(form)}
			if s.form == dwarf.FormImplicitConst {
				v, np, ok := leb128.Int(sec, p)
				if !ok {
					return nil, decodeErr(name, p, errTruncated)
				}
				if len(implicit) >= maxImplicit {
					return nil, decodeErrf(name, p, "more than %d implicit constants in one table", maxImplicit)
				}
				s.implicit, p = uint16(len(implicit)), np
				implicit = append(implicit, v)
			}
			specs = append(specs, s)
		}
		if lean {
			specs = fold(specs, a.first)
		}
		a.n = uint32(len(specs)) - a.first
		a.skipSize = skipSize(specs[a.first:])
		a.fixSize = commonSize(specs[a.first:])
		if code != uint64(len(list))+1 {
			dense = false
		}
		list = append(list, a)
		codes = append(codes, code)
	}
	t := &abbrevTable{
		list:  append([]abbrev(nil), list...),
		specs: append([]attrSpec(nil), specs...),
	}
	if len(implicit) > 0 {
		t.implicit = append([]int64(nil), implicit...)
	}
	if !dense {
		t.sparse = make(map[uint64]int32, len(codes))
		for i, c := range codes {
			if _, dup := t.sparse[c]; !dup {
				t.sparse[c] = int32(i)
			}
		}
	}
	return t, nil
}

// UsesForm reports whether any abbreviation of u's table has an attribute
// of form f. pahole asks this of DW_FORM_ref_addr to decide whether units
// refer into each other.
func (u *Unit) UsesForm(f dwarf.Form) bool {
	if u.abbrevs == nil {
		return false
	}
	for _, s := range u.abbrevs.specs {
		if s.form == f {
			return true
		}
	}
	return false
}

// formSkip is the pseudo-form of a lean table's step over the values of
// attributes no caller reads; attrSpec.implicit holds their total size. It
// lies outside the forms DWARF defines (up to 0x2c, the GNU ones at
// 0x1f01-0x1f21), so no attribute read from .debug_abbrev can carry it.
const formSkip dwarf.Form = 0xff00

// leanSkips reports whether a lean Data steps over attribute attr: the
// source coordinates of declarations and of inlined calls, GCC's location
// views, and a few flags and sizes that BTF has no place for. On a kernel
// they are about two fifths of all attribute values, and nothing in gobtf
// reads them.
func leanSkips(attr dwarf.Attr) bool {
	switch attr {
	case dwarf.AttrDeclColumn, dwarf.AttrDeclFile, dwarf.AttrDeclLine,
		dwarf.AttrCallColumn, dwarf.AttrCallFile, dwarf.AttrCallLine,
		dwarf.AttrGNULocviews, dwarf.AttrGNUEntryView,
		dwarf.AttrHighpc, dwarf.AttrPrototyped, dwarf.AttrAccessibility,
		dwarf.AttrCallAllCalls, dwarf.AttrCallAllTailCalls, dwarf.AttrNoreturn, dwarf.AttrAlignment,
		dwarf.AttrGNUAllTailCallSites, dwarf.AttrGNUAllCallSites:
		return true
	}
	return false
}

// fixedSize returns the size of a value of form f when the form alone fixes
// it (not the unit's address or offset size), and -1 otherwise.
func fixedSize(f dwarf.Form) int {
	switch f {
	case dwarf.FormFlagPresent, dwarf.FormImplicitConst:
		return 0
	case dwarf.FormData1, dwarf.FormRef1, dwarf.FormFlag, dwarf.FormStrx1, dwarf.FormAddrx1:
		return 1
	case dwarf.FormData2, dwarf.FormRef2, dwarf.FormStrx2, dwarf.FormAddrx2:
		return 2
	case dwarf.FormStrx3, dwarf.FormAddrx3:
		return 3
	case dwarf.FormData4, dwarf.FormRef4, dwarf.FormStrx4, dwarf.FormAddrx4, dwarf.FormRefSup4:
		return 4
	case dwarf.FormData8, dwarf.FormRef8, dwarf.FormRefSig8, dwarf.FormRefSup8:
		return 8
	case dwarf.FormData16:
		return 16
	}
	return -1
}

// fold rewrites the specs of one abbreviation, specs[first:], for a lean
// table: each run of attributes to skip whose forms have a fixed size
// becomes one formSkip step. An attribute to skip with a variable-size
// form (udata, say) stays, and is decoded as before.
func fold(specs []attrSpec, first uint32) []attrSpec {
	out := specs[:first]
	for _, s := range specs[first:] {
		sz := fixedSize(s.form)
		if sz < 0 || !leanSkips(s.attr) {
			out = append(out, s)
			continue
		}
		if n := len(out); n > int(first) && out[n-1].form == formSkip && int(out[n-1].implicit)+sz <= 0xffff {
			out[n-1].implicit += uint16(sz)
			continue
		}
		out = append(out, attrSpec{form: formSkip, implicit: uint16(sz)})
	}
	return out
}

// skipSize returns the total size of the values of an abbreviation's specs
// when every one is fixed by its form, and -1 otherwise.
func skipSize(specs []attrSpec) int32 {
	var n int32
	for _, s := range specs {
		sz := fixedSize(s.form)
		if s.form == formSkip {
			sz = int(s.implicit)
		}
		if sz < 0 || n > 1<<24 {
			return -1
		}
		n += int32(sz)
	}
	return n
}
