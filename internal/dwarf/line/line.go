// Package line reads the file names of DWARF line tables (.debug_line,
// DWARF 2 to 5), which DW_AT_decl_file indexes. It reads the table's
// header only, never its line program; what it cannot read is an error,
// and it never reads past its input.
package line

import (
	"encoding/binary"
	"errors"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// ErrHeader reports a .debug_line header that is truncated, or of a form
// this package does not read.
var ErrHeader = errors.New("truncated or unsupported .debug_line header")

// Files returns the file names of the line table at off in .debug_line
// (line), as libdw's dwarf_decl_file gives them: a relative name joined to
// its directory, and, before DWARF 5, index 0 unused and directory 0 the
// unit's compilation directory. lineStr and str (.debug_line_str and
// .debug_str) resolve the string forms.
func Files(line, lineStr, str []byte, off uint64, compDir string, order binary.ByteOrder) ([]string, error) {
	r := &lineReader{b: line, p: int(off), order: order}
	if off >= uint64(len(line)) {
		return nil, ErrHeader
	}
	length := uint64(r.u32())
	offSize := 4
	if length == 0xffffffff {
		length, offSize = r.u64(), 8
	}
	version := r.u16()
	if version >= 5 {
		r.p += 2 // address_size, segment_selector_size
	}
	r.p += offSize // header_length
	r.p += 3       // minimum_instruction_length, default_is_stmt, line_base
	if version >= 4 {
		r.p++ // maximum_operations_per_instruction
	}
	r.p++ // line_range
	opcodeBase := int(r.u8())
	r.p += opcodeBase - 1
	if r.bad {
		return nil, ErrHeader
	}
	if version < 5 {
		dirs := []string{compDir}
		for !r.bad {
			s := r.cstr()
			if s == "" {
				break
			}
			dirs = append(dirs, s)
		}
		files := []string{""}
		for !r.bad {
			name := r.cstr()
			if name == "" {
				break
			}
			dir := r.uleb()
			r.uleb()
			r.uleb()
			files = append(files, joinDir(dirs, dir, name))
		}
		if r.bad {
			return nil, ErrHeader
		}
		return files, nil
	}
	rs := &formReader{r: r, lineStr: lineStr, str: str, offSize: offSize}
	dirs := rs.entries()
	var dirNames []string
	for _, d := range dirs {
		dirNames = append(dirNames, d.name)
	}
	var files []string
	for _, f := range rs.entries() {
		files = append(files, joinDir(dirNames, f.dir, f.name))
	}
	if r.bad {
		return nil, ErrHeader
	}
	return files, nil
}

func joinDir(dirs []string, dir uint64, name string) string {
	if len(name) > 0 && name[0] == '/' || dir >= uint64(len(dirs)) || dirs[dir] == "" {
		return name
	}
	return dirs[dir] + "/" + name
}

type lineReader struct {
	b     []byte
	p     int
	order binary.ByteOrder
	bad   bool
}

func (r *lineReader) take(n int) []byte {
	if r.bad || n < 0 || r.p+n > len(r.b) || r.p+n < r.p {
		r.bad = true
		return make([]byte, max(n, 8))
	}
	b := r.b[r.p : r.p+n]
	r.p += n
	return b
}

func (r *lineReader) u8() uint8   { return r.take(1)[0] }
func (r *lineReader) u16() uint16 { return r.order.Uint16(r.take(2)) }
func (r *lineReader) u32() uint32 { return r.order.Uint32(r.take(4)) }
func (r *lineReader) u64() uint64 { return r.order.Uint64(r.take(8)) }

func (r *lineReader) uleb() uint64 {
	if r.bad {
		return 0
	}
	v, p, ok := leb128.Uint(r.b, r.p)
	if !ok {
		r.bad = true
		return 0
	}
	r.p = p
	return v
}

func (r *lineReader) cstr() string {
	for i := r.p; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.p:i])
			r.p = i + 1
			return s
		}
	}
	r.bad = true
	return ""
}

// formReader reads DWARF 5's directory and file entry lists.
type formReader struct {
	r            *lineReader
	lineStr, str []byte
	offSize      int
}

type lineEntry struct {
	name string
	dir  uint64
}

func (f *formReader) entries() []lineEntry {
	r := f.r
	n := int(r.u8())
	type pair struct {
		content dwarf.LNCT
		form    dwarf.Form
	}
	formats := make([]pair, 0, n)
	for range n {
		formats = append(formats, pair{dwarf.LNCT(r.uleb()), dwarf.Form(r.uleb())})
	}
	count := r.uleb()
	var out []lineEntry
	for i := uint64(0); i < count && !r.bad; i++ {
		var e lineEntry
		for _, fm := range formats {
			s, v := f.value(fm.form)
			switch fm.content {
			case dwarf.LNCTPath:
				e.name = s
			case dwarf.LNCTDirectoryIndex:
				e.dir = v
			}
		}
		out = append(out, e)
	}
	return out
}

// value reads one attribute value of the given form.
func (f *formReader) value(form dwarf.Form) (string, uint64) {
	r := f.r
	off := func() uint64 {
		if f.offSize == 8 {
			return r.u64()
		}
		return uint64(r.u32())
	}
	switch form {
	case dwarf.FormString:
		return r.cstr(), 0
	case dwarf.FormLineStrp:
		return strAt(f.lineStr, off()), 0
	case dwarf.FormStrp:
		return strAt(f.str, off()), 0
	case dwarf.FormData1:
		return "", uint64(r.u8())
	case dwarf.FormData2:
		return "", uint64(r.u16())
	case dwarf.FormData4:
		return "", uint64(r.u32())
	case dwarf.FormData8:
		return "", r.u64()
	case dwarf.FormUdata:
		return "", r.uleb()
	case dwarf.FormData16:
		r.take(16)
		return "", 0
	case dwarf.FormBlock:
		r.take(int(r.uleb()))
		return "", 0
	}
	r.bad = true
	return "", 0
}

func strAt(sec []byte, off uint64) string {
	if off >= uint64(len(sec)) {
		return ""
	}
	for i := off; i < uint64(len(sec)); i++ {
		if sec[i] == 0 {
			return string(sec[off:i])
		}
	}
	return ""
}
