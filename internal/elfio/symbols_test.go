package elfio

import (
	"debug/elf"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSymbolsMatchDebugELF compares every symbol with debug/elf's.
func TestSymbolsMatchDebugELF(t *testing.T) {
	eachInput(t, true, func(t *testing.T, in inputFile, f *File) {
		ef := stdELF(t, in.path)
		want, err := ef.Symbols()
		if err != nil {
			t.Fatalf("debug/elf: %v", err)
		}
		got, err := f.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d symbols, debug/elf has %d", len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.Name != w.Name || g.Value != w.Value || g.Size != w.Size || g.Info != w.Info || g.Other != w.Other ||
				g.Section != uint32(w.Section) || g.Type() != elf.ST_TYPE(w.Info) || g.Bind() != elf.ST_BIND(w.Info) {
				t.Fatalf("symbol %d:\n got %+v\nwant %+v", i+1, g, w)
			}
		}
	})
}

// TestSymbolsMatchReadelf compares names, values, sizes, types, bindings
// and section indexes with readelf -sW for the fixtures and small modules.
func TestSymbolsMatchReadelf(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("skipping: readelf is not installed")
	}
	for _, in := range testInputs(t, false) {
		t.Run(in.name, func(t *testing.T) {
			f, err := Open(in.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(readelf, "-sW", "--sym-base=10", in.path).Output()
			if err != nil {
				t.Fatal(err)
			}
			// "   Num:    Value          Size Type    Bind   Vis      Ndx Name"
			section := false
			n := 0
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "Symbol table '") {
					section = strings.Contains(line, "'.symtab'")
					continue
				}
				// ppc64 adds "[<localentry>: 8]" after the visibility.
				fs := strings.Fields(localEntry.ReplaceAllString(line, ""))
				if !section || len(fs) < 7 || !strings.HasSuffix(fs[0], ":") {
					continue
				}
				num, err := strconv.Atoi(strings.TrimSuffix(fs[0], ":"))
				if err != nil || num == 0 {
					continue
				}
				if num > len(got) {
					t.Fatalf("readelf lists symbol %d, we have %d", num, len(got))
				}
				g := got[num-1]
				name := ""
				if len(fs) > 7 {
					name = fs[7]
				}
				if g.Type() == elf.STT_SECTION && g.Name == "" {
					// readelf shows a section symbol under its section's name.
					if sec := f.SectionByIndex(int(g.Section)); sec != nil && name == sec.Name {
						name = ""
					}
				}
				val, _ := strconv.ParseUint(fs[1], 16, 64)
				size, _ := strconv.ParseUint(fs[2], 0, 64)
				if g.Value != val || g.Size != size || !strings.HasSuffix(g.Type().String(), "_"+fs[3]) ||
					!strings.HasSuffix(g.Bind().String(), "_"+fs[4]) || !sameNdx(g.Section, fs[6]) ||
					!strings.HasPrefix(g.Name, strings.TrimSuffix(name, "[...]")) {
					t.Errorf("symbol %d: got %+v (%v %v), readelf: %q", num, g, g.Type(), g.Bind(), line)
				}
				n++
			}
			if n != len(got) {
				t.Errorf("compared %d of %d symbols", n, len(got))
			}
		})
	}
}

var localEntry = regexp.MustCompile(`\[<[^]]*\]`)

// sameNdx compares a section index with readelf's Ndx column.
func sameNdx(v uint32, ndx string) bool {
	switch ndx {
	case "UND":
		return v == uint32(elf.SHN_UNDEF)
	case "ABS":
		return v == uint32(elf.SHN_ABS)
	case "COM":
		return v == uint32(elf.SHN_COMMON)
	}
	return strconv.FormatUint(uint64(v), 10) == ndx
}

// TestSymbolsErrors checks the errors for files without or with a broken
// symbol table.
func TestSymbolsErrors(t *testing.T) {
	good := fixtureBytes(t)
	f, err := NewFile("x.o", good)
	if err != nil {
		t.Fatal(err)
	}
	st := f.Section(".symtab")
	// Point the first symbol's name past the string table.
	bad := append([]byte(nil), good...)
	off := int(st.Offset) + 24
	bad[off], bad[off+1], bad[off+2], bad[off+3] = 0xff, 0xff, 0xff, 0x0f
	fb, err := NewFile("x.o", bad)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fb.Symbols()
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "x.o: section .symtab: offset 0x18: symbol 1: name offset 0xfffffff beyond") {
		t.Errorf("bad name offset: got %v", err)
	}
	// No symbol table: rename SHT_SYMTAB to SHT_PROGBITS in its header.
	shoff := int(leUint64(good[40:]))
	hdr := shoff + st.Index*64 + 4
	nosym := append([]byte(nil), good...)
	nosym[hdr] = byte(elf.SHT_PROGBITS)
	fn, err := NewFile("x.o", nosym)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fn.Symbols(); !errors.Is(err, ErrNoSymbols) {
		t.Errorf("no symbol table: got %v", err)
	}
}
