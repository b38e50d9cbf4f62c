package die

import (
	"bytes"
	stddwarf "debug/dwarf"
	"debug/elf"
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// loadSections reads the DWARF sections of an ELF file with debug/elf. The
// bytes are not relocated, which is right for linked files only.
func loadSections(t testing.TB, path string) (*elf.File, *Sections) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	get := func(name string) []byte {
		s := f.Section(name)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			t.Fatalf("reading %s of %s: %v", name, path, err)
		}
		return b
	}
	return f, &Sections{
		Info: get(".debug_info"), Abbrev: get(".debug_abbrev"), Str: get(".debug_str"),
		LineStr: get(".debug_line_str"), StrOffsets: get(".debug_str_offsets"), Addr: get(".debug_addr"),
		RngLists: get(".debug_rnglists"), LocLists: get(".debug_loclists"), Loc: get(".debug_loc"),
		Ranges: get(".debug_ranges"), Types: get(".debug_types"), Order: f.ByteOrder,
	}
}

// compareOptions says how much of each value compareWithStd checks.
type compareOptions struct {
	maxUnits   int  // 0: all
	structOnly bool // only offsets, tags, children and attribute names (unrelocated ET_REL files)
}

// compareWithStd walks every unit of d with a Reader and debug/dwarf's
// Reader side by side and fails on the first difference in a DIE's offset,
// tag, children flag or any attribute's name or value. It returns the
// number of DIEs compared.
func compareWithStd(t *testing.T, d *Data, std *stddwarf.Data, sec *Sections, opt compareOptions) int {
	t.Helper()
	sr := std.Reader()
	r := d.NewReader()
	var e Entry
	n := 0
	for ui := range d.Units() {
		if opt.maxUnits > 0 && ui >= opt.maxUnits {
			break
		}
		u := &d.Units()[ui]
		r.Seek(u)
		sr.Seek(stddwarf.Offset(u.DIEOffset))
		for {
			ok, err := r.Next(&e)
			if err != nil {
				t.Fatalf("unit %#x: %v", u.Offset, err)
			}
			var se *stddwarf.Entry
			for {
				if se, err = sr.Next(); err != nil {
					t.Fatalf("debug/dwarf at unit %#x: %v", u.Offset, err)
				}
				if se == nil || se.Tag != 0 {
					break
				}
			}
			if !ok {
				if se != nil && uint64(se.Offset) < u.End {
					t.Fatalf("unit %#x: walk ended but debug/dwarf has a DIE at %#x", u.Offset, se.Offset)
				}
				break
			}
			if se == nil {
				t.Fatalf("unit %#x: debug/dwarf ended before the DIE at %#x", u.Offset, e.Offset)
			}
			if msg := diffEntry(&e, se, sec, opt.structOnly); msg != "" {
				t.Fatalf("DIE at %#x (tag %#x): %s", e.Offset, e.Tag, msg)
			}
			n++
		}
	}
	return n
}

// diffEntry describes how e differs from debug/dwarf's se, or returns "".
func diffEntry(e *Entry, se *stddwarf.Entry, sec *Sections, structOnly bool) string {
	if uint64(se.Offset) != e.Offset || se.Tag != e.Tag || se.Children != e.Children {
		return fmt.Sprintf("got offset %#x tag %#x children %v, debug/dwarf %#x %#x %v",
			e.Offset, e.Tag, e.Children, se.Offset, se.Tag, se.Children)
	}
	if len(se.Field) != len(e.Fields) {
		return fmt.Sprintf("got %d attributes, debug/dwarf %d", len(e.Fields), len(se.Field))
	}
	for i, sf := range se.Field {
		f := &e.Fields[i]
		if sf.Attr != f.Attr {
			return fmt.Sprintf("attribute %d: got %#x, debug/dwarf %#x", i, f.Attr, sf.Attr)
		}
		if structOnly {
			continue
		}
		if msg := diffValue(f, sf.Val, e.Unit, sec); msg != "" {
			return fmt.Sprintf("attribute %#x form %#x: %s", f.Attr, f.Form, msg)
		}
	}
	return ""
}

func diffValue(f *Field, want any, u *Unit, sec *Sections) string {
	ok := true
	switch w := want.(type) {
	case int64:
		ok = int64(f.Val) == w
	case uint64:
		if f.Form == dwarf.FormLoclistx {
			// debug/dwarf leaves the index; look up the offset table.
			off, found := entryAt(sec.LocLists, u.LocListsBase, w, int(u.OffsetSize), u.d.le)
			ok = found && f.Val == u.LocListsBase+off
		} else {
			ok = f.Val == w
		}
	case stddwarf.Offset:
		ok = f.Val == uint64(w)
	case string:
		ok = f.Str() == w
	case []byte:
		ok = bytes.Equal(f.Data, w) && (f.Form == dwarf.FormData16 || f.Val == uint64(len(w)))
	case bool:
		ok = (f.Val == 1) == w
	default:
		return fmt.Sprintf("debug/dwarf value %v of type %T not compared", want, want)
	}
	if !ok {
		return fmt.Sprintf("got Val %#x Data %q, debug/dwarf %#v", f.Val, f.Data, want)
	}
	return ""
}
