package testutil

import (
	"encoding/binary"
	"slices"
)

// BPFObject returns a minimal little-endian ELF64 relocatable file for
// machine EM_BPF holding the given sections (name to contents, written in
// name order after the ELF header), with PROGBITS sections and a section
// name table, as BPF objects carry .BTF and .BTF.ext.
func BPFObject(sections map[string][]byte) []byte {
	le := binary.LittleEndian
	names := make([]string, 0, len(sections))
	for n := range sections {
		names = append(names, n)
	}
	slices.Sort(names)
	shstrtab := []byte{0}
	nameOff := map[string]uint32{}
	for _, n := range append(names, ".shstrtab") {
		nameOff[n] = uint32(len(shstrtab))
		shstrtab = append(append(shstrtab, n...), 0)
	}
	out := make([]byte, 64)
	type sec struct {
		name      string
		typ       uint32
		off, size uint64
	}
	var secs []sec
	for _, n := range names {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		secs = append(secs, sec{n, 1, uint64(len(out)), uint64(len(sections[n]))})
		out = append(out, sections[n]...)
	}
	secs = append(secs, sec{".shstrtab", 3, uint64(len(out)), uint64(len(shstrtab))})
	out = append(out, shstrtab...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	out = append(out, make([]byte, 64*(len(secs)+1))...)
	for i, s := range secs {
		h := out[shoff+64*(i+1):]
		le.PutUint32(h[0:], nameOff[s.name])
		le.PutUint32(h[4:], s.typ)
		le.PutUint64(h[24:], s.off)
		le.PutUint64(h[32:], s.size)
		le.PutUint64(h[48:], 1)
	}
	copy(out, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1})
	le.PutUint16(out[16:], 1)   // ET_REL
	le.PutUint16(out[18:], 247) // EM_BPF
	le.PutUint32(out[20:], 1)
	le.PutUint64(out[40:], uint64(shoff))
	le.PutUint16(out[52:], 64)
	le.PutUint16(out[58:], 64)
	le.PutUint16(out[60:], uint16(len(secs)+1))
	le.PutUint16(out[62:], uint16(len(secs)))
	return out
}

// CoreReloRecord is one CO-RE relocation record of BTFExt.
type CoreReloRecord struct {
	InsnOff, TypeID, AccessStrOff, Kind uint32
}

// BTFExt returns a little-endian .BTF.ext section with empty func_info and
// line_info and one CO-RE relocation subsection holding, for each program
// section name offset in secs (in order), its records.
func BTFExt(secs []uint32, recs [][]CoreReloRecord) []byte {
	le := binary.LittleEndian
	var core []byte
	core = le.AppendUint32(core, 16)
	for i, name := range secs {
		core = le.AppendUint32(core, name)
		core = le.AppendUint32(core, uint32(len(recs[i])))
		for _, r := range recs[i] {
			core = le.AppendUint32(core, r.InsnOff)
			core = le.AppendUint32(core, r.TypeID)
			core = le.AppendUint32(core, r.AccessStrOff)
			core = le.AppendUint32(core, r.Kind)
		}
	}
	hdr := []byte{0x9f, 0xeb, 1, 0}
	hdr = le.AppendUint32(hdr, 32)
	for _, w := range []uint32{0, 0, 0, 0, 0, uint32(len(core))} {
		hdr = le.AppendUint32(hdr, w)
	}
	return append(hdr, core...)
}
