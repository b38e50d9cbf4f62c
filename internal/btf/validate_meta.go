package btf

import "fmt"

// Pass 2 of the validator: the kernel verifier's per-type "meta" checks,
// which look at one type's own words only (no referenced type).

// infoValidMask holds the info-word bits a type may set in the kernels the
// validator models, those before 7.1: vlen (0-15), kind (24-28) and
// kind_flag (31). Linux 7.1 gave vlen bits 16-23 and kind bits 29-30 (see
// Info); BTF that uses them is read everywhere else but fails here, as it
// fails to load into those kernels.
const infoValidMask = 0x9f00ffff

// runMetas runs the per-type checks over the types in ID order (only the
// Spec's own with v.own) and, on the load path, enforces the kernel's
// type-count limit. Each fault goes to add; it returns false as soon as add
// does, and true when the pass ran to its end.
func (v *validator) runMetas(add func(error) bool) bool {
	layers := v.layers
	if v.own {
		layers = layers[len(layers)-1:]
	}
	for _, l := range layers {
		for i := range l.spec.NumTypes() {
			id := l.firstID + TypeID(i)
			t := l.spec.typeAt(i)
			if err := v.checkMeta(id, t); err != nil && !add(err) {
				return false
			}
			if id >= KernelMaxTypeID && v.maxRef == KernelMaxTypeID && !v.own {
				e := v.formErrorf(FormBlob, id, t, "Exceeded max num of types",
					"type count %d exceeds the kernel's limit of %d types (BTF_MAX_TYPE %d, void included)",
					v.n, KernelMaxTypeID-1, KernelMaxTypeID)
				e.Errno = errnoE2BIG
				if !add(e) {
					return false
				}
				return true
			}
		}
	}
	return true
}

// refOK reports whether a type ID is within the range the kernel accepts in
// a reference. Whether the type exists is checked when references are
// resolved.
func (v *validator) refOK(id TypeID) bool { return id <= v.maxRef }

// badRef describes why a reference failed refOK or was void.
func (v *validator) badRef(id TypeID) string {
	if id == 0 {
		return "void"
	}
	return "beyond the kernel's type ID limit (BTF_MAX_TYPE)"
}

