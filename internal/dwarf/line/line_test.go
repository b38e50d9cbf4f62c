package line

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

var le = binary.LittleEndian

// header returns a line table header of the given version, unit length
// and header length filled in, around body (what follows the standard
// opcode lengths).
func header(version uint16, body []byte) []byte {
	var h []byte
	h = le.AppendUint16(h, version)
	if version >= 5 {
		h = append(h, 8, 0) // address_size, segment_selector_size
	}
	h = le.AppendUint32(h, 0) // header_length, not read
	h = append(h, 1, 1, 0xfb)
	if version >= 4 {
		h = append(h, 1)
	}
	h = append(h, 14, 13)                             // line_range, opcode_base
	h = append(h, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1) // standard_opcode_lengths
	h = append(h, body...)
	return append(le.AppendUint32(nil, uint32(len(h))), h...)
}

// TestFilesDWARF4: directory 0 is the compilation directory, file 0 is
// unused, absolute names stand alone.
func TestFilesDWARF4(t *testing.T) {
	body := []byte("include\x00\x00")
	body = append(body, "a.c\x00"...)
	body = append(body, 0, 0, 0)
	body = append(body, "b.h\x00"...)
	body = append(body, 1, 0, 0)
	body = append(body, "/abs/c.h\x00"...)
	body = append(body, 1, 0, 0, 0)
	got, err := Files(header(4, body), nil, nil, 0, "/src", le)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"", "/src/a.c", "include/b.h", "/abs/c.h"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
}

// TestFilesDWARF5 reads entry formats with strings inline and in
// .debug_line_str, and directory indexes.
func TestFilesDWARF5(t *testing.T) {
	lineStr := []byte("/src\x00x.c\x00")
	var body []byte
	body = append(body, 1) // directory formats
	body = leb128.AppendUint(body, uint64(dwarf.LNCTPath))
	body = leb128.AppendUint(body, uint64(dwarf.FormString))
	body = append(body, 2)
	body = append(body, "/src\x00inc\x00"...)
	body = append(body, 2) // file formats
	body = leb128.AppendUint(body, uint64(dwarf.LNCTPath))
	body = leb128.AppendUint(body, uint64(dwarf.FormLineStrp))
	body = leb128.AppendUint(body, uint64(dwarf.LNCTDirectoryIndex))
	body = leb128.AppendUint(body, uint64(dwarf.FormUdata))
	body = append(body, 2)
	body = le.AppendUint32(body, 5) // "x.c"
	body = append(body, 0)
	body = le.AppendUint32(body, 5)
	body = append(body, 1)
	got, err := Files(header(5, body), lineStr, nil, 0, "", le)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/src/x.c", "inc/x.c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	// Cut anywhere, it is an error.
	full := header(5, body)
	for n := range len(full) - 1 {
		if _, err := Files(full[:n], lineStr, nil, 0, "", le); !errors.Is(err, ErrHeader) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
}

// FuzzFiles: any bytes are read or refused, never a panic.
func FuzzFiles(f *testing.F) {
	f.Add(header(4, []byte("d\x00\x00a.c\x00\x01\x00\x00\x00")), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, off uint8) {
		Files(b, b, b, uint64(off), "/", le)
	})
}
