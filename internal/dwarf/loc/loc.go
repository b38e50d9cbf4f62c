// Package loc reads DWARF location descriptions: the expressions of
// DW_AT_location and DW_AT_data_member_location (DWARF 5 section 2.5) and
// the location lists of .debug_loclists (DWARF 5) and .debug_loc (DWARF 2
// to 4) that hold one expression per address range. It decodes operations
// and their operands; it evaluates nothing but the two forms a static
// place takes (StaticAddress, PlusUconst). Malformed input ends a list or
// fails an expression; nothing reads past its input.
package loc

import (
	"encoding/binary"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// Op is one decoded operation: its code, its first operand as a number
// (the byte count for OpPiece, the block's length for the operations with
// a block) and, for entry values and implicit values, the block.
type Op struct {
	Op    dwarf.Op
	Num   uint64
	Block []byte
}

// Unit is what reading a unit's expressions and lists depends on: the
// sizes of its addresses and offsets, its version, the byte order, and the
// list sections. Its scratch is reused, so reading allocates nothing once
// grown.
type Unit struct {
	Order    binary.ByteOrder // nil means little endian
	AddrSize int
	OffSize  int    // 4, or 8 for 64-bit DWARF
	Version  uint16 // 2 to 5
	LocLists []byte // .debug_loclists
	Loc      []byte // .debug_loc
}

// Each calls fn with each expression of a DW_AT_location attribute of
// form f, value val and block data (as the decoder gives them: the list's
// absolute offset for loclistx and sec_offset), in order, until the list
// ends or fn returns false: the one expression of an exprloc or block, or
// those of a location list. Before DWARF 4, data4 and data8 are list
// offsets; from DWARF 4 on they are constants, not locations.
func (u *Unit) Each(f dwarf.Form, val uint64, data []byte, fn func(expr []byte) bool) {
	switch f {
	case dwarf.FormExprloc, dwarf.FormBlock, dwarf.FormBlock1, dwarf.FormBlock2, dwarf.FormBlock4:
		fn(data)
	case dwarf.FormLoclistx:
		u.loclists(val, fn)
	case dwarf.FormSecOffset, dwarf.FormData4, dwarf.FormData8:
		if f != dwarf.FormSecOffset && u.Version >= 4 {
			return
		}
		if u.Version >= 5 {
			u.loclists(val, fn)
		} else {
			u.loc(val, fn)
		}
	}
}

// loclists calls fn for every entry's expression of the DWARF 5 location
// list at off in .debug_loclists, until the list ends or fn returns
// false. Base-address and view entries carry no expression.
func (u *Unit) loclists(off uint64, fn func([]byte) bool) {
	b := u.LocLists
	p := int(min(off, uint64(len(b))))
	for p < len(b) {
		kind := dwarf.LLE(b[p])
		p++
		var ok bool
		switch kind {
		case dwarf.LLEEndOfList:
			return
		case dwarf.LLEBaseAddressx:
			if p, ok = leb128.Skip(b, p, 1); !ok {
				return
			}
			continue
		case dwarf.LLEBaseAddress:
			p += u.AddrSize
			continue
		case dwarf.LLEGNUViewPair:
			if p, ok = leb128.Skip(b, p, 2); !ok {
				return
			}
			continue
		case dwarf.LLEStartxEndx, dwarf.LLEStartxLength, dwarf.LLEOffsetPair:
			p, ok = leb128.Skip(b, p, 2)
		case dwarf.LLEDefaultLocation:
			ok = true
		case dwarf.LLEStartEnd:
			p += 2 * u.AddrSize
			ok = p <= len(b)
		case dwarf.LLEStartLength:
			p += u.AddrSize
			if ok = p <= len(b); ok {
				p, ok = leb128.Skip(b, p, 1)
			}
		default:
			return
		}
		if !ok {
			return
		}
		n, k, ok := leb128.Uint(b, p)
		if !ok || n > uint64(len(b)-k) {
			return
		}
		p = k
		if !fn(b[p : p+int(n)]) {
			return
		}
		p += int(n)
	}
}

// loc is loclists for the DWARF 2-4 .debug_loc format: address pairs, a
// base-address selection entry marked by an all-ones start, and a two-byte
// expression length.
func (u *Unit) loc(off uint64, fn func([]byte) bool) {
	b := u.Loc
	as := u.AddrSize
	if as != 4 && as != 8 {
		return
	}
	order := u.order()
	maxAddr := ^uint64(0) >> (64 - 8*as)
	p := int(min(off, uint64(len(b))))
	for p+2*as <= len(b) {
		begin, end := u.addr(b[p:]), u.addr(b[p+as:])
		p += 2 * as
		if begin == 0 && end == 0 {
			return
		}
		if begin == maxAddr {
			continue
		}
		if p+2 > len(b) {
			return
		}
		n := int(order.Uint16(b[p:]))
		p += 2
		if n > len(b)-p {
			return
		}
		if !fn(b[p : p+n]) {
			return
		}
		p += n
	}
}

func (u *Unit) order() binary.ByteOrder {
	if u.Order == nil {
		return binary.LittleEndian
	}
	return u.Order
}

func (u *Unit) addr(b []byte) uint64 {
	if u.AddrSize == 4 {
		return uint64(u.order().Uint32(b))
	}
	return u.order().Uint64(b)
}

// StaticAddress decodes an expression that is a static address: OpAddr A,
// or OpAddrx I resolved through addrx (the unit's .debug_addr table; nil
// when unknown), optionally followed by OpPlusUconst N. It reports false
// for any other expression.
func StaticAddress(expr []byte, addrSize int, littleEndian bool, addrx func(uint64) (uint64, bool)) (uint64, bool) {
	var a uint64
	var rest []byte
	switch {
	case len(expr) >= 1+addrSize && dwarf.Op(expr[0]) == dwarf.OpAddr:
		for k := range addrSize {
			i := 1 + k
			if littleEndian {
				i = addrSize - k
			}
			a = a<<8 | uint64(expr[i])
		}
		rest = expr[1+addrSize:]
	case len(expr) >= 2 && dwarf.Op(expr[0]) == dwarf.OpAddrx && addrx != nil:
		idx, n, ok := leb128.Uint(expr, 1)
		if !ok {
			return 0, false
		}
		if a, ok = addrx(idx); !ok {
			return 0, false
		}
		rest = expr[n:]
	default:
		return 0, false
	}
	if len(rest) > 1 && dwarf.Op(rest[0]) == dwarf.OpPlusUconst {
		a += PlusUconst(rest)
	}
	return a, true
}

// PlusUconst evaluates the expressions compilers write for member offsets,
// OpPlusUconst N or OpConstu N, to N (the value of the bytes there are when
// the number is cut short); anything else is 0, as in pahole (which also
// prints a warning).
func PlusUconst(expr []byte) uint64 {
	if len(expr) == 0 || (dwarf.Op(expr[0]) != dwarf.OpPlusUconst && dwarf.Op(expr[0]) != dwarf.OpConstu) {
		return 0
	}
	v, _, _ := leb128.Uint(expr, 1)
	return v
}
