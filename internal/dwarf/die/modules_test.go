package die

import (
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// relocateX86 applies the RELA relocations of an x86-64 ET_REL file to the
// section called name, whose contents are b, as a linker would with every
// section at address 0: R_X86_64_64 and R_X86_64_32 store symbol value plus
// addend. It is a test-only stand-in for the ELF reader's relocation step
// (debug/elf applies the same two types inside File.DWARF).
func relocateX86(t testing.TB, f *elf.File, name string, b []byte) {
	t.Helper()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("symbols: %v", err)
	}
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || int(rs.Info) >= len(f.Sections) || f.Sections[rs.Info].Name != name {
			continue
		}
		data, err := rs.Data()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+24 <= len(data); i += 24 {
			off := binary.LittleEndian.Uint64(data[i:])
			info := binary.LittleEndian.Uint64(data[i+8:])
			add := int64(binary.LittleEndian.Uint64(data[i+16:]))
			si := int(info >> 32)
			if si == 0 || si > len(syms) {
				continue
			}
			v := uint64(int64(syms[si-1].Value) + add)
			switch elf.R_X86_64(info & 0xffffffff) {
			case elf.R_X86_64_64:
				if off+8 <= uint64(len(b)) {
					binary.LittleEndian.PutUint64(b[off:], v)
				}
			case elf.R_X86_64_32:
				if off+4 <= uint64(len(b)) {
					binary.LittleEndian.PutUint32(b[off:], uint32(v))
				}
			}
		}
	}
}

// TestModules decodes the shared kernel modules (relocatable files) after
// applying their relocations, and compares every DIE and attribute value
// with debug/dwarf, which relocates the same way. The larger modules are
// skipped in -short mode.
func TestModules(t *testing.T) {
	for _, name := range testutil.ModuleNames {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != "nls_utf8" && name != "tcp_bbr" {
				t.Skip("skipping: large module in -short mode")
			}
			path := testutil.Corpus(t, "modules/"+name+".ko")
			f, sec := loadSections(t, path)
			if f.Type != elf.ET_REL || f.Machine != elf.EM_X86_64 {
				t.Fatalf("%s: type %v machine %v, want an x86-64 ET_REL file", path, f.Type, f.Machine)
			}
			for _, s := range []struct {
				name string
				b    []byte
			}{
				{".debug_info", sec.Info}, {".debug_str_offsets", sec.StrOffsets}, {".debug_addr", sec.Addr},
				{".debug_rnglists", sec.RngLists}, {".debug_loclists", sec.LocLists},
			} {
				relocateX86(t, f, s.name, s.b)
			}
			d, err := New(sec)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			std, err := f.DWARF()
			if err != nil {
				t.Fatalf("debug/dwarf: %v", err)
			}
			n := compareWithStd(t, d, std, sec, compareOptions{})
			t.Logf("%d units, %d DIEs identical to debug/dwarf", len(d.Units()), n)
			checkSkipChildren(t, d, 0)
		})
	}
}
