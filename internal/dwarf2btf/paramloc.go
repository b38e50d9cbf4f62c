package dwarf2btf

import (
	"encoding/binary"

	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// Parameter locations tell whether the compiler kept a function's calling
// convention. pahole reads each parameter's DW_AT_location (one expression,
// or a location list in .debug_loclists or .debug_loc) and keeps a few facts
// per parameter (parameter__decode_location):
//
//   - the register the value arrives in: DW_OP_regN as a whole expression
//     of the first list entry, DW_OP_bregN when that expression is a
//     computed value (ends in DW_OP_stack_value), or the register inside a
//     DW_OP_entry_value of any entry; only the first register found counts;
//   - whether the first entry is a constant (the value was propagated) or a
//     frame-base offset (the value is on the stack);
//   - for parameters wider than a register split into DW_OP_pieces, which
//     byte offsets of the aggregate each of the two registers holds.
//
// A trailing DW_OP_stack_value of a two-operation expression is dropped
// first, so "DW_OP_breg5 0; DW_OP_stack_value" reads as the single DW_OP_breg5.
// The list entries are numbered in order, empty expressions included, as
// libdw returns them; an expression that cannot be parsed ends the list, as
// libdw's iteration stops at an error.

// DWARF expression operations the analysis looks at (DW_OP_*).
const (
	opAddr          = 0x03
	opConst1u       = 0x08
	opConstu        = 0x10
	opConsts        = 0x11
	opLit0          = 0x30
	opLit31         = 0x4f
	opReg0          = 0x50
	opReg31         = 0x6f
	opBreg0         = 0x70
	opBreg31        = 0x8f
	opFbreg         = 0x91
	opPiece         = 0x93
	opStackValue    = 0x9f
	opEntryValue    = 0xa3
	opGNUEntryValue = 0xf3
)

// exprOp is one decoded operation: its opcode, its first operand as a number
// (the byte count for DW_OP_piece) and, for entry values, the inner
// expression.
type exprOp struct {
	atom byte
	num  uint64
	sub  []byte
}

// regUnknown marks a parameter whose register has not been seen.
const regUnknown = -1

// paramLoc is the location summary of one parameter.
type paramLoc struct {
	reg           int16  // DW_OP_regN opcode of the register, or regUnknown
	constVal      bool   // the first entry is a constant
	stack         bool   // the first entry is on the stack (DW_OP_fbreg)
	first, second uint64 // bit i: byte i of the first/second register's half is a piece
}

// locReader decodes location expressions and lists of one unit. Its scratch
// operation buffer is reused, so decoding allocates nothing once grown.
type locReader struct {
	secs     *die.Sections
	order    binary.ByteOrder
	addrSize int
	offSize  int
	version  uint16
	ops      []exprOp
	sub      []exprOp
}

// reset points r at unit u.
func (r *locReader) reset(secs *die.Sections, u *die.Unit) {
	r.secs = secs
	r.order = secs.Order
	if r.order == nil {
		r.order = binary.LittleEndian
	}
	r.addrSize, r.offSize, r.version = int(u.AddrSize), int(u.OffsetSize), u.Version
}

// decode reads a DW_AT_location attribute into loc. typeSize is the byte
// size of the parameter's type; twoRegs says whether aggregates of up to two
// registers travel in registers on this architecture.
func (r *locReader) decode(form die.Form, val uint64, data []byte, typeSize int, twoRegs bool, loc *paramLoc) {
	n := 0
	each := func(expr []byte) bool {
		ops, ok := r.parse(expr, r.ops[:0])
		r.ops = ops
		if !ok {
			return false
		}
		r.apply(loc, n, ops, typeSize, twoRegs)
		n++
		return true
	}
	switch form {
	case die.FormExprloc, die.FormBlock, die.FormBlock1, die.FormBlock2, die.FormBlock4:
		each(data)
	case die.FormLoclistx:
		r.walkLoclists(val, each)
	case die.FormSecOffset, die.FormData4, die.FormData8:
		if form != die.FormSecOffset && r.version >= 4 {
			return // a constant, not a list pointer
		}
		if r.version >= 5 {
			r.walkLoclists(val, each)
		} else {
			r.walkLoc(val, each)
		}
	}
}

// apply folds one list entry (number n) into loc, as pahole does.
func (r *locReader) apply(loc *paramLoc, n int, ops []exprOp, typeSize int, twoRegs bool) {
	if len(ops) == 0 {
		return
	}
	stackValue := ops[len(ops)-1].atom == opStackValue
	if len(ops) == 2 && stackValue {
		ops = ops[:1]
	}
	if len(ops) != 1 {
		r.applyMulti(loc, n, ops, typeSize, twoRegs)
		return
	}
	op := ops[0]
	switch {
	case op.atom >= opReg0 && op.atom <= opReg31:
		if n == 0 {
			loc.setReg(op.atom)
		}
	case op.atom >= opBreg0 && op.atom <= opBreg31:
		if n == 0 && stackValue {
			loc.setReg(op.atom - opBreg0 + opReg0)
		}
	case op.atom == opFbreg:
		if n == 0 {
			loc.stack = true
		}
	case isConstOp(op.atom):
		if n == 0 {
			loc.constVal = true
		}
	case op.atom == opEntryValue || op.atom == opGNUEntryValue:
		sub, ok := r.parse(op.sub, r.sub[:0])
		r.sub = sub
		if ok && len(sub) == 1 && sub[0].atom >= opReg0 && sub[0].atom <= opReg31 {
			loc.setReg(sub[0].atom)
		}
	}
}

// applyMulti handles an expression of several operations: a constant, a
// register with more work on it, or an aggregate in pieces.
func (r *locReader) applyMulti(loc *paramLoc, n int, ops []exprOp, typeSize int, twoRegs bool) {
	a := ops[0].atom
	if isConstOp(a) {
		if n == 0 {
			loc.constVal = true
		}
		return
	}
	if typeSize <= r.addrSize || !twoRegs {
		switch {
		case a >= opReg0 && a <= opReg31:
			if n == 0 {
				loc.setReg(a)
			}
		case a >= opBreg0 && a <= opBreg31:
			if n == 0 && hasStackValue(ops) {
				loc.setReg(a - opBreg0 + opReg0)
			}
		}
		return
	}
	off := 0
	for i, op := range ops {
		switch {
		case op.atom == opPiece:
			if i == 0 {
				off = int(op.num)
				continue
			}
			if off < r.addrSize {
				setFieldBit(&loc.first, off)
			} else {
				setFieldBit(&loc.second, off-r.addrSize)
			}
			off += int(op.num)
		case op.atom >= opReg0 && op.atom <= opReg31:
			loc.setReg(op.atom)
		}
	}
}

func (loc *paramLoc) setReg(op byte) {
	if loc.reg == regUnknown {
		loc.reg = int16(op)
	}
}

func setFieldBit(bits *uint64, off int) {
	if off >= 0 && off < 64 {
		*bits |= 1 << off
	}
}

func isConstOp(a byte) bool {
	return a >= opLit0 && a <= opLit31 || a == opConstu || a == opConsts
}

// hasStackValue reports a DW_OP_stack_value after the first operation.
func hasStackValue(ops []exprOp) bool {
	for _, op := range ops[1:] {
		if op.atom == opStackValue {
			return true
		}
	}
	return false
}

// walkLoclists calls each for every entry's expression of the DWARF 5
// location list at off in .debug_loclists, until the list ends or each
// returns false. Base-address and view entries carry no expression.
func (r *locReader) walkLoclists(off uint64, each func([]byte) bool) {
	b := r.secs.LocLists
	p := int(min(off, uint64(len(b))))
	for p < len(b) {
		kind := b[p]
		p++
		var ok bool
		switch kind {
		case 0x00: // DW_LLE_end_of_list
			return
		case 0x01: // DW_LLE_base_addressx
			p, ok = skipUleb(b, p, 1)
			if !ok {
				return
			}
			continue
		case 0x06: // DW_LLE_base_address
			p += r.addrSize
			continue
		case 0x09: // DW_LLE_GNU_view_pair
			p, ok = skipUleb(b, p, 2)
			if !ok {
				return
			}
			continue
		case 0x02, 0x03, 0x04: // startx_endx, startx_length, offset_pair
			p, ok = skipUleb(b, p, 2)
		case 0x05: // default_location
			ok = true
		case 0x07: // start_end
			p += 2 * r.addrSize
			ok = p <= len(b)
		case 0x08: // start_length
			p += r.addrSize
			if ok = p <= len(b); ok {
				p, ok = skipUleb(b, p, 1)
			}
		default:
			return
		}
		if !ok {
			return
		}
		n, k := uleb(b[p:])
		if k == 0 || n > uint64(len(b)-p-k) {
			return
		}
		p += k
		if !each(b[p : p+int(n)]) {
			return
		}
		p += int(n)
	}
}

// walkLoc is walkLoclists for the DWARF 2-4 .debug_loc format: address
// pairs, a base-address selection entry marked by an all-ones start, and a
// two-byte expression length.
func (r *locReader) walkLoc(off uint64, each func([]byte) bool) {
	b := r.secs.Loc
	as := r.addrSize
	if as != 4 && as != 8 {
		return
	}
	maxAddr := ^uint64(0) >> (64 - 8*as)
	p := int(min(off, uint64(len(b))))
	for p+2*as <= len(b) {
		begin, end := r.addr(b[p:]), r.addr(b[p+as:])
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
		n := int(r.order.Uint16(b[p:]))
		p += 2
		if n > len(b)-p {
			return
		}
		if !each(b[p : p+n]) {
			return
		}
		p += n
	}
}

func (r *locReader) addr(b []byte) uint64 {
	if r.addrSize == 4 {
		return uint64(r.order.Uint32(b))
	}
	return r.order.Uint64(b)
}

// skipUleb steps over n LEB128 numbers.
func skipUleb(b []byte, p, n int) (int, bool) {
	for ; n > 0; n-- {
		if p >= len(b) {
			return p, false
		}
		_, k := uleb(b[p:])
		if k == 0 {
			return p, false
		}
		p += k
	}
	return p, true
}

// parse decodes expr into ops (appended to dst). It fails on an unknown
// operation or a truncated operand, as libdw does.
func (r *locReader) parse(expr []byte, dst []exprOp) ([]exprOp, bool) {
	p := 0
	for p < len(expr) {
		op := exprOp{atom: expr[p]}
		p++
		var ok bool
		p, op.num, op.sub, ok = r.operands(expr, p, op.atom)
		if !ok {
			return dst, false
		}
		dst = append(dst, op)
	}
	return dst, true
}

// operands steps over the operands of operation a starting at p and returns
// the new position, the first operand as a number when it is one, and the
// inner block of entry values and implicit values.
func (r *locReader) operands(b []byte, p int, a byte) (int, uint64, []byte, bool) {
	fixed := func(n int) (int, uint64, []byte, bool) {
		if p+n > len(b) {
			return p, 0, nil, false
		}
		var v uint64
		for i := 0; i < n; i++ {
			if r.order == binary.BigEndian {
				v = v<<8 | uint64(b[p+i])
			} else {
				v |= uint64(b[p+i]) << (8 * i)
			}
		}
		return p + n, v, nil, true
	}
	lebs := func(n int) (int, uint64, []byte, bool) {
		var first uint64
		for i := 0; i < n; i++ {
			if p >= len(b) {
				return p, 0, nil, false
			}
			v, k := uleb(b[p:])
			if k == 0 {
				return p, 0, nil, false
			}
			if i == 0 {
				first = v
			}
			p += k
		}
		return p, first, nil, true
	}
	block := func() (int, uint64, []byte, bool) {
		if p >= len(b) {
			return p, 0, nil, false
		}
		n, k := uleb(b[p:])
		if k == 0 || n > uint64(len(b)-p-k) {
			return p, 0, nil, false
		}
		start := p + k
		return start + int(n), n, b[start : start+int(n)], true
	}
	refSize := r.offSize
	if r.version <= 2 {
		refSize = r.addrSize
	}
	switch {
	case a == opAddr:
		return fixed(r.addrSize)
	case a == 0x06 || a >= 0x12 && a <= 0x14 || a >= 0x16 && a <= 0x22 || a >= 0x24 && a <= 0x27 ||
		a >= 0x29 && a <= 0x2e || a >= opLit0 && a <= opReg31 || a == 0x96 || a == 0x97 ||
		a == 0x9b || a == 0x9c || a == opStackValue || a == 0xe0 || a == 0xf0:
		return p, 0, nil, true
	case a == opConst1u || a == 0x09 || a == 0x15 || a == 0x94 || a == 0x95:
		return fixed(1)
	case a == 0x0a || a == 0x0b || a == 0x28 || a == 0x2f || a == 0x98:
		return fixed(2)
	case a == 0x0c || a == 0x0d || a == 0x99 || a == 0xfa:
		return fixed(4)
	case a == 0x0e || a == 0x0f:
		return fixed(8)
	case a == opConstu || a == opConsts || a == 0x23 || a >= opBreg0 && a <= opBreg31 || a == 0x90 ||
		a == opFbreg || a == opPiece || a == 0xa1 || a == 0xa2 || a == 0xa8 || a == 0xa9 ||
		a == 0xf7 || a == 0xf9 || a == 0xfb || a == 0xfc:
		return lebs(1)
	case a == 0x92 || a == 0x9d || a == 0xa5 || a == 0xf5:
		return lebs(2)
	case a == 0x9e || a == opEntryValue || a == opGNUEntryValue:
		return block()
	case a == 0x9a || a == 0xfd:
		return fixed(refSize)
	case a == 0xa0 || a == 0xf2: // implicit_pointer: reference, then offset
		np, _, _, ok := fixed(refSize)
		if !ok {
			return p, 0, nil, false
		}
		p = np
		return lebs(1)
	case a == 0xa4 || a == 0xf4: // const_type: type, size byte, value bytes
		np, _, _, ok := lebs(1)
		if !ok || np >= len(b) {
			return p, 0, nil, false
		}
		n := int(b[np])
		if np+1+n > len(b) {
			return p, 0, nil, false
		}
		return np + 1 + n, 0, nil, true
	case a == 0xa6 || a == 0xa7 || a == 0xf6: // deref_type: size byte, type
		if p >= len(b) {
			return p, 0, nil, false
		}
		p++
		return lebs(1)
	}
	return p, 0, nil, false
}
