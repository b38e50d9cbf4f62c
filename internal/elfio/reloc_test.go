package elfio

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestDWARFSectionsMatchReadelf compares every debug section DWARFSections
// returns with readelf's relocated, decompressed dump of it (readelf -z -R),
// which applies relocations to ET_REL files only, as we must.
func TestDWARFSectionsMatchReadelf(t *testing.T) {
	eachInput(t, false, func(t *testing.T, in inputFile, f *File) {
		d, err := f.DWARFSections()
		if err != nil {
			t.Fatal(err)
		}
		// Ask for every piece by index; same-named pieces are joined.
		var names, asked []string
		for _, name := range DebugSectionNames {
			if s := f.DebugSection(name); s != nil && s.Size > 0 {
				names = append(names, name)
				for _, x := range f.Sections() {
					if x.Name == s.Name {
						asked = append(asked, strconv.Itoa(x.Index))
					}
				}
			}
		}
		if len(names) == 0 || d.Info == nil {
			t.Fatal("no debug sections found")
		}
		dumps := byName(readelfDumps(t, in.path, "-R", asked))
		relocated := 0
		for _, name := range names {
			want, ok := dumps[f.DebugSection(name).Name]
			if !ok {
				t.Errorf("readelf dumped no section %s", name)
				continue
			}
			got := d.ByName(name)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes differ from readelf's %d at offset %#x", name, len(got), len(want), firstDiff(got, want))
			}
			var raw []byte
			for _, x := range f.Sections() {
				if x.Name == f.DebugSection(name).Name {
					b, _ := f.SectionData(&x)
					raw = append(raw, b...)
				}
			}
			if !bytes.Equal(raw, got) {
				relocated++
			}
		}
		hasRela := false
		for _, x := range f.Sections() {
			hasRela = hasRela || x.Type == elf.SHT_RELA && strings.Contains(x.Name, "debug")
		}
		switch {
		case f.Type == elf.ET_REL && hasRela && relocated == 0:
			// (REL relocations against section symbols, whose value is
			// 0, legitimately leave the bytes as they are.)
			t.Errorf("ET_REL file, yet no debug section changed by relocation")
		case f.Type != elf.ET_REL && relocated != 0:
			t.Errorf("%v file: %d debug sections changed by relocation", f.Type, relocated)
		}
	})
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestDWARFEntriesMatchDebugELF decodes every DWARF entry from our
// sections and from debug/elf's (which relocates ET_REL files for most
// machines) and compares them. RISC-V is left out: debug/elf ignores its
// ADD/SUB relocations, which readelf's comparison above covers.
func TestDWARFEntriesMatchDebugELF(t *testing.T) {
	eachInput(t, false, func(t *testing.T, in inputFile, f *File) {
		if f.Machine == elf.EM_RISCV {
			t.Skip("skipping: debug/elf does not apply RISC-V ADD/SUB relocations")
		}
		ef := stdELF(t, in.path)
		want, err := ef.DWARF()
		if err != nil {
			t.Fatalf("debug/elf: %v", err)
		}
		d, err := f.DWARFSections()
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.dwarfData()
		if err != nil {
			t.Fatal(err)
		}
		gr, wr := got.Reader(), want.Reader()
		n := 0
		for {
			ge, gerr := gr.Next()
			we, werr := wr.Next()
			if n == 0 && werr != nil {
				t.Skipf("skipping: debug/elf cannot decode this file's DWARF: %v", werr)
			}
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("entry %d: error %v, debug/elf %v", n, gerr, werr)
			}
			if gerr != nil || ge == nil || we == nil {
				if (ge == nil) != (we == nil) {
					t.Fatalf("entry %d: end of entries differs", n)
				}
				break
			}
			if !reflect.DeepEqual(ge, we) {
				t.Fatalf("entry %d:\n got %+v\nwant %+v", n, ge, we)
			}
			n++
		}
		if n < 10 {
			t.Errorf("only %d entries compared", n)
		}
	})
}

// dwarfData builds a debug/dwarf reader over the sections, the way
// debug/elf's DWARF method does.
func (d *DebugSections) dwarfData() (*dwarf.Data, error) {
	dd, err := dwarf.New(d.Abbrev, nil, nil, d.Info, d.Line, nil, d.Ranges, d.Str)
	if err != nil {
		return nil, err
	}
	for _, x := range []struct {
		name string
		b    []byte
	}{{".debug_addr", d.Addr}, {".debug_line_str", d.LineStr}, {".debug_str_offsets", d.StrOffsets},
		{".debug_rnglists", d.RngLists}, {".debug_loclists", d.LocLists}} {
		if x.b != nil {
			if err := dd.AddSection(x.name, x.b); err != nil {
				return nil, err
			}
		}
	}
	return dd, nil
}

