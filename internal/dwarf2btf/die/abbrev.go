package die

// attrSpec is one attribute of an abbreviation: its name, its form and, for
// DW_FORM_implicit_const, the index in the table's implicit list of the value
// stored in the abbreviation itself. Eight bytes: a kernel has millions.
type attrSpec struct {
	attr     uint32
	form     Form
	implicit uint16
}

// maxImplicit is the number of DW_FORM_implicit_const values one table can
// hold (attrSpec.implicit indexes them); compilers write a few dozen.
const maxImplicit = 1 << 16

// abbrev describes the DIEs that use one abbreviation code. Its attributes
// are specs[first : first+n] of the table that holds it.
type abbrev struct {
	tag      uint32
	children bool
	first, n uint32
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
func parseAbbrevTable(sec []byte, off uint64, sc *abbrevScratch) (*abbrevTable, error) {
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
		code, np, ok := uleb(sec, p)
		if !ok {
			return nil, decodeErr(name, p, errTruncated)
		}
		p = np
		if code == 0 {
			break
		}
		tag, np, ok := uleb(sec, p)
		if !ok || np >= len(sec) {
			return nil, decodeErr(name, p, errTruncated)
		}
		if tag > 0xffffffff {
			return nil, decodeErrf(name, start, "tag %#x out of range", tag)
		}
		p = np
		a := abbrev{tag: uint32(tag), children: sec[p] != 0, first: uint32(len(specs))}
		p++
		for {
			at, np, ok := uleb(sec, p)
			if !ok {
				return nil, decodeErr(name, p, errTruncated)
			}
			form, np2, ok := uleb(sec, np)
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
			s := attrSpec{attr: uint32(at), form: Form(form)}
			if s.form == FormImplicitConst {
				v, np, ok := sleb(sec, p)
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
		a.n = uint32(len(specs)) - a.first
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
func (u *Unit) UsesForm(f Form) bool {
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
