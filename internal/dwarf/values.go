package dwarf

// Encoding is a base type's encoding (DW_ATE_*).
type Encoding uint8

// The base type encodings gobtf reads.
const (
	EncBoolean      Encoding = 0x02
	EncComplexFloat Encoding = 0x03
	EncFloat        Encoding = 0x04
	EncSigned       Encoding = 0x05
	EncSignedChar   Encoding = 0x06
)

// Lang is a unit's source language (DW_LANG_*).
type Lang uint16

// The languages of DWARF 5 (section 7.12) and its later additions, and
// the MIPS assembler code that gcc and clang give assembler units.
const (
	LangC89           Lang = 0x01
	LangC             Lang = 0x02
	LangAda83         Lang = 0x03
	LangCPlusPlus     Lang = 0x04
	LangCobol74       Lang = 0x05
	LangCobol85       Lang = 0x06
	LangFortran77     Lang = 0x07
	LangFortran90     Lang = 0x08
	LangPascal83      Lang = 0x09
	LangModula2       Lang = 0x0a
	LangJava          Lang = 0x0b
	LangC99           Lang = 0x0c
	LangAda95         Lang = 0x0d
	LangFortran95     Lang = 0x0e
	LangPLI           Lang = 0x0f
	LangObjC          Lang = 0x10
	LangObjCPlusPlus  Lang = 0x11
	LangUPC           Lang = 0x12
	LangD             Lang = 0x13
	LangPython        Lang = 0x14
	LangOpenCL        Lang = 0x15
	LangGo            Lang = 0x16
	LangModula3       Lang = 0x17
	LangHaskell       Lang = 0x18
	LangCPlusPlus03   Lang = 0x19
	LangCPlusPlus11   Lang = 0x1a
	LangOCaml         Lang = 0x1b
	LangRust          Lang = 0x1c
	LangC11           Lang = 0x1d
	LangSwift         Lang = 0x1e
	LangJulia         Lang = 0x1f
	LangDylan         Lang = 0x20
	LangCPlusPlus14   Lang = 0x21
	LangFortran03     Lang = 0x22
	LangFortran08     Lang = 0x23
	LangRenderScript  Lang = 0x24
	LangBLISS         Lang = 0x25
	LangC17           Lang = 0x2c
	LangMipsAssembler Lang = 0x8001
)

// IsC reports whether lang is a version of C.
func (lang Lang) IsC() bool {
	switch lang {
	case LangC89, LangC, LangC99, LangC11, LangC17:
		return true
	}
	return false
}

// CallingConvention is a subprogram's calling convention (DW_CC_*).
type CallingConvention uint8

// The calling conventions gobtf reads.
const (
	CCNormal CallingConvention = 0x01
	CCNocall CallingConvention = 0x03 // clang: the function's signature was changed (an optimized clone)
)

// UnitType is a unit header's type (DW_UT_*). Units before DWARF 5 count as
// UTCompile, or UTType for those of .debug_types.
type UnitType uint8

// The unit types of DWARF 5.
const (
	UTCompile      UnitType = 0x01
	UTType         UnitType = 0x02
	UTPartial      UnitType = 0x03
	UTSkeleton     UnitType = 0x04
	UTSplitCompile UnitType = 0x05
	UTSplitType    UnitType = 0x06
)

// LLE is the kind of an entry of a DWARF 5 location list
// (DW_LLE_*, in .debug_loclists).
type LLE uint8

// The location list entry kinds of DWARF 5, and GNU's view pairs.
const (
	LLEEndOfList       LLE = 0x00
	LLEBaseAddressx    LLE = 0x01
	LLEStartxEndx      LLE = 0x02
	LLEStartxLength    LLE = 0x03
	LLEOffsetPair      LLE = 0x04
	LLEDefaultLocation LLE = 0x05
	LLEBaseAddress     LLE = 0x06
	LLEStartEnd        LLE = 0x07
	LLEStartLength     LLE = 0x08
	LLEGNUViewPair     LLE = 0x09
)

// LNCT is the content of a field of a DWARF 5 line table's directory and
// file entries (DW_LNCT_*).
type LNCT uint16

// The line table entry contents gobtf reads.
const (
	LNCTPath           LNCT = 0x1
	LNCTDirectoryIndex LNCT = 0x2
)
