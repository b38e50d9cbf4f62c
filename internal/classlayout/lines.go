package classlayout

import (
	"encoding/binary"
	"errors"
)

// errLineTable reports a .debug_line header gobtf cannot read.
var errLineTable = errors.New("truncated or unsupported .debug_line header")

// lineFiles returns the file names of the line table at off in .debug_line
// (line), as libdw's dwarf_decl_file gives them: a relative name joined to
// its directory, and, before DWARF 5, index 0 unused and directory 0 the
// unit's compilation directory. lineStr and str resolve the string forms.
func lineFiles(line, lineStr, str []byte, off uint64, compDir string, order binary.ByteOrder) ([]string, error) {
	r := &lineReader{b: line, p: int(off), order: order}
	if off >= uint64(len(line)) {
		return nil, errLineTable
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
		return nil, errLineTable
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
			return nil, errLineTable
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
		return nil, errLineTable
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
	var v uint64
	for shift := 0; !r.bad; shift += 7 {
		c := r.u8()
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c < 0x80 {
			break
		}
	}
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
	type pair struct{ content, form uint64 }
	formats := make([]pair, 0, n)
	for range n {
		formats = append(formats, pair{r.uleb(), r.uleb()})
	}
	count := r.uleb()
	var out []lineEntry
	for i := uint64(0); i < count && !r.bad; i++ {
		var e lineEntry
		for _, fm := range formats {
			s, v := f.value(fm.form)
			switch fm.content {
			case 1: // DW_LNCT_path
				e.name = s
			case 2: // DW_LNCT_directory_index
				e.dir = v
			}
		}
		out = append(out, e)
	}
	return out
}

// value reads one attribute value of the given form.
func (f *formReader) value(form uint64) (string, uint64) {
	r := f.r
	off := func() uint64 {
		if f.offSize == 8 {
			return r.u64()
		}
		return uint64(r.u32())
	}
	switch form {
	case 0x08: // string
		return r.cstr(), 0
	case 0x1f: // line_strp
		return strAt(f.lineStr, off()), 0
	case 0x0e: // strp
		return strAt(f.str, off()), 0
	case 0x0b: // data1
		return "", uint64(r.u8())
	case 0x05: // data2
		return "", uint64(r.u16())
	case 0x06: // data4
		return "", uint64(r.u32())
	case 0x07: // data8
		return "", r.u64()
	case 0x0f: // udata
		return "", r.uleb()
	case 0x1e: // data16
		r.take(16)
		return "", 0
	case 0x09: // block
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
