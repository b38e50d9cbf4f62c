package loc

import (
	"encoding/binary"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/leb128"
)

// operands says what follows an operation's code.
type operands uint8

const (
	invalid     operands = iota // not an operation: the expression fails
	none                        // nothing
	addr                        // an address
	fixed1                      // a 1-byte constant
	fixed2                      // a 2-byte constant
	fixed4                      // a 4-byte constant
	fixed8                      // an 8-byte constant
	oneLEB                      // a LEB128 number
	twoLEBs                     // two LEB128 numbers
	block                       // a LEB128 length and that many bytes
	ref                         // a .debug_info offset (an address before DWARF 3)
	refLEB                      // an offset, then a LEB128 number (implicit pointers)
	lebSizedVal                 // a LEB128 type, a size byte and that many bytes (typed constants)
	sizeLEB                     // a size byte, then a LEB128 type (typed dereferences)
)

// operandsOf is what follows each operation, as libdw reads it.
var operandsOf = func() (t [256]operands) {
	for op := dwarf.OpLit0; op <= dwarf.OpReg31; op++ {
		t[op] = none
	}
	for op := dwarf.OpBreg0; op <= dwarf.OpBreg31; op++ {
		t[op] = oneLEB
	}
	for _, op := range []dwarf.Op{dwarf.OpDeref, dwarf.OpDup, dwarf.OpDrop, dwarf.OpOver, dwarf.OpSwap, dwarf.OpRot,
		dwarf.OpXderef, dwarf.OpAbs, dwarf.OpAnd, dwarf.OpDiv, dwarf.OpMinus, dwarf.OpMod, dwarf.OpMul, dwarf.OpNeg,
		dwarf.OpNot, dwarf.OpOr, dwarf.OpPlus, dwarf.OpShl, dwarf.OpShr, dwarf.OpShra, dwarf.OpXor, dwarf.OpEq,
		dwarf.OpGe, dwarf.OpGt, dwarf.OpLe, dwarf.OpLt, dwarf.OpNe, dwarf.OpNop, dwarf.OpPushObjectAddress,
		dwarf.OpFormTLSAddress, dwarf.OpCallFrameCFA, dwarf.OpStackValue, dwarf.OpGNUPushTLSAddress, dwarf.OpGNUUninit} {
		t[op] = none
	}
	t[dwarf.OpAddr] = addr
	for _, op := range []dwarf.Op{dwarf.OpConst1u, dwarf.OpConst1s, dwarf.OpPick, dwarf.OpDerefSize, dwarf.OpXderefSize} {
		t[op] = fixed1
	}
	for _, op := range []dwarf.Op{dwarf.OpConst2u, dwarf.OpConst2s, dwarf.OpBra, dwarf.OpSkip, dwarf.OpCall2} {
		t[op] = fixed2
	}
	for _, op := range []dwarf.Op{dwarf.OpConst4u, dwarf.OpConst4s, dwarf.OpCall4, dwarf.OpGNUParameterRef} {
		t[op] = fixed4
	}
	t[dwarf.OpConst8u], t[dwarf.OpConst8s] = fixed8, fixed8
	for _, op := range []dwarf.Op{dwarf.OpConstu, dwarf.OpConsts, dwarf.OpPlusUconst, dwarf.OpRegx, dwarf.OpFbreg,
		dwarf.OpPiece, dwarf.OpAddrx, dwarf.OpConstx, dwarf.OpConvert, dwarf.OpReinterpret, dwarf.OpGNUConvert,
		dwarf.OpGNUReinterpret, dwarf.OpGNUAddrIndex, dwarf.OpGNUConstIndex} {
		t[op] = oneLEB
	}
	for _, op := range []dwarf.Op{dwarf.OpBregx, dwarf.OpBitPiece, dwarf.OpRegvalType, dwarf.OpGNURegvalType} {
		t[op] = twoLEBs
	}
	for _, op := range []dwarf.Op{dwarf.OpImplicitValue, dwarf.OpEntryValue, dwarf.OpGNUEntryValue} {
		t[op] = block
	}
	t[dwarf.OpCallRef], t[dwarf.OpGNUVariableValue] = ref, ref
	t[dwarf.OpImplicitPointer], t[dwarf.OpGNUImplicitPointer] = refLEB, refLEB
	t[dwarf.OpConstType], t[dwarf.OpGNUConstType] = lebSizedVal, lebSizedVal
	for _, op := range []dwarf.Op{dwarf.OpDerefType, dwarf.OpXderefType, dwarf.OpGNUDerefType} {
		t[op] = sizeLEB
	}
	return t
}()

// Parse decodes expr into operations, appended to dst. It fails on an
// unknown operation or a truncated operand, as libdw does; dst then holds
// the operations before it.
func (u *Unit) Parse(expr []byte, dst []Op) ([]Op, bool) {
	p := 0
	for p < len(expr) {
		op := Op{Op: dwarf.Op(expr[p])}
		p++
		var ok bool
		p, op.Num, op.Block, ok = u.operands(expr, p, op.Op)
		if !ok {
			return dst, false
		}
		dst = append(dst, op)
	}
	return dst, true
}

// operands steps over the operands of operation op starting at p and
// returns the new position, the first operand as a number when it is one,
// and the block of entry values and implicit values.
func (u *Unit) operands(b []byte, p int, op dwarf.Op) (int, uint64, []byte, bool) {
	fixed := func(n int) (int, uint64, []byte, bool) {
		if p+n > len(b) {
			return p, 0, nil, false
		}
		var v uint64
		for i := range n {
			if u.Order == binary.BigEndian {
				v = v<<8 | uint64(b[p+i])
			} else {
				v |= uint64(b[p+i]) << (8 * i)
			}
		}
		return p + n, v, nil, true
	}
	lebs := func(n int) (int, uint64, []byte, bool) {
		var first uint64
		for i := range n {
			v, np, ok := leb128.Uint(b, p)
			if !ok {
				return p, 0, nil, false
			}
			if i == 0 {
				first = v
			}
			p = np
		}
		return p, first, nil, true
	}
	refSize := u.OffSize
	if u.Version <= 2 {
		refSize = u.AddrSize
	}
	switch operandsOf[op] {
	case none:
		return p, 0, nil, true
	case addr:
		return fixed(u.AddrSize)
	case fixed1:
		return fixed(1)
	case fixed2:
		return fixed(2)
	case fixed4:
		return fixed(4)
	case fixed8:
		return fixed(8)
	case oneLEB:
		return lebs(1)
	case twoLEBs:
		return lebs(2)
	case block:
		n, k, ok := leb128.Uint(b, p)
		if !ok || n > uint64(len(b)-k) {
			return p, 0, nil, false
		}
		return k + int(n), n, b[k : k+int(n)], true
	case ref:
		return fixed(refSize)
	case refLEB:
		np, _, _, ok := fixed(refSize)
		if !ok {
			return p, 0, nil, false
		}
		p = np
		return lebs(1)
	case lebSizedVal:
		np, _, _, ok := lebs(1)
		if !ok || np >= len(b) {
			return p, 0, nil, false
		}
		n := int(b[np])
		if np+1+n > len(b) {
			return p, 0, nil, false
		}
		return np + 1 + n, 0, nil, true
	case sizeLEB:
		if p >= len(b) {
			return p, 0, nil, false
		}
		p++
		return lebs(1)
	}
	return p, 0, nil, false
}
