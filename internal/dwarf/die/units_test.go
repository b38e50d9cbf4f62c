package die

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// TestHeaders decodes hand-built units of each DWARF version, offset size,
// address size and byte order, with the attributes whose encoding depends on
// them, and checks the header fields and values.
func TestHeaders(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	const atTest = 0x3f01
	tests := []struct {
		name     string
		unit     hUnit
		form     dwarf.Form
		enc      []byte
		wantVal  uint64
		wantData string
		wantOS   uint8
	}{
		{name: "v2 ref_addr is address-sized (4)", unit: hUnit{version: 2, addrSize: 4},
			form: dwarf.FormRefAddr, enc: nbytes(le, 4, 0x1234), wantVal: 0x1234, wantOS: 4},
		{name: "v2 ref_addr is address-sized (8)", unit: hUnit{version: 2, addrSize: 8},
			form: dwarf.FormRefAddr, enc: nbytes(le, 8, 0x12345678), wantVal: 0x12345678, wantOS: 4},
		{name: "v3 ref_addr is offset-sized", unit: hUnit{version: 3, addrSize: 8},
			form: dwarf.FormRefAddr, enc: nbytes(le, 4, 0x4321), wantVal: 0x4321, wantOS: 4},
		{name: "v3 64-bit ref_addr", unit: hUnit{version: 3, off64: true},
			form: dwarf.FormRefAddr, enc: nbytes(le, 8, 0x100000000), wantVal: 0x100000000, wantOS: 8},
		{name: "v4 64-bit strp", unit: hUnit{version: 4, off64: true},
			form: dwarf.FormStrp, enc: nbytes(le, 8, 1), wantVal: 1, wantData: "hello", wantOS: 8},
		{name: "v5 64-bit sec_offset", unit: hUnit{version: 5, off64: true},
			form: dwarf.FormSecOffset, enc: nbytes(le, 8, 0x1_0000_0001), wantVal: 0x1_0000_0001, wantOS: 8},
		{name: "v4 big-endian data2", unit: hUnit{version: 4, order: be},
			form: dwarf.FormData2, enc: nbytes(be, 2, 0x1234), wantVal: 0x1234, wantOS: 4},
		{name: "v4 big-endian data4", unit: hUnit{version: 4, order: be},
			form: dwarf.FormData4, enc: nbytes(be, 4, 0x12345678), wantVal: 0x12345678, wantOS: 4},
		{name: "v5 big-endian data8", unit: hUnit{version: 5, order: be},
			form: dwarf.FormData8, enc: nbytes(be, 8, 0x0102030405060708), wantVal: 0x0102030405060708, wantOS: 4},
		{name: "v5 big-endian 4-byte addr", unit: hUnit{version: 5, order: be, addrSize: 4},
			form: dwarf.FormAddr, enc: nbytes(be, 4, 0x80001000), wantVal: 0x80001000, wantOS: 4},
		{name: "v5 big-endian ref2", unit: hUnit{version: 5, order: be},
			form: dwarf.FormRef2, enc: nbytes(be, 2, 0x1234), wantVal: 0x1234, wantOS: 4},
		{name: "v5 skeleton unit", unit: hUnit{version: 5, unitType: dwarf.UTSkeleton, sig: 0xabcdef},
			form: dwarf.FormData1, enc: []byte{7}, wantVal: 7, wantOS: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.unit.root = hDIE{tag: dwarf.TagCompileUnit, attrs: []hAttr{{at: atTest, form: tt.form, enc: tt.enc}}}
			info, abbrev := tt.unit.encode(nil)
			d, err := New(&Sections{Info: info, Abbrev: abbrev, Str: []byte("\x00hello\x00"), Order: tt.unit.order})
			if err != nil {
				t.Fatal(err)
			}
			u := &d.Units()[0]
			if u.Version != uint16(tt.unit.version) || u.OffsetSize != tt.wantOS || u.AddrSize != uint8(tt.unit.addrSize) ||
				u.Signature != tt.unit.sig || u.DIEOffset != uint64(tt.unit.headerSize()) || u.End != uint64(len(info)) {
				t.Fatalf("unit %+v", u)
			}
			var e Entry
			r := d.NewReader()
			r.Seek(u)
			if ok, err := r.Next(&e); !ok || err != nil {
				t.Fatalf("Next: %v %v", ok, err)
			}
			f := e.Field(atTest)
			if f == nil || f.Val != tt.wantVal || f.Str() != tt.wantData {
				t.Fatalf("got %+v, want Val %#x Data %q", f, tt.wantVal, tt.wantData)
			}
		})
	}
}

