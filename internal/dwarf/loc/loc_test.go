package loc

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// TestLoclists walks DWARF 5 location lists of every entry kind.
func TestLoclists(t *testing.T) {
	list := []byte{
		0x09, 1, 2, // GNU view pair
		0x01, 3, // base_addressx
		0x04, 0x10, 0x20, 1, 0x55, // offset_pair: reg5
		0x03, 4, 8, 2, 0x91, 0x10, // startx_length: fbreg
		0x07, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0x30, // start_end: lit0
		0x08, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, // start_length: empty
		0x06, 0, 0, 0, 0, 0, 0, 0, 0, // base_address
		0x05, 1, 0x54, // default_location: reg4
		0x00,
		0x04, 0, 1, 1, 0x53, // after the end
	}
	u := &Unit{Order: binary.LittleEndian, AddrSize: 8, OffSize: 4, Version: 5, LocLists: list}
	var got [][]byte
	u.Each(dwarf.FormLoclistx, 0, nil, func(e []byte) bool { got = append(got, e); return true })
	want := [][]byte{{0x55}, {0x91, 0x10}, {0x30}, {}, {0x54}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	got = got[:0]
	u.Each(dwarf.FormLoclistx, 0, nil, func(e []byte) bool { got = append(got, e); return false })
	if len(got) != 1 {
		t.Errorf("fn returning false: %d entries, want 1", len(got))
	}
}

// TestLoc walks a DWARF 4 .debug_loc list: a base-address selection entry,
// two entries, the end; and checks which forms are lists in which version.
func TestLoc(t *testing.T) {
	le := binary.LittleEndian
	var sec []byte
	pair := func(a, b uint32) { sec = le.AppendUint32(le.AppendUint32(sec, a), b) }
	pair(0xffffffff, 0x1000) // base address
	pair(0, 4)
	sec = append(le.AppendUint16(sec, 1), 0x50)
	pair(4, 8)
	sec = append(le.AppendUint16(sec, 2), 0x91, 0x08)
	pair(0, 0)
	u := &Unit{AddrSize: 4, OffSize: 4, Version: 4, Loc: sec}
	var got [][]byte
	each := func(e []byte) bool { got = append(got, e); return true }
	u.Each(dwarf.FormSecOffset, 0, nil, each)
	if want := [][]byte{{0x50}, {0x91, 0x08}}; !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	got = nil
	u.Each(dwarf.FormData4, 0, nil, each) // DWARF 4: a constant
	u.Version = 3
	u.Each(dwarf.FormData4, 0, nil, each) // DWARF 3: a list offset
	u.Each(dwarf.FormExprloc, 0, []byte{0x9f}, each)
	if want := [][]byte{{0x50}, {0x91, 0x08}, {0x9f}}; !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
}

// TestParse decodes an operation of each operand shape, and fails on
// truncated operands and unknown operations.
func TestParse(t *testing.T) {
	u := &Unit{AddrSize: 8, OffSize: 4, Version: 5}
	expr := []byte{
		byte(dwarf.OpAddr), 1, 2, 3, 4, 5, 6, 7, 8,
		byte(dwarf.OpConst2u), 0x34, 0x12,
		byte(dwarf.OpBreg0 + 3), 0x7f,
		byte(dwarf.OpBregx), 3, 4,
		byte(dwarf.OpPiece), 8,
		byte(dwarf.OpEntryValue), 1, byte(dwarf.OpReg0 + 5),
		byte(dwarf.OpImplicitPointer), 1, 0, 0, 0, 2,
		byte(dwarf.OpConstType), 1, 2, 0xaa, 0xbb,
		byte(dwarf.OpDerefType), 4, 1,
		byte(dwarf.OpStackValue),
	}
	ops, ok := u.Parse(expr, nil)
	if !ok {
		t.Fatal("Parse failed")
	}
	want := []Op{
		{Op: dwarf.OpAddr, Num: 0x0807060504030201}, {Op: dwarf.OpConst2u, Num: 0x1234}, {Op: dwarf.OpBreg0 + 3, Num: 0x7f},
		{Op: dwarf.OpBregx, Num: 3}, {Op: dwarf.OpPiece, Num: 8},
		{Op: dwarf.OpEntryValue, Num: 1, Block: []byte{byte(dwarf.OpReg0 + 5)}},
		{Op: dwarf.OpImplicitPointer, Num: 2}, {Op: dwarf.OpConstType}, {Op: dwarf.OpDerefType, Num: 1}, {Op: dwarf.OpStackValue},
	}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("ops %+v\nwant %+v", ops, want)
	}
	u.Order = binary.BigEndian
	if ops, _ := u.Parse([]byte{byte(dwarf.OpConst2u), 0x12, 0x34}, nil); len(ops) != 1 || ops[0].Num != 0x1234 {
		t.Errorf("big endian const2u: %+v", ops)
	}
	for _, bad := range [][]byte{{byte(dwarf.OpAddr), 1}, {byte(dwarf.OpConstu), 0x80}, {0xee}, {byte(dwarf.OpEntryValue), 5, 1}} {
		if _, ok := u.Parse(bad, nil); ok {
			t.Errorf("Parse(% x) succeeded", bad)
		}
	}
}

