// Package btfext reads the .BTF.ext section of BPF objects: its header, the
// framing of its func_info and line_info subsections, and its CO-RE
// relocation records, which name a local BTF type, an access string and a
// relocation kind for an instruction. It checks what libbpf's btf_ext__new
// checks, so an object it accepts is one libbpf accepts, and reports every
// problem with its byte offset in the section.
package btfext

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Magic is the .BTF.ext magic, the same as BTF's, read in the host's byte order.
const Magic = 0xeb9f

// Header sizes: the part every .BTF.ext has (through line_info_len), and the
// longer one that also locates the CO-RE relocations.
const (
	minHeaderLen  = 24
	coreHeaderLen = 32
)

// Minimum record sizes of the three subsections (struct bpf_func_info_min,
// bpf_line_info_min, bpf_core_relo). A record may be longer (newer
// compilers may append fields); readers use its first bytes.
const (
	funcInfoMinSize  = 8
	lineInfoMinSize  = 16
	coreReloMinSize  = 16
	infoSecHeaderLen = 8 // struct btf_ext_info_sec: sec_name_off, num_info
)

// FormatError reports a malformed .BTF.ext: Offset is the byte offset in
// the section where the problem is.
type FormatError struct {
	Offset int
	Msg    string
}

func (e *FormatError) Error() string { return fmt.Sprintf("offset %#x: %s", e.Offset, e.Msg) }