// TestTypeUnits builds a DWARF 4 .debug_types unit and a DWARF 5 type unit in
// .debug_info and follows ref_sig8 references to both type DIEs.
func TestTypeUnits(t *testing.T) {
	le := binary.LittleEndian
	typeTree := hDIE{tag: dwarf.TagTypeUnit, kids: []hDIE{
		{tag: 0x13, attrs: []hAttr{{at: dwarf.AttrName, form: dwarf.FormString, enc: []byte("point\x00")}}},
	}}
	// The type DIE follows the header and the one-byte type unit DIE.
	v4 := hUnit{version: 4, sig: 0x1111, root: typeTree}
	v4.typeOff = uint64(v4.headerSize() + 1)
	types, abbrev := v4.encode(nil)
	v5 := hUnit{version: 5, unitType: dwarf.UTType, sig: 0x2222, root: typeTree}
	v5.typeOff = uint64(v5.headerSize() + 1)
	cu := hUnit{version: 5, root: hDIE{tag: dwarf.TagCompileUnit, kids: []hDIE{
		{tag: 0x34, attrs: []hAttr{{at: 0x49, form: dwarf.FormRefSig8, enc: nbytes(le, 8, 0x1111)}}},
		{tag: 0x34, attrs: []hAttr{{at: 0x49, form: dwarf.FormRefSig8, enc: nbytes(le, 8, 0x2222)}}},
	}}}
	info, abbrev := v5.encode(abbrev)
	info2, abbrev := cu.encode(abbrev)
	info = append(info, info2...)
	d, err := New(&Sections{Info: info, Types: types, Abbrev: abbrev})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Units()) != 2 || len(d.TypeUnits()) != 1 || d.TypeUnits()[0].UnitType != dwarf.UTType ||
		d.Units()[0].UnitType != dwarf.UTType || d.Units()[0].Tag != dwarf.TagTypeUnit {
		t.Fatalf("units %+v, type units %+v", d.Units(), d.TypeUnits())
	}
	r := d.NewReader()
	r.Seek(&d.Units()[1])
	var e, target Entry
	wantSec := []Section{SecTypes, SecInfo}
	for i := 0; ; i++ {
		ok, err := r.Next(&e)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if i != 3 {
				t.Fatalf("walked %d DIEs, want 3", i)
			}
			break
		}
		if e.Tag != 0x34 {
			continue
		}
		sec, off, ok := d.TypeBySignature(e.Fields[0].Val)
		if !ok || sec != wantSec[i-1] {
			t.Fatalf("signature %#x: %v %#x %v", e.Fields[0].Val, sec, off, ok)
		}
		if err := r.EntryAt(sec, off, &target); err != nil {
			t.Fatal(err)
		}
		if target.Tag != 0x13 || target.Fields[0].Str() != "point" || target.Depth != -1 {
			t.Fatalf("type DIE %+v", target)
		}
	}

	// Forget drops the compile unit's table, not the type unit's: the
	// compile unit then fails to read (without a panic), while its type
	// stays reachable by signature.
	d.Forget(0)
	d.Forget(1)
	r.Seek(&d.Units()[1])
	if _, err := r.Next(&e); err == nil {
		t.Error("reading a forgotten compile unit: no error")
	}
	if sec, off, ok := d.TypeBySignature(0x2222); !ok {
		t.Error("signature 0x2222 not found")
	} else if err := r.EntryAt(sec, off, &target); err != nil || target.Tag != 0x13 {
		t.Errorf("type unit after Forget: %+v, %v", target, err)
	}
}

// TestUnitDIE checks the unit fields read from the unit DIE, with the name
// given by strx before DW_AT_str_offsets_base (as clang orders them).
func TestUnitDIE(t *testing.T) {
	le := binary.LittleEndian
	sec := formSections()
	u := hUnit{version: 5, root: hDIE{tag: dwarf.TagCompileUnit, attrs: append([]hAttr{
		{at: dwarf.AttrProducer, form: dwarf.FormString, enc: []byte("hand\x00")},
		{at: dwarf.AttrLanguage, form: dwarf.FormData2, enc: nbytes(le, 2, 0x1d)},
		{at: dwarf.AttrName, form: dwarf.FormStrx1, enc: []byte{1}},
	}, baseAttrs()...)}}
	sec.Info, sec.Abbrev = u.encode(nil)
	d, err := New(sec)
	if err != nil {
		t.Fatal(err)
	}
	got := d.Units()[0]
	if got.Name != "world" || got.Producer != "hand" || got.Language != 0x1d || got.Tag != dwarf.TagCompileUnit ||
		got.StrOffsetsBase != 8 || got.AddrBase != 8 || got.RngListsBase != 12 || got.LocListsBase != 12 {
		t.Fatalf("unit %+v", got)
	}
}

