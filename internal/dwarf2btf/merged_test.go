package dwarf2btf

import (
	"encoding/binary"
	"testing"
)

// note builds one ELF note: name (NUL added), type and descriptor, each part
// padded to 4 bytes, in byte order o.
func note(o binary.AppendByteOrder, name string, typ uint32, desc []byte) []byte {
	pad := func(b []byte) []byte { return append(b, make([]byte, (4-len(b)%4)%4)...) }
	b := o.AppendUint32(nil, uint32(len(name)+1))
	b = o.AppendUint32(b, uint32(len(desc)))
	b = o.AppendUint32(b, typ)
	b = append(b, pad(append([]byte(name), 0))...)
	return append(b, pad(desc)...)
}

// TestFindNote checks the note walk that finds the kernel's LTO note, as
// the kernel lays it out (include/linux/elfnote-lto.h: owner "Linux", type
// 0x101, a 32-bit flag), among other notes and in malformed sections.
func TestFindNote(t *testing.T) {
	var le, be binary.AppendByteOrder = binary.LittleEndian, binary.BigEndian
	one := []byte{1, 0, 0, 0}
	zero := []byte{0, 0, 0, 0}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		sec   []byte
		order binary.AppendByteOrder
		found bool
		lto   bool
	}{
		{"lto on", note(le, "Linux", ltoInfoNote, one), le, true, true},
		{"lto off", note(le, "Linux", ltoInfoNote, zero), le, true, false},
		{"big-endian", note(be, "Linux", ltoInfoNote, []byte{0, 0, 0, 1}), be, true, true},
		{"after other notes", cat(note(le, "GNU", 3, make([]byte, 20)), note(le, "Linux", 6, []byte("x")), note(le, "Linux", ltoInfoNote, one)), le, true, true},
		{"first one wins", cat(note(le, "Linux", ltoInfoNote, zero), note(le, "Linux", ltoInfoNote, one)), le, true, false},
		{"other owner", note(le, "Xen", ltoInfoNote, one), le, false, false},
		{"owner prefix only", note(le, "Linu", ltoInfoNote, one), le, false, false},
		{"other type", note(le, "Linux", 0x100, one), le, false, false},
		{"empty section", nil, le, false, false},
		{"truncated header", note(le, "Linux", ltoInfoNote, one)[:10], le, false, false},
		{"name beyond the end", note(le, "Linux", ltoInfoNote, one)[:14], le, false, false},
		{"descriptor beyond the end", note(le, "Linux", ltoInfoNote, one)[:22], le, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desc, found := findNote(tc.sec, tc.order.(binary.ByteOrder), "Linux", ltoInfoNote)
			if found != tc.found {
				t.Fatalf("found %v, want %v", found, tc.found)
			}
			if found {
				if lto := len(desc) >= 4 && binary.LittleEndian.Uint32(desc) != 0; lto != tc.lto {
					t.Errorf("lto %v, want %v", lto, tc.lto)
				}
			}
		})
	}
}
