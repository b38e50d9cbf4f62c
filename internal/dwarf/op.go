package dwarf

// Op is a location expression operation (DW_OP_*).
type Op uint8

// The operations of DWARF 5 (section 7.7.1) and the GNU extensions.
const (
	OpAddr              Op = 0x03
	OpDeref             Op = 0x06
	OpConst1u           Op = 0x08
	OpConst1s           Op = 0x09
	OpConst2u           Op = 0x0a
	OpConst2s           Op = 0x0b
	OpConst4u           Op = 0x0c
	OpConst4s           Op = 0x0d
	OpConst8u           Op = 0x0e
	OpConst8s           Op = 0x0f
	OpConstu            Op = 0x10
	OpConsts            Op = 0x11
	OpDup               Op = 0x12
	OpDrop              Op = 0x13
	OpOver              Op = 0x14
	OpPick              Op = 0x15
	OpSwap              Op = 0x16
	OpRot               Op = 0x17
	OpXderef            Op = 0x18
	OpAbs               Op = 0x19
	OpAnd               Op = 0x1a
	OpDiv               Op = 0x1b
	OpMinus             Op = 0x1c
	OpMod               Op = 0x1d
	OpMul               Op = 0x1e
	OpNeg               Op = 0x1f
	OpNot               Op = 0x20
	OpOr                Op = 0x21
	OpPlus              Op = 0x22
	OpPlusUconst        Op = 0x23
	OpShl               Op = 0x24
	OpShr               Op = 0x25
	OpShra              Op = 0x26
	OpXor               Op = 0x27
	OpBra               Op = 0x28
	OpEq                Op = 0x29
	OpGe                Op = 0x2a
	OpGt                Op = 0x2b
	OpLe                Op = 0x2c
	OpLt                Op = 0x2d
	OpNe                Op = 0x2e
	OpSkip              Op = 0x2f
	OpLit0              Op = 0x30 // to OpLit31: the constants 0 to 31
	OpLit31             Op = 0x4f
	OpReg0              Op = 0x50 // to OpReg31: the value is in register n
	OpReg31             Op = 0x6f
	OpBreg0             Op = 0x70 // to OpBreg31: register n plus an offset
	OpBreg31            Op = 0x8f
	OpRegx              Op = 0x90
	OpFbreg             Op = 0x91
	OpBregx             Op = 0x92
	OpPiece             Op = 0x93
	OpDerefSize         Op = 0x94
	OpXderefSize        Op = 0x95
	OpNop               Op = 0x96
	OpPushObjectAddress Op = 0x97
	OpCall2             Op = 0x98
	OpCall4             Op = 0x99
	OpCallRef           Op = 0x9a
	OpFormTLSAddress    Op = 0x9b
	OpCallFrameCFA      Op = 0x9c
	OpBitPiece          Op = 0x9d
	OpImplicitValue     Op = 0x9e
	OpStackValue        Op = 0x9f
	OpImplicitPointer   Op = 0xa0
	OpAddrx             Op = 0xa1
	OpConstx            Op = 0xa2
	OpEntryValue        Op = 0xa3
	OpConstType         Op = 0xa4
	OpRegvalType        Op = 0xa5
	OpDerefType         Op = 0xa6
	OpXderefType        Op = 0xa7
	OpConvert           Op = 0xa8
	OpReinterpret       Op = 0xa9

	OpGNUPushTLSAddress  Op = 0xe0
	OpGNUUninit          Op = 0xf0
	OpGNUImplicitPointer Op = 0xf2
	OpGNUEntryValue      Op = 0xf3
	OpGNUConstType       Op = 0xf4
	OpGNURegvalType      Op = 0xf5
	OpGNUDerefType       Op = 0xf6
	OpGNUConvert         Op = 0xf7
	OpGNUReinterpret     Op = 0xf9
	OpGNUParameterRef    Op = 0xfa
	OpGNUAddrIndex       Op = 0xfb
	OpGNUConstIndex      Op = 0xfc
	OpGNUVariableValue   Op = 0xfd
)

// IsReg reports whether op is one of OpReg0 to OpReg31.
func (op Op) IsReg() bool { return op >= OpReg0 && op <= OpReg31 }

// IsBreg reports whether op is one of OpBreg0 to OpBreg31.
func (op Op) IsBreg() bool { return op >= OpBreg0 && op <= OpBreg31 }

// IsLit reports whether op is one of OpLit0 to OpLit31.
func (op Op) IsLit() bool { return op >= OpLit0 && op <= OpLit31 }