// TestBadInput checks that malformed sections give a *DecodeError naming
// the right section and offset.
func TestBadInput(t *testing.T) {
	le := binary.LittleEndian
	good := hUnit{version: 5, root: hDIE{tag: dwarf.TagCompileUnit, kids: []hDIE{{tag: 0x24}}}}
	info, abbrev := good.encode(nil)
	set := func(b []byte, off int, v ...byte) []byte {
		c := append([]byte{}, b...)
		copy(c[off:], v)
		return c
	}
	tests := []struct {
		name    string
		info    []byte
		abbrev  []byte
		wantSec string
		wantOff uint64
		wantErr error
	}{
		{name: "reserved length", info: set(info, 0, 0xf0, 0xff, 0xff, 0xff), wantSec: ".debug_info"},
		{name: "length past the end", info: info[:len(info)-1], wantSec: ".debug_info"},
		{name: "short header", info: append(nbytes(le, 4, 1), 5), wantSec: ".debug_info", wantOff: 4},
		{name: "version 1", info: set(info, 4, 1, 0), wantSec: ".debug_info"},
		{name: "version 6", info: set(info, 4, 6, 0), wantSec: ".debug_info"},
		{name: "vendor unit type", info: set(info, 6, 0x80), wantSec: ".debug_info", wantErr: ErrUnsupported},
		{name: "address size 3", info: set(info, 7, 3), wantSec: ".debug_info"},
		{name: "abbrev offset past the end", info: set(info, 8, 0xff), wantSec: ".debug_abbrev", wantOff: uint64(len(abbrev))},
		{name: "truncated abbrev", abbrev: abbrev[:4], wantSec: ".debug_abbrev", wantOff: 4},
		{name: "unknown abbrev code", info: set(info, 13, 9), wantSec: ".debug_info", wantOff: 13, wantErr: errBadAbbrev},
		{name: "unknown form", abbrev: append([]byte{1, 0x11, 0, 0x03, 0x7f, 0, 0}, 0), wantSec: ".debug_info", wantOff: 13, wantErr: errBadForm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, ab := tt.info, tt.abbrev
			if in == nil {
				in = info
			}
			if ab == nil {
				ab = abbrev
			}
			err := decodeAll(&Sections{Info: in, Abbrev: ab})
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DecodeError", err)
			}
			if de.Section != tt.wantSec || de.Offset != tt.wantOff || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("got %v (section %s offset %#x), want section %s offset %#x cause %v", err, de.Section, de.Offset, tt.wantSec, tt.wantOff, tt.wantErr)
			}
		})
	}
}

// decodeAll runs every decoding path over s: New, a walk of every unit that
// skips the children of every other DIE with children, and EntryAt on every
// reference. It returns the first error.
func decodeAll(s *Sections) error {
	d, err := New(s)
	if err != nil {
		return err
	}
	r := d.NewReader()
	at := d.NewReader()
	var e, target Entry
	var first error
	n := 0
	for _, list := range [][]Unit{d.Units(), d.TypeUnits()} {
		for i := range list {
			r.Seek(&list[i])
			for {
				ok, err := r.Next(&e)
				if err != nil {
					first = cmpOr(first, err)
					break
				}
				if !ok {
					break
				}
				for _, f := range e.Fields {
					if f.IsRef() {
						sec := list[i].Section
						if f.Form == dwarf.FormRefAddr {
							sec = SecInfo
						}
						if err := at.EntryAt(sec, f.Val, &target); err != nil {
							first = cmpOr(first, err)
						}
					}
				}
				if e.Children {
					if n++; n%2 == 0 {
						if err := r.SkipChildren(); err != nil {
							first = cmpOr(first, err)
							break
						}
					}
				}
			}
		}
	}
	return first
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// TestDecodeErrorText checks the message format, which follows
// debug/dwarf's DecodeError.
func TestDecodeErrorText(t *testing.T) {
	tests := []struct {
		err  *DecodeError
		want string
	}{
		{&DecodeError{Section: ".debug_info", Offset: 0x10, Err: errTruncated},
			"decoding dwarf section .debug_info at offset 0x10: data truncated"},
		{&DecodeError{Section: ".debug_abbrev", Offset: 0, Err: ErrUnsupported},
			"decoding dwarf section .debug_abbrev at offset 0x0: unsupported"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

// TestConcurrentReaders walks one shared Data from several goroutines at
// once (run with -race to check that decoding never writes shared state)
// and checks they all see the same DIEs.
func TestConcurrentReaders(t *testing.T) {
	info, abbrev := richUnit()
	sup, err := New(&Sections{Str: []byte("\x00\x00supstr\x00")})
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(fuzzSections(info, abbrev, sup))
	if err != nil {
		t.Fatal(err)
	}
	sum := func() (uint64, error) {
		r := d.NewReader()
		var e, target Entry
		var h uint64
		for range 50 {
			r.Seek(&d.Units()[0])
			for {
				ok, err := r.Next(&e)
				if err != nil || !ok {
					if err != nil {
						return 0, err
					}
					break
				}
				h = h*31 + e.Offset + uint64(e.Tag)
				for _, f := range e.Fields {
					h = h*31 + f.Val + uint64(len(f.Data)) + uint64(f.Int()&1)
					if f.IsRef() {
						if err := r.EntryAt(SecInfo, f.Val, &target); err != nil {
							return 0, err
						}
						h += uint64(target.Tag)
					}
				}
			}
		}
		return h, nil
	}
	want, err := sum()
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan error, 4)
	for range 4 {
		go func() {
			got, err := sum()
			if err == nil && got != want {
				err = errors.New("a goroutine saw different DIEs")
			}
			results <- err
		}()
	}
	for range 4 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
}
