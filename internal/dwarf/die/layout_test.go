package die

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// diffDeferred walks every unit of d twice side by side, with a Reader that
// decodes every DIE and one that defers the fixed-layout ones
// (SetDeferFixed), and describes the first difference: each deferred DIE's
// values, read in place where FixedLayout puts them, must be its decoded
// Fields' values, and DecodeDeferred must give the Fields the other walk
// decoded. It returns "" when they agree, and how many DIEs were deferred.
func diffDeferred(d *Data) (string, int) {
	rf, rd := d.NewReader(), d.NewReader()
	rd.SetDeferFixed(true)
	var ef, ed Entry
	var layout []LayoutField
	deferred := 0
	for i := range d.Units() {
		u := &d.Units()[i]
		rf.Seek(u)
		rd.Seek(u)
		for {
			okf, errf := rf.Next(&ef)
			okd, errd := rd.Next(&ed)
			if okd && errd == nil && ed.AttrPos >= 0 {
				deferred++
				var ok bool
				if layout, ok = u.FixedLayout(ed.Code, layout[:0]); !ok {
					return fmt.Sprintf("DIE %#x: deferred, but FixedLayout refuses code %d", ed.Offset, ed.Code), deferred
				}
				raw := u.Bytes()[ed.AttrPos:]
				if errd = rd.DecodeDeferred(&ed); errd != nil {
					okd = false // where Next, decoding, would have failed
				}
				if errd == nil && ed.AttrPos != -1 {
					return fmt.Sprintf("DIE %#x: AttrPos %d after DecodeDeferred", ed.Offset, ed.AttrPos), deferred
				}
				if errd == nil {
					if diff := diffLayout(u, raw, layout, ed.Fields); diff != "" {
						return fmt.Sprintf("DIE %#x: %s", ed.Offset, diff), deferred
					}
				}
			}
			if fmt.Sprint(errf) != fmt.Sprint(errd) || okf != okd {
				return fmt.Sprintf("unit %#x: decoding walk (%v, %v), deferring walk (%v, %v)", u.Offset, okf, errf, okd, errd), deferred
			}
			if !okf || errf != nil {
				break
			}
			if ef.Offset != ed.Offset || ef.Tag != ed.Tag || ef.Depth != ed.Depth || ef.Children != ed.Children || ef.Sibling != ed.Sibling || len(ef.Fields) != len(ed.Fields) {
				return fmt.Sprintf("DIE %#x tag %#x: deferred %#x tag %#x", ef.Offset, ef.Tag, ed.Offset, ed.Tag), deferred
			}
			for j := range ef.Fields {
				f, g := &ef.Fields[j], &ed.Fields[j]
				if f.Attr != g.Attr || f.Form != g.Form || f.Val != g.Val || f.Str() != g.Str() || !bytes.Equal(f.Data, g.Data) {
					return fmt.Sprintf("DIE %#x: field %+v, deferred %+v", ef.Offset, *f, *g), deferred
				}
			}
		}
	}
	return "", deferred
}

// diffLayout checks each value of layout, read from raw, against the
// decoded fields.
func diffLayout(u *Unit, raw []byte, layout []LayoutField, fields []Field) string {
	if len(layout) != len(fields) {
		return fmt.Sprintf("%d layout fields, %d decoded", len(layout), len(fields))
	}
	for j, l := range layout {
		f := &fields[j]
		if l.Attr != f.Attr || l.Form != f.Form {
			return fmt.Sprintf("layout field %+v, decoded %+v", l, *f)
		}
		var v uint64
		switch l.Size {
		case 0:
			v = uint64(l.Const)
			if l.Form == dwarf.FormFlagPresent {
				v = 1
			}
		case 1, 2, 3, 4, 8:
			var b [8]byte
			copy(b[:], raw[l.Off:l.Off+l.Size])
			v = binary.LittleEndian.Uint64(b[:])
		case 16:
			if !bytes.Equal(raw[l.Off:l.Off+16], f.Data) {
				return fmt.Sprintf("layout field %+v: bytes %x, decoded %x", l, raw[l.Off:l.Off+16], f.Data)
			}
			continue
		default:
			return fmt.Sprintf("layout field %+v: size %d", l, l.Size)
		}
		switch l.Form {
		case dwarf.FormRef1, dwarf.FormRef2, dwarf.FormRef4, dwarf.FormRef8:
			v += u.Offset
		case dwarf.FormStrx1, dwarf.FormStrx2, dwarf.FormStrx3, dwarf.FormStrx4:
			off, ok := u.StrxOffset(v)
			if !ok {
				return fmt.Sprintf("layout field %+v: StrxOffset(%d) fails", l, v)
			}
			v = off
		case dwarf.FormAddrx1, dwarf.FormAddrx2, dwarf.FormAddrx3, dwarf.FormAddrx4:
			continue // resolved through .debug_addr, which no caller reads in place
		}
		if v != f.Val {
			return fmt.Sprintf("layout field %+v: value %#x in place, %#x decoded", l, v, f.Val)
		}
	}
	return ""
}

// checkDeferred runs diffDeferred on d and on a lean Data of sec, and fails
// unless some DIE was deferred.
func checkDeferred(t *testing.T, d *Data, sec *Sections) {
	t.Helper()
	lean := leanData(t, sec)
	total := 0
	for _, x := range []*Data{d, lean} {
		diff, n := diffDeferred(x)
		if diff != "" {
			t.Fatal(diff)
		}
		total += n
	}
	if total == 0 && d.le {
		t.Fatal("no DIE has a fixed layout")
	}
}