func (v *validator) checkMeta(id TypeID, t Type) error {
	if t[1]&^infoValidMask != 0 {
		return v.formErrorf(FormPlain, id, t, fmt.Sprintf("Invalid btf_info:%x", t[1]), "info word %#08x sets reserved bits", t[1])
	}
	if !v.nameOffValid(t[0]) {
		return v.formErrorf(FormPlain, id, t, fmt.Sprintf("Invalid name_offset:%d", t[0]), "name offset %d is outside the string section (%d bytes)", t[0], v.strs.Len())
	}
	k := t.Kind()
	switch k {
	case KindInt:
		return v.checkIntMeta(id, t)
	case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		return v.checkRefMeta(id, t)
	case KindFwd:
		switch {
		case t.Vlen() != 0:
			return v.errVlen(id, t)
		case t[2] != 0:
			return v.errorf(id, t, "type != 0", "FWD has a non-zero type/size word %d", t[2])
		case t[0] == 0 || !v.validIdent(t[0]):
			return v.errName(id, t, "a FWD needs a valid C identifier as name")
		}
	case KindArray:
		elem, index, _ := t.Array()
		switch {
		case t[0] != 0:
			return v.errName(id, t, "an ARRAY must be anonymous")
		case t.Vlen() != 0:
			return v.errVlen(id, t)
		case t.KindFlag():
			return v.errKindFlag(id, t)
		case t[2] != 0:
			return v.errorf(id, t, "size != 0", "ARRAY has a non-zero size word %d", t[2])
		case elem == 0 || !v.refOK(elem):
			return v.errorf(id, t, "Invalid elem", "element type ID %d is %s", elem, v.badRef(elem))
		case index == 0 || !v.refOK(index):
			return v.errorf(id, t, "Invalid index", "index type ID %d is %s", index, v.badRef(index))
		}
	case KindStruct, KindUnion:
		return v.checkStructMeta(id, t)
	case KindEnum, KindEnum64:
		return v.checkEnumMeta(id, t)
	case KindFuncProto:
		switch {
		case t[0] != 0:
			return v.errName(id, t, "a FUNC_PROTO must be anonymous")
		case t.KindFlag():
			return v.errKindFlag(id, t)
		}
	case KindFunc:
		switch {
		case t[0] == 0 || !v.validIdent(t[0]):
			return v.errName(id, t, "a FUNC needs a valid C identifier as name")
		case t.Vlen() > LinkageGlobal:
			return v.errorf(id, t, "Invalid func linkage", "linkage %d is neither static (0) nor global (1)", t.Vlen())
		case t.KindFlag():
			return v.errKindFlag(id, t)
		}
	case KindVar:
		switch {
		case t.Vlen() != 0:
			return v.errVlen(id, t)
		case t.KindFlag():
			return v.errKindFlag(id, t)
		case t[0] == 0 || !v.validIdent(t[0]):
			return v.errName(id, t, "a VAR needs a valid C identifier as name")
		case t[2] == 0 || !v.refOK(t[2]):
			return v.errorf(id, t, "Invalid type_id", "variable type ID %d is %s", t[2], v.badRef(t[2]))
		case t[3] != LinkageStatic && t[3] != LinkageGlobal:
			return v.errorf(id, t, "Linkage not supported", "linkage %d is neither static (0) nor global (1)", t[3])
		}
	case KindDatasec:
		return v.checkDatasecMeta(id, t)
	case KindFloat:
		switch {
		case t.Vlen() != 0:
			return v.errVlen(id, t)
		case t.KindFlag():
			return v.errKindFlag(id, t)
		case t[2] != 2 && t[2] != 4 && t[2] != 8 && t[2] != 12 && t[2] != 16:
			return v.errorf(id, t, "Invalid type_size", "FLOAT size %d is not 2, 4, 8, 12 or 16", t[2])
		}
	case KindDeclTag:
		switch {
		case !v.nonEmpty(t[0]):
			return v.errorf(id, t, "Invalid value", "a DECL_TAG needs a non-empty value")
		case t.Vlen() != 0:
			return v.errVlen(id, t)
		case t.KindFlag() && v.opts.Rules.TagKindFlagRefused:
			return v.errKindFlag(id, t)
		case t.ComponentIdx() < -1:
			return v.errorf(id, t, "Invalid component_idx", "component index %d is below -1", t.ComponentIdx())
		}
	default:
		return v.formErrorf(FormPlain, id, t, fmt.Sprintf("Invalid kind:%d", k), "unknown kind %d", k)
	}
	return nil
}

// entryErr builds the error about member, enumerator or DATASEC entry i of
// type id, logged in the given form.
func (v *validator) entryErr(form LogForm, id TypeID, t Type, i int, kernel, format string, args ...any) *ValidationError {
	e := v.formErrorf(form, id, t, kernel, format, args...)
	e.Index = i
	if form == FormMember && i < t.Vlen() {
		e.MemberType = t.Member(i).Type
	}
	return e
}

func (v *validator) errVlen(id TypeID, t Type) error {
	return v.errorf(id, t, "vlen != 0", "vlen %d must be 0 for %s", t.Vlen(), t.Kind())
}

func (v *validator) errKindFlag(id TypeID, t Type) error {
	return v.errorf(id, t, "Invalid btf_info kind_flag", "kind_flag must be 0 for %s", t.Kind())
}

func (v *validator) errName(id TypeID, t Type, why string) error {
	return v.errorf(id, t, "Invalid name", "invalid name: %s", why)
}

