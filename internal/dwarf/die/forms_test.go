package die

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// formSections returns the index sections of the hand-built form tests,
// laid out as DWARF 5 prescribes (each table after its section header):
//
//	.debug_str         "" at 0, "hello" at 1, "world" at 7
//	.debug_line_str    "line" at 1
//	.debug_str_offsets header (8 bytes), then 1, 7
//	.debug_addr        header (8 bytes), then 0x1000, 0x2000
//	.debug_rnglists    header (12 bytes), then offsets 0x10, 0x20
//	.debug_loclists    header (12 bytes), then offsets 0x30, 0x40
func formSections() *Sections {
	le := binary.LittleEndian
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	listHdr := func(a, b uint64) []byte {
		return cat(nbytes(le, 4, 16), nbytes(le, 2, 5), []byte{8, 0}, nbytes(le, 4, 2), nbytes(le, 4, a), nbytes(le, 4, b))
	}
	return &Sections{
		Str:        []byte("\x00hello\x00world\x00"),
		LineStr:    []byte("\x00line\x00"),
		StrOffsets: cat(nbytes(le, 4, 12), nbytes(le, 2, 5), nbytes(le, 2, 0), nbytes(le, 4, 1), nbytes(le, 4, 7)),
		Addr:       cat(nbytes(le, 4, 20), nbytes(le, 2, 5), []byte{8, 0}, nbytes(le, 8, 0x1000), nbytes(le, 8, 0x2000)),
		RngLists:   listHdr(0x10, 0x20),
		LocLists:   listHdr(0x30, 0x40),
	}
}

// baseAttrs are the unit DIE attributes pointing at formSections' tables.
func baseAttrs() []hAttr {
	le := binary.LittleEndian
	return []hAttr{
		{at: dwarf.AttrStrOffsetsBase, form: dwarf.FormSecOffset, enc: nbytes(le, 4, 8)},
		{at: dwarf.AttrAddrBase, form: dwarf.FormSecOffset, enc: nbytes(le, 4, 8)},
		{at: dwarf.AttrRnglistsBase, form: dwarf.FormSecOffset, enc: nbytes(le, 4, 12)},
		{at: dwarf.AttrLoclistsBase, form: dwarf.FormSecOffset, enc: nbytes(le, 4, 12)},
	}
}