func formatErr(off int, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// ErrForeignByteOrder is wrapped by Parse's error for a .BTF.ext written in
// the other byte order than the host's: libbpf refuses those too.
var ErrForeignByteOrder = errors.New(".BTF.ext in the other byte order than the host's is not supported")

// Ext is a parsed .BTF.ext section.
type Ext struct {
	// Relocs holds the CO-RE relocation records, one entry per program
	// section, in the order of the section; nil when there are none.
	Relocs []RelocSection
}

// RelocSection is the CO-RE relocation records of one ELF section of
// instructions.
type RelocSection struct {
	// NameOff is the offset of the section's name in the object's BTF
	// string table.
	NameOff uint32
	// Offset is the byte offset of the section's header in .BTF.ext.
	Offset int
	Relocs []Reloc
}

// Reloc is one CO-RE relocation record (struct bpf_core_relo).
type Reloc struct {
	InsnOff      uint32    // byte offset of the instruction in its section
	TypeID       uint32    // local BTF type the access starts from
	AccessStrOff uint32    // offset of the access string in the BTF string table
	Kind         RelocKind // what is relocated
	// Offset is the record's byte offset in .BTF.ext, for messages.
	Offset int
}

// hostOrder is the byte order of the machine: .BTF.ext is read in it.
var hostOrder binary.ByteOrder = binary.NativeEndian

// Parse decodes a .BTF.ext section. It applies libbpf's checks: native
// magic, version 1, no flags, a header of at least 24 bytes that the data
// outlives, and for each of func_info, line_info and (with a header of 32
// bytes or more) the CO-RE relocations: 4-byte aligned, inside the section,
// a record size of at least the record's minimum and a multiple of 4, at
// least one program section, each with at least one record and all its
// records inside the subsection. The result does not alias data.
func Parse(data []byte) (*Ext, error) {
	if len(data) < 8 {
		return nil, formatErr(0, "header truncated: %d bytes", len(data))
	}
	magic := hostOrder.Uint16(data)
	if magic != Magic {
		if binary.LittleEndian.Uint16(data) == Magic || binary.BigEndian.Uint16(data) == Magic {
			return nil, &FormatError{Offset: 0, Msg: ErrForeignByteOrder.Error()}
		}
		return nil, formatErr(0, "bad magic %#04x", magic)
	}
	if data[2] != 1 {
		return nil, formatErr(2, "unsupported version %d", data[2])
	}
	if data[3] != 0 {
		return nil, formatErr(3, "unsupported flags %#x", data[3])
	}
	hdrLen := hostOrder.Uint32(data[4:])
	if uint64(hdrLen) > uint64(len(data)) {
		return nil, formatErr(4, "hdr_len %d exceeds the section's %d bytes", hdrLen, len(data))
	}
	if int(hdrLen) == len(data) {
		return nil, formatErr(4, "no data after the %d-byte header", hdrLen)
	}
	if hdrLen < minHeaderLen {
		return nil, formatErr(4, "hdr_len %d is shorter than %d", hdrLen, minHeaderLen)
	}
	word := func(i int) uint32 { return hostOrder.Uint32(data[8+4*i:]) }
	if _, err := checkInfo(data, hdrLen, 8, word(0), word(1), funcInfoMinSize, "func_info"); err != nil {
		return nil, err
	}
	if _, err := checkInfo(data, hdrLen, 16, word(2), word(3), lineInfoMinSize, "line_info"); err != nil {
		return nil, err
	}
	ext := &Ext{}
	if hdrLen < coreHeaderLen {
		return ext, nil
	}
	secs, err := checkInfo(data, hdrLen, 24, word(4), word(5), coreReloMinSize, "core_relo")
	if err != nil {
		return nil, err
	}
	for _, s := range secs {
		rs := RelocSection{NameOff: s.nameOff, Offset: s.off, Relocs: make([]Reloc, s.n)}
		for i := range rs.Relocs {
			at := s.off + infoSecHeaderLen + i*int(s.recSize)
			r := data[at:]
			rs.Relocs[i] = Reloc{
				InsnOff:      hostOrder.Uint32(r),
				TypeID:       hostOrder.Uint32(r[4:]),
				AccessStrOff: hostOrder.Uint32(r[8:]),
				Kind:         RelocKind(hostOrder.Uint32(r[12:])),
				Offset:       at,
			}
		}
		ext.Relocs = append(ext.Relocs, rs)
	}
	return ext, nil
}

// infoSec locates one program section's records inside a subsection.
type infoSec struct {
	off     int // of the section header in .BTF.ext
	nameOff uint32
	n       int
	recSize uint32
}

// checkInfo checks the framing of one subsection (off and size relative to
// the end of the header, read from the header at fieldAt) as libbpf's
// btf_ext_setup_info does, and returns its program sections. An empty
// subsection has none.
func checkInfo(data []byte, hdrLen uint32, fieldAt int, off, size, minRec uint32, what string) ([]infoSec, error) {
	if size == 0 {
		return nil, nil
	}
	if off%4 != 0 {
		return nil, formatErr(fieldAt, "%s offset %d is not 4-byte aligned", what, off)
	}
	start := uint64(hdrLen) + uint64(off)
	end := start + uint64(size)
	if end > uint64(len(data)) {
		return nil, formatErr(fieldAt, "%s [%d, +%d) runs past the section's %d bytes", what, start, size, len(data))
	}
	at := int(start)
	if size < 4 {
		return nil, formatErr(at, "%s has no record size", what)
	}
	recSize := hostOrder.Uint32(data[at:])
	if recSize < minRec || recSize%4 != 0 {
		return nil, formatErr(at, "%s record size %d is invalid (at least %d, a multiple of 4)", what, recSize, minRec)
	}
	left := uint64(size) - 4
	at += 4
	if left == 0 {
		return nil, formatErr(at, "%s has no records", what)
	}
	var secs []infoSec
	for left > 0 {
		if left < infoSecHeaderLen {
			return nil, formatErr(at, "%s section header truncated: %d bytes", what, left)
		}
		nameOff := hostOrder.Uint32(data[at:])
		n := hostOrder.Uint32(data[at+4:])
		if n == 0 {
			return nil, formatErr(at+4, "%s section has no records", what)
		}
		total := infoSecHeaderLen + uint64(n)*uint64(recSize)
		if total > left {
			return nil, formatErr(at+4, "%s section of %d records of %d bytes runs past the subsection (%d bytes left)", what, n, recSize, left)
		}
		secs = append(secs, infoSec{off: at, nameOff: nameOff, n: int(n), recSize: recSize})
		left -= total
		at += int(total)
	}
	return secs, nil
}

// NumRelocs returns the number of CO-RE relocation records.
func (e *Ext) NumRelocs() int {
	n := 0
	for _, s := range e.Relocs {
		n += len(s.Relocs)
	}
	return n
}
