package btf

import "math"

// Member placement checks of the kernel's verifier: once a member's type is
// settled, the member must fit in its STRUCT/UNION. What "fits" means
// depends on the member type's kind and on the container's kind_flag (with
// it, the top 8 bits of a member's offset word are a bitfield size). The
// kernel computes these bounds in unsigned 32-bit arithmetic; so does this
// file, wrap-around included, so that the same layouts pass.

// checkMember checks member m of the STRUCT/UNION st (ID sid) whose type
// is mt.
func (v *validator) checkMember(sid TypeID, st Type, m Member, mi int, mt Type) error {
	kflag := st.KindFlag()
	k := mt.Kind()
	if isModifier(k) {
		rid, _, rt, ok := v.sizeOf(m.Type)
		if !ok {
			return v.memberErr(sid, st, m, mi, "Invalid member", "type ID %d does not resolve to a sized type", m.Type)
		}
		m.Type = rid
		mt = rt
		k = mt.Kind()
	}
	switch k {
	case KindInt:
		if kflag {
			return v.checkIntBitfield(sid, st, m, mi, mt)
		}
		return v.checkIntMember(sid, st, m, mi, mt)
	case KindEnum, KindEnum64:
		if kflag {
			return v.checkEnumBitfield(sid, st, m, mi)
		}
		return v.checkWholeMember(sid, st, m, mi, mt[2])
	case KindPtr, KindArray, KindStruct, KindUnion, KindFloat:
		if kflag && MemberBitfieldSize(true, m.Offset) != 0 {
			return v.memberErr(sid, st, m, mi, "Invalid member bitfield_size", "a %s member cannot be a bitfield", k)
		}
		// With a zero bitfield size the offset word is the bit offset.
		switch k {
		case KindPtr:
			return v.checkWholeMember(sid, st, m, mi, kernelPtrSize)
		case KindArray:
			_, size, _, _ := v.sizeOf(m.Type)
			return v.checkWholeMember(sid, st, m, mi, size)
		case KindFloat:
			return v.checkFloatMember(sid, st, m, mi, mt[2])
		}
		return v.checkWholeMember(sid, st, m, mi, mt[2])
	}
	e := v.formErrorf(FormBasic, sid, st, "Unsupported check_member", "member '%s': a %s cannot be a member", v.strs.String(m.NameOff), k)
	if st.KindFlag() {
		e.Kernel = "Unsupported check_kflag_member"
	}
	return e
}

// memberErr builds an error about member m of st.
func (v *validator) memberErr(sid TypeID, st Type, m Member, mi int, kernel, format string, args ...any) error {
	e := v.entryErr(FormMember, sid, st, mi, kernel, format, args...)
	e.Resolve = true
	e.MemberType = m.Type
	e.Rule = "member '" + v.strs.String(m.NameOff) + "': " + e.Rule
	return e
}

// checkWholeMember checks a byte-aligned member of the given size.
func (v *validator) checkWholeMember(sid TypeID, st Type, m Member, mi int, size uint32) error {
	off := m.Offset
	if off%8 != 0 {
		return v.memberErr(sid, st, m, mi, "Member is not byte aligned", "bit offset %d is not a multiple of 8", off)
	}
	if st[2]-off/8 < size {
		return v.memberErr(sid, st, m, mi, "Member exceeds struct_size", "%d bytes at byte offset %d exceed %s size %d", size, off/8, st.Kind(), st[2])
	}
	return nil
}

// checkIntMember checks an INT member of a STRUCT/UNION without kind_flag:
// the INT's own bit offset and bits, shifted by the member offset, must fit.
func (v *validator) checkIntMember(sid TypeID, st Type, m Member, mi int, mt Type) error {
	_, ioff, bits := mt.IntData()
	off := m.Offset
	if math.MaxUint32-off < uint32(ioff) {
		return v.memberErr(sid, st, m, mi, "bits_offset exceeds U32_MAX", "bit offset %d + INT bit offset %d overflows 32 bits", off, ioff)
	}
	off += uint32(ioff)
	return v.checkBits(sid, st, m, mi, off, uint32(bits))
}

