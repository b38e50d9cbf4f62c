package die

import (
	"encoding/binary"
	"os/exec"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// richUnit builds a unit using most forms, nested children and a sibling
// reference, for the robustness tests to mutate. It returns .debug_info and
// .debug_abbrev.
func richUnit() ([]byte, []byte) {
	le := binary.LittleEndian
	attrs := append(baseAttrs(),
		hAttr{at: dwarf.AttrName, form: dwarf.FormStrx1, enc: []byte{1}},
		hAttr{at: dwarf.AttrProducer, form: dwarf.FormString, enc: []byte("rich\x00")},
		hAttr{at: 0x3f01, form: dwarf.FormAddrx, enc: uleb128(1)},
		hAttr{at: 0x3f02, form: dwarf.FormRnglistx, enc: uleb128(0)},
		hAttr{at: 0x3f03, form: dwarf.FormLoclistx, enc: uleb128(1)},
		hAttr{at: 0x3f04, form: dwarf.FormStrp, enc: nbytes(le, 4, 7)},
		hAttr{at: 0x3f05, form: dwarf.FormLineStrp, enc: nbytes(le, 4, 1)},
		hAttr{at: 0x3f06, form: dwarf.FormIndirect, enc: []byte{byte(dwarf.FormBlock1), 2, 1, 2}},
		hAttr{at: 0x3f07, form: dwarf.FormImplicitConst, implicit: -3},
		hAttr{at: 0x3f08, form: dwarf.FormData16, enc: make([]byte, 16)},
		hAttr{at: 0x3f09, form: dwarf.FormGNUStrpAlt, enc: nbytes(le, 4, 2)},
	)
	member := func(name string) hDIE {
		return hDIE{tag: 0x0d, attrs: []hAttr{
			{at: dwarf.AttrName, form: dwarf.FormString, enc: []byte(name + "\x00")},
			{at: 0x49, form: dwarf.FormRef4, enc: nbytes(le, 4, 12)},
			{at: 0x38, form: dwarf.FormExprloc, enc: []byte{2, 0x23, 4}},
			{at: 0x3f0a, form: dwarf.FormSdata, enc: sleb128(-1000)},
		}}
	}
	sibling := hAttr{at: dwarf.AttrSibling, form: dwarf.FormRef4, enc: nbytes(le, 4, 0)}
	u := hUnit{version: 5, root: hDIE{tag: dwarf.TagCompileUnit, attrs: attrs, kids: []hDIE{
		{tag: 0x24, attrs: []hAttr{{at: 0x0b, form: dwarf.FormData1, enc: []byte{4}}, {at: 0x3e, form: dwarf.FormData1, enc: []byte{5}}}},
		{tag: 0x13, attrs: []hAttr{sibling}, kids: []hDIE{
			member("a"), member("b"),
			{tag: 0x17, kids: []hDIE{member("c")}},
		}},
		{tag: 0x34, attrs: []hAttr{
			{at: 0x49, form: dwarf.FormRefAddr, enc: nbytes(le, 4, 12)},
			{at: 0x3f0c, form: dwarf.FormFlagPresent},
		}},
	}}}
	// Point DW_AT_sibling at the variable, the structure's next sibling:
	// it is the last DIE, before the null entry closing the unit DIE.
	info, _ := u.encode(nil)
	last := len(info) - 1 - (1 + 4)
	copy(u.root.kids[1].attrs[0].enc, nbytes(le, 4, uint64(last)))
	return u.encode(nil)
}

// fuzzSections puts info and abbrev beside formSections' index sections and
// a supplementary file.
func fuzzSections(info, abbrev []byte, sup *Data) *Sections {
	s := formSections()
	s.Info, s.Abbrev, s.Sup = info, abbrev, sup
	return s
}

// TestCorruption feeds every truncation and many single-byte corruptions of
// a rich unit to every decoding path: none may panic or hang, and the
// unmodified unit must decode cleanly.
func TestCorruption(t *testing.T) {
	sup, err := New(&Sections{Str: []byte("\x00\x00supstr\x00")})
	if err != nil {
		t.Fatal(err)
	}
	info, abbrev := richUnit()
	if err := decodeAll(fuzzSections(info, abbrev, sup)); err != nil {
		t.Fatalf("unmodified unit: %v", err)
	}
	errs := 0
	for n := range len(info) {
		if decodeAll(fuzzSections(info[:n], abbrev, sup)) != nil {
			errs++
		}
	}
	for n := range len(abbrev) {
		if decodeAll(fuzzSections(info, abbrev[:n], sup)) != nil {
			errs++
		}
	}
	for _, b := range [][]byte{info, abbrev} {
		for i := range b {
			for _, v := range []byte{0x00, 0x01, 0x16, 0x7f, 0x80, 0xff} {
				old := b[i]
				b[i] = v
				if decodeAll(fuzzSections(info, abbrev, sup)) != nil {
					errs++
				}
				b[i] = old
			}
		}
	}
	if errs == 0 {
		t.Fatal("no corruption was detected")
	}
}

// FuzzDecode mutates .debug_info and .debug_abbrev and runs every decoding
// path over them; it must never panic or hang, whatever the input, and lean
// decoding (Options.Lean) and deferred decoding (Reader.SetDeferFixed) must
// agree with the full one.
func FuzzDecode(f *testing.F) {
	info, abbrev := richUnit()
	f.Add(info, abbrev)
	// Real compiler output, when the compilers are installed.
	for _, fx := range fixtures {
		if fx.name != "gcc-dwarf5" && fx.name != "clang-dwarf5" {
			continue
		}
		if _, err := exec.LookPath(fx.cc); err == nil {
			_, sec := loadSections(f, fx.build(f))
			f.Add(sec.Info, sec.Abbrev)
		}
	}
	small := hUnit{version: 4, root: hDIE{tag: dwarf.TagCompileUnit, kids: []hDIE{{tag: 0x24}}}}
	info2, abbrev2 := small.encode(nil)
	f.Add(info2, abbrev2)
	sup, err := New(&Sections{Str: []byte("\x00\x00supstr\x00")})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, info, abbrev []byte) {
		s := fuzzSections(info, abbrev, sup)
		decodeAll(s)
		// Lean decoding must agree with the full one, errors included.
		full, err := New(s)
		if err != nil {
			return
		}
		lean, err := NewWith(s, Options{Lean: true})
		if err != nil {
			t.Fatalf("the full Data decodes, the lean one fails: %v", err)
		}
		if diff := diffLean(full, lean); diff != "" {
			t.Fatal(diff)
		}
		// So must deferred decoding (SetDeferFixed), and the values read
		// in place where FixedLayout puts them.
		for _, d := range []*Data{full, lean} {
			if diff, _ := diffDeferred(d); diff != "" {
				t.Fatal(diff)
			}
		}
	})
}
