package btffile

import (
	"syscall"

	"github.com/gobtf/gobtf/internal/btf"
)

// sanity is btf_sanity_check: in ID order, every own type's name, its
// members', values' and parameters' names are offsets inside the string
// sections (the base's or the blob's), the types it refers to exist, and
// a FUNC refers to a FUNC_PROTO. It is what refuses split BTF laid on the
// wrong base: its IDs and offsets then land on other types and strings.
func (b *blob) sanity(o *opener) error {
	for i, off := range b.offs {
		id := b.startID + uint32(i)
		if !b.validType(o, id, off) {
			return o.fail(syscall.EINVAL)
		}
	}
	return nil
}

// word returns the n-th word of the type at off.
func (b *blob) word(off uint32, n int) uint32 { return b.order.Uint32(b.data[off+uint32(4*n):]) }

// validType is btf_validate_type for type id at off.
func (b *blob) validType(o *opener, id, off uint32) bool {
	info := b.word(off, 1)
	kind, vlen := btf.InfoKind(info), btf.InfoVlen(info)
	if !b.validStr(o, b.word(off, 0), "type name", id) {
		return false
	}
	switch kind {
	case btf.KindUnknown, btf.KindInt, btf.KindFwd, btf.KindFloat:
		return true
	case btf.KindPtr, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict,
		btf.KindVar, btf.KindDeclTag, btf.KindTypeTag:
		return b.validID(o, b.word(off, 2), id)
	case btf.KindArray:
		return b.validID(o, b.word(off, 3), id) && b.validID(o, b.word(off, 4), id)
	case btf.KindStruct, btf.KindUnion:
		for m := 0; m < vlen; m++ {
			if !b.validStr(o, b.word(off, 3+3*m), "field name", id) || !b.validID(o, b.word(off, 4+3*m), id) {
				return false
			}
		}
		return true
	case btf.KindEnum, btf.KindEnum64:
		step := 2
		if kind == btf.KindEnum64 {
			step = 3
		}
		for m := 0; m < vlen; m++ {
			if !b.validStr(o, b.word(off, 3+step*m), "enum name", id) {
				return false
			}
		}
		return true
	case btf.KindFunc:
		ref := b.word(off, 2)
		if !b.validID(o, ref, id) {
			return false
		}
		if b.kindOf(ref) != btf.KindFuncProto {
			o.logf(Warn, "btf: type [%d]: referenced type [%d] is not FUNC_PROTO", id, ref)
			return false
		}
		return true
	case btf.KindFuncProto:
		for m := 0; m < vlen; m++ {
			if !b.validStr(o, b.word(off, 3+2*m), "param name", id) || !b.validID(o, b.word(off, 4+2*m), id) {
				return false
			}
		}
		return true
	case btf.KindDatasec:
		for m := 0; m < vlen; m++ {
			if !b.validID(o, b.word(off, 3+3*m), id) {
				return false
			}
		}
		return true
	}
	// A kind this libbpf does not know: known to the layout section, or
	// refused (types let it through only when it is).
	if _, ok := b.unknownSize(o, uint32(kind), uint32(vlen)); !ok {
		o.logf(Warn, "btf: type [%d]: unrecognized kind %d", id, kind)
		return false
	}
	return true
}

// validStr is btf_validate_str: off is inside the base's strings (which
// end where the blob's start) or the blob's own.
func (b *blob) validStr(o *opener, off uint32, what string, id uint32) bool {
	if off < b.startStr || off-b.startStr < b.strLen {
		return true
	}
	o.logf(Warn, "btf: type [%d]: invalid %s (string offset %d)", id, what, off)
	return false
}

// validID is btf_validate_id: ref is void, a base type or an own type.
func (b *blob) validID(o *opener, ref, id uint32) bool {
	if ref < b.startID+uint32(len(b.offs)) {
		return true
	}
	o.logf(Warn, "btf: type [%d]: invalid referenced type ID %d", id, ref)
	return false
}

// kindOf returns the kind of type ref (void's is KindUnknown), which
// validID has found to exist.
func (b *blob) kindOf(ref uint32) btf.Kind {
	switch {
	case ref == 0:
		return btf.KindUnknown
	case ref < b.startID:
		return b.base.Type(ref).Kind()
	}
	return btf.InfoKind(b.word(b.offs[ref-b.startID], 1))
}
