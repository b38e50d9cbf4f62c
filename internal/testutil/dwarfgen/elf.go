package dwarfgen

import "encoding/binary"

// Section is one section of a file built by RelocatableELF.
type Section struct {
	Name string
	Data []byte
}

// RelocatableELF returns a little-endian x86-64 ET_REL file holding the
// given sections (as PROGBITS) and a section name table; the section header
// table comes last, as compilers place it.
func RelocatableELF(secs ...Section) []byte {
	le := binary.LittleEndian
	shstr := []byte{0}
	nameOff := make([]int, len(secs)+1)
	for i, s := range secs {
		nameOff[i] = len(shstr)
		shstr = append(append(shstr, s.Name...), 0)
	}
	nameOff[len(secs)] = len(shstr)
	shstr = append(shstr, ".shstrtab\x00"...)
	all := append(append([]Section{}, secs...), Section{".shstrtab", shstr})

	out := make([]byte, 64)
	offs := make([]int, len(all))
	for i, s := range all {
		offs[i] = len(out)
		out = append(out, s.Data...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	out = append(out, make([]byte, 64)...) // section 0
	for i, s := range all {
		typ := uint32(1) // SHT_PROGBITS
		if i == len(all)-1 {
			typ = 3 // SHT_STRTAB
		}
		h := le.AppendUint32(nil, uint32(nameOff[i]))
		h = le.AppendUint32(h, typ)
		h = le.AppendUint64(h, 0) // flags
		h = le.AppendUint64(h, 0) // addr
		h = le.AppendUint64(h, uint64(offs[i]))
		h = le.AppendUint64(h, uint64(len(s.Data)))
		h = le.AppendUint32(h, 0)
		h = le.AppendUint32(h, 0)
		h = le.AppendUint64(h, 1)
		h = le.AppendUint64(h, 0)
		out = append(out, h...)
	}
	copy(out, "\x7fELF\x02\x01\x01")
	le.PutUint16(out[16:], 1)  // ET_REL
	le.PutUint16(out[18:], 62) // EM_X86_64
	le.PutUint32(out[20:], 1)  // EV_CURRENT
	le.PutUint64(out[40:], uint64(shoff))
	le.PutUint16(out[52:], 64) // e_ehsize
	le.PutUint16(out[58:], 64) // e_shentsize
	le.PutUint16(out[60:], uint16(len(all)+1))
	le.PutUint16(out[62:], uint16(len(all)))
	return out
}
