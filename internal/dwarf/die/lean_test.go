package die

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// TestFold checks how a lean table folds the attributes no caller reads:
// runs of fixed-size ones become one formSkip step, variable-size ones and
// all others stay, and skipSize sums fixed sizes only.
func TestFold(t *testing.T) {
	const (
		declFile, declLine, declColumn = 0x3a, 0x3b, 0x39
		name, typ, loc                 = 0x03, 0x49, 0x38
	)
	s := func(attr dwarf.Attr, form dwarf.Form) attrSpec { return attrSpec{attr: attr, form: form} }
	skip := func(n uint16) attrSpec { return attrSpec{form: formSkip, implicit: n} }
	tests := []struct {
		name string
		in   []attrSpec
		want []attrSpec
		size int32 // skipSize of the folded specs
	}{
		{"member", // gcc's DW_TAG_member: name, decl_file/line/column, type, location
			[]attrSpec{s(name, dwarf.FormStrp), s(declFile, dwarf.FormData1), s(declLine, dwarf.FormData2), s(declColumn, dwarf.FormData1), s(typ, dwarf.FormRef4), s(loc, dwarf.FormData1)},
			[]attrSpec{s(name, dwarf.FormStrp), skip(4), s(typ, dwarf.FormRef4), s(loc, dwarf.FormData1)}, -1},
		{"fixed only",
			[]attrSpec{s(typ, dwarf.FormRef4), s(declFile, dwarf.FormImplicitConst), s(declLine, dwarf.FormData4)},
			[]attrSpec{s(typ, dwarf.FormRef4), skip(4)}, 8},
		{"variable size stays",
			[]attrSpec{s(declFile, dwarf.FormData1), s(declLine, dwarf.FormUdata), s(declColumn, dwarf.FormData1)},
			[]attrSpec{skip(1), s(declLine, dwarf.FormUdata), skip(1)}, -1},
		{"locviews by offset size stay",
			[]attrSpec{s(0x2137, dwarf.FormSecOffset), s(0x2138, dwarf.FormData1)},
			[]attrSpec{s(0x2137, dwarf.FormSecOffset), skip(1)}, -1},
		{"nothing to fold",
			[]attrSpec{s(name, dwarf.FormString), s(typ, dwarf.FormRef4)},
			[]attrSpec{s(name, dwarf.FormString), s(typ, dwarf.FormRef4)}, -1},
		{"empty", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A spec of an earlier abbreviation precedes, as in a table.
			prev := s(name, dwarf.FormData1)
			got := fold(append([]attrSpec{prev}, tt.in...), 1)
			if got[0] != prev {
				t.Fatalf("the earlier abbreviation's spec became %+v", got[0])
			}
			if fmt.Sprint(got[1:]) != fmt.Sprint(tt.want) && !(len(got) == 1 && len(tt.want) == 0) {
				t.Errorf("fold = %+v, want %+v", got[1:], tt.want)
			}
			if size := skipSize(got[1:]); size != tt.size {
				t.Errorf("skipSize = %d, want %d", size, tt.size)
			}
		})
	}
}

// diffLean walks every unit of full and lean, two Data of the same
// sections, side by side, and describes the first difference: both must
// meet the same DIEs, and each lean DIE must have the full DIE's fields but
// for those leanSkips steps over (with a fixed-size form), in order. Both
// walks must also fail alike. It returns "" when they agree.
func diffLean(full, lean *Data) string {
	rf, rl := full.NewReader(), lean.NewReader()
	var ef, el Entry
	for k, units := range [][]Unit{full.Units(), full.TypeUnits()} {
		lunits := lean.Units()
		if k == 1 {
			lunits = lean.TypeUnits()
		}
		for i := range units {
			rf.Seek(&units[i])
			rl.Seek(&lunits[i])
			for {
				okf, errf := rf.Next(&ef)
				okl, errl := rl.Next(&el)
				if (errf == nil) != (errl == nil) {
					return fmt.Sprintf("unit %#x: full walk error %v, lean %v", units[i].Offset, errf, errl)
				}
				if okf != okl {
					return fmt.Sprintf("unit %#x: the lean walk ends %v, the full one %v", units[i].Offset, okl, okf)
				}
				if !okf {
					break
				}
				if ef.Offset != el.Offset || ef.Tag != el.Tag || ef.Depth != el.Depth || ef.Children != el.Children || ef.Sibling != el.Sibling {
					return fmt.Sprintf("DIE %#x tag %#x: lean DIE %#x tag %#x", ef.Offset, ef.Tag, el.Offset, el.Tag)
				}
				j := 0
				for _, f := range ef.Fields {
					if leanSkips(f.Attr) && fixedSize(f.Form) >= 0 {
						continue
					}
					if j >= len(el.Fields) {
						return fmt.Sprintf("DIE %#x: the lean DIE lacks %+v", ef.Offset, f)
					}
					g := &el.Fields[j]
					j++
					if f.Attr != g.Attr || f.Form != g.Form || f.Val != g.Val || !bytes.Equal(f.Data, g.Data) {
						return fmt.Sprintf("DIE %#x: field %+v, lean %+v", ef.Offset, f, *g)
					}
				}
				if j != len(el.Fields) {
					return fmt.Sprintf("DIE %#x: the lean DIE has %d fields, want %d", ef.Offset, len(el.Fields), j)
				}
			}
		}
	}
	return ""
}

// checkLean builds a lean Data of sec beside the full one, d, and compares
// every DIE (diffLean); it fails unless some attribute was stepped over, so
// that the comparison cannot pass for want of any.
func checkLean(t *testing.T, d *Data, sec *Sections) {
	t.Helper()
	lean := leanData(t, sec)
	if diff := diffLean(d, lean); diff != "" {
		t.Fatal(diff)
	}
	for _, u := range lean.Units() {
		if u.abbrevs == nil {
			continue
		}
		for _, s := range u.abbrevs.specs {
			if s.form == formSkip {
				return
			}
		}
	}
	t.Fatal("the lean tables fold nothing: no source coordinates?")
}

// leanData returns a lean Data of sec (Options.Lean), or fails t.
func leanData(t *testing.T, sec *Sections) *Data {
	t.Helper()
	lean, err := NewWith(sec, Options{Lean: true})
	if err != nil {
		t.Fatalf("NewWith lean: %v", err)
	}
	return lean
}