// TestStaticAddress reads the two static forms and their offsets, and
// PlusUconst the member offsets.
func TestStaticAddress(t *testing.T) {
	tests := []struct {
		expr []byte
		le   bool
		addr uint64
		ok   bool
	}{
		{[]byte{0x03, 0x10, 0x20, 0, 0, 0, 0, 0, 0}, true, 0x2010, true},
		{[]byte{0x03, 0, 0, 0, 0, 0, 0, 0x20, 0x10}, false, 0x2010, true},
		{[]byte{0x03, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x23, 0x08}, true, 0x18, true},
		{[]byte{0x91, 0x10}, true, 0, false}, // DW_OP_fbreg: a local
		{[]byte{0x03, 0x10}, true, 0, false}, // truncated
		{nil, true, 0, false},
		{[]byte{0xa1, 0x02}, true, 0x3000, true},             // DW_OP_addrx 2
		{[]byte{0xa1, 0x02, 0x23, 0x04}, true, 0x3004, true}, // ... plus 4
		{[]byte{0xa1, 0x07}, true, 0, false},                 // index out of range
	}
	table := []uint64{0x1000, 0x2000, 0x3000}
	addrx := func(i uint64) (uint64, bool) {
		if i >= uint64(len(table)) {
			return 0, false
		}
		return table[i], true
	}
	for _, tc := range tests {
		addr, ok := StaticAddress(tc.expr, 8, tc.le, addrx)
		if addr != tc.addr || ok != tc.ok {
			t.Errorf("%x: got %#x %v, want %#x %v", tc.expr, addr, ok, tc.addr, tc.ok)
		}
	}
	if v := PlusUconst([]byte{byte(dwarf.OpPlusUconst), 0x80, 0x01}); v != 128 {
		t.Errorf("PlusUconst = %d, want 128", v)
	}
	if v := PlusUconst([]byte{byte(dwarf.OpConstu), 0x85}); v != 5 {
		t.Errorf("PlusUconst of a cut-short number = %d, want 5", v)
	}
	if v := PlusUconst([]byte{byte(dwarf.OpLit0)}); v != 0 {
		t.Errorf("PlusUconst(lit0) = %d", v)
	}
}

// FuzzParse: any expression and any list section is decoded or refused,
// never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte{byte(dwarf.OpBreg0 + 5), 0, byte(dwarf.OpStackValue)}, uint8(5))
	f.Add([]byte{0x04, 0x10, 0x20, 1, 0x55, 0}, uint8(5))
	f.Fuzz(func(t *testing.T, b []byte, version uint8) {
		u := &Unit{AddrSize: 8, OffSize: 4, Version: uint16(version%4 + 2), LocLists: b, Loc: b}
		ops, _ := u.Parse(b, nil)
		for _, op := range ops {
			if op.Op == dwarf.OpEntryValue || op.Op == dwarf.OpGNUEntryValue {
				u.Parse(op.Block, nil)
			}
		}
		u.Each(dwarf.FormSecOffset, 0, nil, func(e []byte) bool { u.Parse(e, nil); return true })
		StaticAddress(b, 8, true, func(uint64) (uint64, bool) { return 0, true })
	})
}