// checkIntMeta checks an INT's encoding word: no bits beyond the 28 defined
// ones, offset+bits at most 128 and within the size, at most one encoding
// flag. The kernel does not restrict the size itself to 1, 2, 4, 8 or 16.
func (v *validator) checkIntMeta(id TypeID, t Type) error {
	w := t[3]
	enc, off, bits := t.IntData()
	total := uint32(off) + uint32(bits)
	switch {
	case t.Vlen() != 0:
		return v.errVlen(id, t)
	case t.KindFlag():
		return v.errKindFlag(id, t)
	case w&^0x0fffffff != 0:
		return v.formErrorf(FormBasic, id, t, fmt.Sprintf("Invalid int_data:%x", w), "encoding word %#08x sets reserved bits", w)
	case total > 128:
		return v.errorf(id, t, "nr_bits exceeds 128", "bit offset %d + bits %d exceeds 128", off, bits)
	case (total+7)/8 > t[2]:
		return v.errorf(id, t, "nr_bits exceeds type_size", "bit offset %d + bits %d does not fit in size %d", off, bits, t[2])
	case enc != 0 && enc != IntSigned && enc != IntChar && enc != IntBool:
		e := v.errorf(id, t, "Unsupported encoding", "encoding %#x sets more than one of SIGNED, CHAR, BOOL", enc)
		e.Errno = errnoENOTSUPP
		return e
	}
	return nil
}

// checkRefMeta checks PTR, TYPEDEF, the modifiers and TYPE_TAG: no vlen,
// kind_flag only on TYPE_TAG (and there only where the rules allow it), a
// type ID in range, and the name rule: a
// TYPEDEF needs an identifier, a TYPE_TAG a non-empty value, the others no
// name.
func (v *validator) checkRefMeta(id TypeID, t Type) error {
	k := t.Kind()
	switch {
	case t.Vlen() != 0:
		return v.errVlen(id, t)
	case t.KindFlag() && (k != KindTypeTag || v.opts.Rules.TagKindFlagRefused):
		return v.errKindFlag(id, t)
	case !v.refOK(t[2]):
		return v.errorf(id, t, "Invalid type_id", "type ID %d is %s", t[2], v.badRef(t[2]))
	}
	switch k {
	case KindTypedef:
		if t[0] == 0 || !v.validIdent(t[0]) {
			return v.errName(id, t, "a TYPEDEF needs a valid C identifier as name")
		}
	case KindTypeTag:
		if !v.nonEmpty(t[0]) {
			return v.errName(id, t, "a TYPE_TAG needs a non-empty value")
		}
	default:
		if t[0] != 0 {
			return v.errName(id, t, "a "+k.String()+" must be anonymous")
		}
	}
	return nil
}