// checkBits checks that nbits bits at bit offset off fit in st.
func (v *validator) checkBits(sid TypeID, st Type, m Member, mi int, off, nbits uint32) error {
	bytes := off / 8
	span := nbits + off%8
	if span > 128 {
		return v.memberErr(sid, st, m, mi, "nr_copy_bits exceeds 128", "%d bits at bit offset %d span more than 128 bits", nbits, off)
	}
	if st[2] < bytes || st[2]-bytes < (span+7)/8 {
		return v.memberErr(sid, st, m, mi, "Member exceeds struct_size", "%d bits at bit offset %d exceed %s size %d", nbits, off, st.Kind(), st[2])
	}
	return nil
}

// checkIntBitfield checks an INT member of a kind_flag STRUCT/UNION: the
// INT must be a whole regular integer, a bitfield no wider than it, and a
// non-bitfield member byte aligned.
func (v *validator) checkIntBitfield(sid TypeID, st Type, m Member, mi int, mt Type) error {
	if !intRegular(mt) {
		return v.memberErr(sid, st, m, mi, "Invalid member base type", "a kind_flag member's INT [%d] must be a whole 1, 2, 4, 8 or 16-byte integer", m.Type)
	}
	_, _, ibits := mt.IntData()
	nbits := MemberBitfieldSize(true, m.Offset)
	off := MemberBitOffset(true, m.Offset)
	if nbits == 0 {
		if off%8 != 0 {
			return v.memberErr(sid, st, m, mi, "Invalid member offset", "non-bitfield bit offset %d is not a multiple of 8", off)
		}
		nbits = uint32(ibits)
	} else if nbits > uint32(ibits) {
		return v.memberErr(sid, st, m, mi, "Invalid member bitfield_size", "bitfield size %d exceeds its INT's %d bits", nbits, ibits)
	}
	return v.checkBits(sid, st, m, mi, off, nbits)
}

// checkEnumBitfield checks an ENUM/ENUM64 member of a kind_flag
// STRUCT/UNION. Like the kernel, it takes a non-bitfield enum member to be
// 32 bits wide, and bitfields to be at most 32 bits, whatever the enum's
// size.
func (v *validator) checkEnumBitfield(sid TypeID, st Type, m Member, mi int) error {
	nbits := MemberBitfieldSize(true, m.Offset)
	off := MemberBitOffset(true, m.Offset)
	if nbits == 0 {
		if off%8 != 0 {
			return v.memberErr(sid, st, m, mi, "Member is not byte aligned", "bit offset %d is not a multiple of 8", off)
		}
		nbits = 32
	} else if nbits > 32 {
		return v.memberErr(sid, st, m, mi, "Invalid member bitfield_size", "enum bitfield size %d exceeds 32", nbits)
	}
	if end := (off + nbits + 7) / 8; st[2] < end {
		return v.memberErr(sid, st, m, mi, "Member exceeds struct_size", "%d bits at bit offset %d exceed %s size %d", nbits, off, st.Kind(), st[2])
	}
	return nil
}

// checkFloatMember checks a FLOAT member: aligned to its size (at most 8)
// and within the container.
func (v *validator) checkFloatMember(sid TypeID, st Type, m Member, mi int, size uint32) error {
	align := min(size, kernelPtrSize) * 8
	if m.Offset%align != 0 {
		return v.memberErr(sid, st, m, mi, "Member is not properly aligned", "bit offset %d is not a multiple of %d", m.Offset, align)
	}
	if uint64(m.Offset/8)+uint64(size) > uint64(st[2]) {
		return v.memberErr(sid, st, m, mi, "Member exceeds struct_size", "%d bytes at byte offset %d exceed %s size %d", size, m.Offset/8, st.Kind(), st[2])
	}
	return nil
}
