package funcs

import (
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/dwarf/loc"
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

// regUnknown marks a parameter whose register has not been seen.
const regUnknown = -1

// paramLoc is the location summary of one parameter.
type paramLoc struct {
	reg           int16  // the register's DW_OP_regN code, or regUnknown
	constVal      bool   // the first entry is a constant
	stack         bool   // the first entry is on the stack (DW_OP_fbreg)
	first, second uint64 // bit i: byte i of the first/second register's half is a piece
}

// locReader decodes the parameter locations of one unit. Its scratch
// operation buffers are reused, so decoding allocates nothing once grown.
type locReader struct {
	u   loc.Unit
	ops []loc.Op
	sub []loc.Op
}

// reset points r at unit u of the sections secs.
func (r *locReader) reset(secs *die.Sections, u *die.Unit) {
	r.u = loc.Unit{Order: secs.Order, AddrSize: int(u.AddrSize), OffSize: int(u.OffsetSize), Version: u.Version,
		LocLists: secs.LocLists, Loc: secs.Loc}
}

// decode reads a DW_AT_location attribute into l. typeSize is the byte
// size of the parameter's type; twoRegs says whether aggregates of up to two
// registers travel in registers on this architecture.
func (r *locReader) decode(form dwarf.Form, val uint64, data []byte, typeSize int, twoRegs bool, l *paramLoc) {
	n := 0
	r.u.Each(form, val, data, func(expr []byte) bool {
		ops, ok := r.u.Parse(expr, r.ops[:0])
		r.ops = ops
		if !ok {
			return false
		}
		r.apply(l, n, ops, typeSize, twoRegs)
		n++
		return true
	})
}

// apply folds one list entry (number n) into l, as pahole does.
func (r *locReader) apply(l *paramLoc, n int, ops []loc.Op, typeSize int, twoRegs bool) {
	if len(ops) == 0 {
		return
	}
	stackValue := ops[len(ops)-1].Op == dwarf.OpStackValue
	if len(ops) == 2 && stackValue {
		ops = ops[:1]
	}
	if len(ops) != 1 {
		r.applyMulti(l, n, ops, typeSize, twoRegs)
		return
	}
	op := ops[0]
	switch {
	case op.Op.IsReg():
		if n == 0 {
			l.setReg(op.Op)
		}
	case op.Op.IsBreg():
		if n == 0 && stackValue {
			l.setReg(op.Op - dwarf.OpBreg0 + dwarf.OpReg0)
		}
	case op.Op == dwarf.OpFbreg:
		if n == 0 {
			l.stack = true
		}
	case isConstOp(op.Op):
		if n == 0 {
			l.constVal = true
		}
	case op.Op == dwarf.OpEntryValue || op.Op == dwarf.OpGNUEntryValue:
		sub, ok := r.u.Parse(op.Block, r.sub[:0])
		r.sub = sub
		if ok && len(sub) == 1 && sub[0].Op.IsReg() {
			l.setReg(sub[0].Op)
		}
	}
}

// applyMulti handles an expression of several operations: a constant, a
// register with more work on it, or an aggregate in pieces.
func (r *locReader) applyMulti(l *paramLoc, n int, ops []loc.Op, typeSize int, twoRegs bool) {
	a := ops[0].Op
	if isConstOp(a) {
		if n == 0 {
			l.constVal = true
		}
		return
	}
	addrSize := r.u.AddrSize
	if typeSize <= addrSize || !twoRegs {
		switch {
		case a.IsReg():
			if n == 0 {
				l.setReg(a)
			}
		case a.IsBreg():
			if n == 0 && hasStackValue(ops) {
				l.setReg(a - dwarf.OpBreg0 + dwarf.OpReg0)
			}
		}
		return
	}
	off := 0
	for i, op := range ops {
		switch {
		case op.Op == dwarf.OpPiece:
			if i == 0 {
				off = int(op.Num)
				continue
			}
			if off < addrSize {
				setFieldBit(&l.first, off)
			} else {
				setFieldBit(&l.second, off-addrSize)
			}
			off += int(op.Num)
		case op.Op.IsReg():
			l.setReg(op.Op)
		}
	}
}

func (l *paramLoc) setReg(op dwarf.Op) {
	if l.reg == regUnknown {
		l.reg = int16(op)
	}
}

func setFieldBit(bits *uint64, off int) {
	if off >= 0 && off < 64 {
		*bits |= 1 << off
	}
}

func isConstOp(op dwarf.Op) bool { return op.IsLit() || op == dwarf.OpConstu || op == dwarf.OpConsts }

// hasStackValue reports a DW_OP_stack_value after the first operation.
func hasStackValue(ops []loc.Op) bool {
	for _, op := range ops[1:] {
		if op.Op == dwarf.OpStackValue {
			return true
		}
	}
	return false
}