// TestDWARFSectionsLinkedNotRelocated checks that a linked file's leftover
// relocation sections (here from --emit-relocs) are not applied and its
// plain debug sections are slices of the file's memory.
func TestDWARFSectionsLinkedNotRelocated(t *testing.T) {
	var path string
	for _, fx := range buildFixtures(t) {
		if fx.name == "gcc-x86_64-linked-emit-relocs" {
			path = fx.path
		}
	}
	if path == "" {
		t.Skip("skipping: the linked fixture could not be built")
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Section(".rela.debug_info") == nil {
		t.Fatal("the fixture has no .rela.debug_info; the test would prove nothing")
	}
	d, err := f.DWARFSections()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := f.SectionData(f.Section(".debug_info"))
	if len(d.Info) == 0 || &d.Info[0] != &raw[0] {
		t.Errorf(".debug_info of an %v file is not the unrelocated file bytes", f.Type)
	}
}

// TestRelocationErrors corrupts relocation entries of an x86-64 object and
// expects errors naming the section, and for a field outside the relocated
// section, the place of the entry that put it there.
func TestRelocationErrors(t *testing.T) {
	good := fixtureBytes(t)
	f, err := NewFile("x.o", good)
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Section(".rela.debug_info")
	if rs == nil {
		t.Fatal("fixture has no .rela.debug_info")
	}
	entry := int(rs.Offset) // first Elf64_Rela: offset, info, addend
	put := func(b []byte, off int, v uint64) []byte {
		c := bytes.Clone(b)
		for i := range 8 {
			c[off+i] = byte(v >> (8 * i))
		}
		return c
	}
	info := leUint64(good[entry+8:])
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"offset beyond section", put(good, entry, 1<<40), "section .debug_info: offset 0x10000000000: relocation R_X86_64_32 of 4 bytes beyond the section's"},
		{"offset beyond section, second entry", put(good, entry+24, 1<<40), "bytes (the entry at offset 0x18 of .rela.debug_info)"},
		{"symbol out of range", put(good, entry+8, 0xffff<<32|info&0xffffffff), "section .rela.debug_info: offset 0x0: relocation symbol 65535 out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := NewFile("x.o", tc.data)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.DWARFSections()
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.o: ") {
				t.Errorf("got %v, want a *FormatError containing %q", err, tc.want)
			}
		})
	}
}

// TestRelocationUnappliedType: a relocation type that is not an address or
// offset (here R_X86_64_GOTPCREL put in place of the first entry of
// .rela.debug_info) is left unapplied, as libdwfl leaves it: the field keeps
// the file's bytes while the other relocations are applied.
func TestRelocationUnappliedType(t *testing.T) {
	good := fixtureBytes(t)
	f, err := NewFile("x.o", good)
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Section(".rela.debug_info")
	if rs == nil {
		t.Fatal("fixture has no .rela.debug_info")
	}
	entry := int(rs.Offset)
	rOff := int(leUint64(good[entry:]))
	info := leUint64(good[entry+8:])
	if elf.R_X86_64(uint32(info)) != elf.R_X86_64_32 {
		t.Fatalf("first relocation is %v, the test expects R_X86_64_32", elf.R_X86_64(uint32(info)))
	}
	want, err := f.DWARFSections()
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint64(bad[entry+8:], info&^0xffffffff|uint64(elf.R_X86_64_GOTPCREL))
	g, err := NewFile("x.o", bad)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.DWARFSections()
	if err != nil {
		t.Fatalf("an unapplicable relocation type in a debug section: %v (libdwfl skips it)", err)
	}
	raw, _ := g.SectionData(g.Section(".debug_info"))
	if !bytes.Equal(got.Info[rOff:rOff+4], raw[rOff:rOff+4]) {
		t.Errorf("field at %#x = % x, want the file's bytes % x", rOff, got.Info[rOff:rOff+4], raw[rOff:rOff+4])
	}
	if !bytes.Equal(got.Info[:rOff], want.Info[:rOff]) || !bytes.Equal(got.Info[rOff+4:], want.Info[rOff+4:]) {
		t.Error("other relocations of .debug_info were not applied as before")
	}
}

// TestApplyULEB: a ULEB128 field under a relocation keeps its length, is
// set or decreased, and an unterminated one is an error naming it.
func TestApplyULEB(t *testing.T) {
	f := &File{name: "t.o"}
	tgt := &Section{Name: ".debug_rnglists"}
	dst := []byte{0xff, 0x80 | 5, 0x80, 0, 0xff}
	if err := f.applyULEB(dst, 1, opSetULEB, 300, tgt); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xff, 0x80 | 44, 0x80 | 2, 0, 0xff}; !bytes.Equal(dst, want) {
		t.Errorf("set: % x, want % x", dst, want)
	}
	if err := f.applyULEB(dst, 1, opSubULEB, 44, tgt); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xff, 0x80, 0x80 | 2, 0, 0xff}; !bytes.Equal(dst, want) {
		t.Errorf("sub: % x, want % x", dst, want)
	}
	if err := f.applyULEB([]byte{0x80, 0x80}, 0, opSetULEB, 1, tgt); err == nil || !strings.Contains(err.Error(), "unterminated") {
		t.Errorf("unterminated field: %v", err)
	}
	if err := f.applyULEB(append(bytes.Repeat([]byte{0x80}, 10), 0), 0, opSetULEB, 1, tgt); err == nil {
		t.Error("an 11-byte field was accepted")
	}
}