// checkStructMeta checks a STRUCT or UNION: an identifier or no name, member
// names likewise, no void member, bit offsets zero in a union and
// non-decreasing in a struct, and no member starting beyond the size.
// Whether members fit is checked when their types are resolved.
func (v *validator) checkStructMeta(id TypeID, t Type) error {
	if t[0] != 0 && !v.validIdent(t[0]) {
		return v.errName(id, t, "not a valid C identifier")
	}
	union := t.Kind() == KindUnion
	kflag := t.KindFlag()
	size := t[2]
	var last uint32
	for i := range t.Vlen() {
		m := t.Member(i)
		if !v.nameOffValid(m.NameOff) {
			return v.entryErr(FormMember, id, t, i, fmt.Sprintf("Invalid member name_offset:%d", m.NameOff), "member %d name offset %d is outside the string section", i, m.NameOff)
		}
		if m.NameOff != 0 && !v.validIdent(m.NameOff) {
			return v.entryErr(FormMember, id, t, i, "Invalid name", "member %d name %q is not a valid C identifier", i, v.strs.String(m.NameOff))
		}
		if m.Type == 0 || !v.refOK(m.Type) {
			return v.entryErr(FormMember, id, t, i, "Invalid type_id", "member '%s' type ID %d is %s", v.strs.String(m.NameOff), m.Type, v.badRef(m.Type))
		}
		off := MemberBitOffset(kflag, m.Offset)
		if union && off != 0 {
			return v.entryErr(FormMember, id, t, i, "Invalid member bits_offset", "union member '%s' has non-zero bit offset %d", v.strs.String(m.NameOff), off)
		}
		if off < last {
			return v.entryErr(FormMember, id, t, i, "Invalid member bits_offset", "member '%s' bit offset %d is below the previous member's %d", v.strs.String(m.NameOff), off, last)
		}
		if off/8+b2u(off%8 != 0) > size {
			return v.entryErr(FormMember, id, t, i, "Member bits_offset exceeds its struct size", "member '%s' bit offset %d beyond struct size %d", v.strs.String(m.NameOff), off, size)
		}
		last = off
	}
	return nil
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// checkEnumMeta checks an ENUM or ENUM64: a size that is a power of two up
// to 8 (for both kinds), an identifier or no name, and an identifier for
// every enumerator.
func (v *validator) checkEnumMeta(id TypeID, t Type) error {
	size := t[2]
	if size > 8 || size&(size-1) != 0 || size == 0 {
		return v.errorf(id, t, "Unexpected size", "%s size %d is not 1, 2, 4 or 8", t.Kind(), size)
	}
	if t[0] != 0 && !v.validIdent(t[0]) {
		return v.errName(id, t, "not a valid C identifier")
	}
	stride := 2
	if t.Kind() == KindEnum64 {
		stride = 3
	}
	for i := range t.Vlen() {
		off := t[headerWords+stride*i]
		if !v.nameOffValid(off) {
			// The kernel names neither the type nor the enumerator.
			e := v.formErrorf(FormBlob, id, t, fmt.Sprintf("\tInvalid name_offset:%d", off), "enumerator %d name offset %d is outside the string section", i, off)
			e.Index = i
			return e
		}
		if off == 0 || !v.validIdent(off) {
			return v.errorf(id, t, "Invalid name", "enumerator %d name %q is not a valid C identifier", i, v.strs.String(off))
		}
	}
	return nil
}

// checkDatasecMeta checks a DATASEC: non-zero size, no kind_flag, a
// printable non-empty name, and entries that refer to a type, are sorted by
// offset, do not overlap, have a non-zero size and lie within the section.
// That each entry is a VAR is checked at resolution.
func (v *validator) checkDatasecMeta(id TypeID, t Type) error {
	size := t[2]
	switch {
	case size == 0:
		return v.errorf(id, t, "size == 0", "DATASEC size is 0")
	case t.KindFlag():
		return v.errKindFlag(id, t)
	case t[0] == 0 || !v.validSection(t[0]):
		if v.opts.Rules.DatasecIdentNames {
			return v.errName(id, t, "a DATASEC needs a valid C identifier as name under these rules")
		}
		return v.errName(id, t, "a DATASEC needs a non-empty printable name")
	}
	var end, sum uint64
	for i := range t.Vlen() {
		typ, off, sz := t.SecInfo(i)
		switch {
		case typ == 0 || !v.refOK(typ):
			return v.entryErr(FormVsi, id, t, i, "Invalid type_id", "entry %d type ID %d is %s", i, typ, v.badRef(typ))
		case uint64(off) < end:
			return v.entryErr(FormVsi, id, t, i, "Invalid offset", "entry %d offset %d overlaps the previous entry ending at %d (entries must be sorted)", i, off, end)
		case off >= size:
			return v.entryErr(FormVsi, id, t, i, "Invalid offset", "entry %d offset %d is beyond section size %d", i, off, size)
		case sz == 0 || sz > size:
			return v.entryErr(FormVsi, id, t, i, "Invalid size", "entry %d size %d is 0 or exceeds section size %d", i, sz, size)
		}
		// The kernel adds offset and size in 32 bits, so a sum past
		// 2^32 wraps around and passes.
		end = uint64(off + sz)
		if end > uint64(size) {
			return v.entryErr(FormVsi, id, t, i, "Invalid offset+size", "entry %d [%d, %d) ends beyond section size %d", i, off, end, size)
		}
		sum += uint64(sz)
	}
	if sum > uint64(size) {
		return v.errorf(id, t, "Invalid btf_info size", "entry sizes add up to %d, beyond section size %d", sum, size)
	}
	return nil
}