// TestForms decodes one attribute of every form from a hand-built DWARF 5
// unit (the second of two, so that unit-relative references must add the
// unit offset) and checks the value the DWARF 5 standard gives it.
func TestForms(t *testing.T) {
	le := binary.LittleEndian
	const atTest = 0x3f01 // a user attribute: no special meaning to the decoder
	tests := []struct {
		name     string
		form     dwarf.Form
		implicit int64
		enc      []byte
		noSup    bool
		isPos    bool // the value is the offset of its own bytes in .debug_info
		isRef    bool // the value is the unit offset plus wantVal
		wantVal  uint64
		wantData string
		wantErr  error
		cutStr   bool // .debug_str lacks its final NUL
	}{
		{name: "addr", form: dwarf.FormAddr, enc: nbytes(le, 8, 0xffffffff81000000), wantVal: 0xffffffff81000000},
		{name: "addrx", form: dwarf.FormAddrx, enc: uleb128(1), wantVal: 0x2000},
		{name: "addrx1", form: dwarf.FormAddrx1, enc: []byte{0}, wantVal: 0x1000},
		{name: "addrx2", form: dwarf.FormAddrx2, enc: nbytes(le, 2, 1), wantVal: 0x2000},
		{name: "addrx3", form: dwarf.FormAddrx3, enc: nbytes(le, 3, 1), wantVal: 0x2000},
		{name: "addrx4", form: dwarf.FormAddrx4, enc: nbytes(le, 4, 0), wantVal: 0x1000},
		{name: "addrx out of range", form: dwarf.FormAddrx, enc: uleb128(2), wantErr: errIndex},
		{name: "GNU_addr_index", form: dwarf.FormGNUAddrIndex, enc: uleb128(1), wantVal: 0x2000},
		{name: "block1", form: dwarf.FormBlock1, enc: []byte{2, 'a', 'b'}, wantVal: 2, wantData: "ab"},
		{name: "block2", form: dwarf.FormBlock2, enc: []byte{3, 0, 'a', 'b', 'c'}, wantVal: 3, wantData: "abc"},
		{name: "block4", form: dwarf.FormBlock4, enc: []byte{1, 0, 0, 0, 'z'}, wantVal: 1, wantData: "z"},
		{name: "block", form: dwarf.FormBlock, enc: []byte{0x81, 0x00, 'q'}, wantVal: 1, wantData: "q"},
		{name: "block past the end", form: dwarf.FormBlock, enc: []byte{5, 'q'}, wantErr: errAny},
		{name: "exprloc", form: dwarf.FormExprloc, enc: []byte{2, 0x23, 0x08}, wantVal: 2, wantData: "\x23\x08"},
		{name: "data1", form: dwarf.FormData1, enc: []byte{0xfe}, wantVal: 0xfe},
		{name: "data2", form: dwarf.FormData2, enc: nbytes(le, 2, 0xbeef), wantVal: 0xbeef},
		{name: "data4", form: dwarf.FormData4, enc: nbytes(le, 4, 0xdeadbeef), wantVal: 0xdeadbeef},
		{name: "data8", form: dwarf.FormData8, enc: nbytes(le, 8, 0x0123456789abcdef), wantVal: 0x0123456789abcdef},
		{name: "data16", form: dwarf.FormData16, enc: []byte("0123456789abcdef"), wantData: "0123456789abcdef"},
		{name: "sdata -1", form: dwarf.FormSdata, enc: []byte{0x7f}, wantVal: ^uint64(0)},
		{name: "sdata -129", form: dwarf.FormSdata, enc: []byte{0xff, 0x7e}, wantVal: uint64(0xffffffffffffff7f)},
		{name: "udata", form: dwarf.FormUdata, enc: []byte{0xe5, 0x8e, 0x26}, wantVal: 624485},
		{name: "udata truncated", form: dwarf.FormUdata, enc: []byte{0xe5, 0x8e}, wantErr: errTruncated},
		{name: "implicit_const", form: dwarf.FormImplicitConst, implicit: -5, wantVal: uint64(0xfffffffffffffffb)},
		{name: "string", form: dwarf.FormString, enc: []byte("abc\x00"), isPos: true, wantData: "abc"},
		{name: "empty string", form: dwarf.FormString, enc: []byte{0}, isPos: true, wantData: ""},
		{name: "unterminated string", form: dwarf.FormString, enc: []byte("abc"), wantErr: errTruncated},
		{name: "strp", form: dwarf.FormStrp, enc: nbytes(le, 4, 7), wantVal: 7, wantData: "world"},
		{name: "strp out of range", form: dwarf.FormStrp, enc: nbytes(le, 4, 13), wantErr: errAny},
		{name: "strp not last", form: dwarf.FormStrp, enc: nbytes(le, 4, 1), wantVal: 1, wantData: "hello"},
		{name: "strp, .debug_str unterminated", form: dwarf.FormStrp, enc: nbytes(le, 4, 1), cutStr: true, wantVal: 1, wantData: "hello"},
		{name: "strp to an unterminated string", form: dwarf.FormStrp, enc: nbytes(le, 4, 7), cutStr: true, wantErr: errAny},
		{name: "line_strp", form: dwarf.FormLineStrp, enc: nbytes(le, 4, 1), wantVal: 1, wantData: "line"},
		{name: "strx", form: dwarf.FormStrx, enc: uleb128(1), wantVal: 7, wantData: "world"},
		{name: "strx1", form: dwarf.FormStrx1, enc: []byte{0}, wantVal: 1, wantData: "hello"},
		{name: "strx2", form: dwarf.FormStrx2, enc: nbytes(le, 2, 1), wantVal: 7, wantData: "world"},
		{name: "strx3", form: dwarf.FormStrx3, enc: nbytes(le, 3, 0), wantVal: 1, wantData: "hello"},
		{name: "strx4", form: dwarf.FormStrx4, enc: nbytes(le, 4, 1), wantVal: 7, wantData: "world"},
		{name: "strx out of range", form: dwarf.FormStrx, enc: uleb128(1 << 40), wantErr: errIndex},
		{name: "GNU_str_index", form: dwarf.FormGNUStrIndex, enc: uleb128(0), wantVal: 1, wantData: "hello"},
		{name: "flag", form: dwarf.FormFlag, enc: []byte{1}, wantVal: 1},
		{name: "flag_present", form: dwarf.FormFlagPresent, wantVal: 1},
		{name: "ref1", form: dwarf.FormRef1, enc: []byte{0x20}, isRef: true, wantVal: 0x20},
		{name: "ref2", form: dwarf.FormRef2, enc: nbytes(le, 2, 0x21), isRef: true, wantVal: 0x21},
		{name: "ref4", form: dwarf.FormRef4, enc: nbytes(le, 4, 0x22), isRef: true, wantVal: 0x22},
		{name: "ref8", form: dwarf.FormRef8, enc: nbytes(le, 8, 0x23), isRef: true, wantVal: 0x23},
		{name: "ref_udata", form: dwarf.FormRefUdata, enc: uleb128(0x124), isRef: true, wantVal: 0x124},
		{name: "ref_addr", form: dwarf.FormRefAddr, enc: nbytes(le, 4, 0x1234), wantVal: 0x1234},
		{name: "ref_sig8", form: dwarf.FormRefSig8, enc: nbytes(le, 8, 0xfeedface12345678), wantVal: 0xfeedface12345678},
		{name: "sec_offset", form: dwarf.FormSecOffset, enc: nbytes(le, 4, 0x777), wantVal: 0x777},
		{name: "loclistx", form: dwarf.FormLoclistx, enc: uleb128(0), wantVal: 12 + 0x30},
		{name: "rnglistx", form: dwarf.FormRnglistx, enc: uleb128(1), wantVal: 12 + 0x20},
		{name: "rnglistx out of range", form: dwarf.FormRnglistx, enc: uleb128(2), wantErr: errIndex},
		{name: "indirect data2", form: dwarf.FormIndirect, enc: append(uleb128(uint64(dwarf.FormData2)), 0x34, 0x12), wantVal: 0x1234},
		{name: "indirect indirect strx1", form: dwarf.FormIndirect, enc: []byte{byte(dwarf.FormIndirect), byte(dwarf.FormStrx1), 1}, wantVal: 7, wantData: "world"},
		{name: "indirect loop", form: dwarf.FormIndirect, enc: []byte{0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x0b, 0}, wantErr: errAny},
		{name: "strp_sup", form: dwarf.FormStrpSup, enc: nbytes(le, 4, 2), wantVal: 2, wantData: "supstr"},
		{name: "GNU_strp_alt", form: dwarf.FormGNUStrpAlt, enc: nbytes(le, 4, 2), wantVal: 2, wantData: "supstr"},
		{name: "GNU_strp_alt without alt file", form: dwarf.FormGNUStrpAlt, enc: nbytes(le, 4, 2), noSup: true, wantErr: ErrUnsupported},
		{name: "ref_sup4", form: dwarf.FormRefSup4, enc: nbytes(le, 4, 0x99), wantVal: 0x99},
		{name: "ref_sup8", form: dwarf.FormRefSup8, enc: nbytes(le, 8, 0x98), wantVal: 0x98},
		{name: "GNU_ref_alt", form: dwarf.FormGNURefAlt, enc: nbytes(le, 4, 0x97), wantVal: 0x97},
		{name: "GNU_ref_alt without alt file", form: dwarf.FormGNURefAlt, enc: nbytes(le, 4, 0x97), noSup: true, wantErr: ErrUnsupported},
		{name: "unknown form", form: 0x7f, enc: []byte{0}, wantErr: errBadForm},
	}
	sup, err := New(&Sections{Str: []byte("\x00\x00supstr\x00")})
	if err != nil {
		t.Fatal(err)
	}
	// Each case runs with eager strings and with lazy ones
	// (Reader.SetLazyStrings), which must read the same.
	for _, tt := range tests {
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/lazy=%v", tt.name, lazy), func(t *testing.T) {
				sec := formSections()
				if tt.cutStr {
					sec.Str = sec.Str[:len(sec.Str)-1]
				}
				if !tt.noSup {
					sec.Sup = sup
				}
				filler := hUnit{version: 5, root: hDIE{tag: dwarf.TagCompileUnit}}
				info, abbrev := filler.encode(nil)
				unitOff := uint64(len(info))
				attrs := append(baseAttrs(), hAttr{at: atTest, form: tt.form, implicit: tt.implicit, enc: tt.enc})
				u := hUnit{version: 5, root: hDIE{tag: dwarf.TagCompileUnit, attrs: attrs}}
				info2, abbrev := u.encode(abbrev)
				sec.Info, sec.Abbrev = append(info, info2...), abbrev
				d, err := New(sec)
				var e Entry
				if err == nil {
					r := d.NewReader()
					r.SetLazyStrings(lazy)
					r.Seek(&d.Units()[1])
					var ok bool
					ok, err = r.Next(&e)
					if err == nil && !ok {
						t.Fatal("no DIE")
					}
				}
				if tt.wantErr != nil {
					var de *DecodeError
					if !errors.As(err, &de) {
						t.Fatalf("got error %v, want a *DecodeError", err)
					}
					if tt.wantErr != errAny && !errors.Is(err, tt.wantErr) {
						t.Fatalf("got error %v, want %v", err, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				f := e.Field(atTest)
				want := tt.wantVal
				switch {
				case tt.isPos:
					want = uint64(len(sec.Info) - len(tt.enc))
				case tt.isRef:
					want += unitOff
				}
				if f == nil || f.Val != want || f.Str() != tt.wantData || (tt.wantData == "" && tt.form != dwarf.FormString && f.Data != nil) {
					t.Fatalf("got %+v, want Val %#x Data %q", f, want, tt.wantData)
				}
				if tt.form != dwarf.FormIndirect && f.Form != tt.form {
					t.Fatalf("got form %#x, want %#x", f.Form, tt.form)
				}
			})
		}
	}
}

// errAny marks a test that wants some *DecodeError.
var errAny = errors.New("any decode error")
