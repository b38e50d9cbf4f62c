package die

// Form is a DWARF attribute encoding (DW_FORM_*), which says how an
// attribute's value is stored and so how Field.Val and Field.Data are filled.
type Form uint16

// Attribute forms of DWARF 2 to 5 (DWARF 5, section 7.5.6) and the GNU
// extensions for split DWARF and dwz.
const (
	FormAddr          Form = 0x01
	FormBlock2        Form = 0x03
	FormBlock4        Form = 0x04
	FormData2         Form = 0x05
	FormData4         Form = 0x06
	FormData8         Form = 0x07
	FormString        Form = 0x08
	FormBlock         Form = 0x09
	FormBlock1        Form = 0x0a
	FormData1         Form = 0x0b
	FormFlag          Form = 0x0c
	FormSdata         Form = 0x0d
	FormStrp          Form = 0x0e
	FormUdata         Form = 0x0f
	FormRefAddr       Form = 0x10
	FormRef1          Form = 0x11
	FormRef2          Form = 0x12
	FormRef4          Form = 0x13
	FormRef8          Form = 0x14
	FormRefUdata      Form = 0x15
	FormIndirect      Form = 0x16
	FormSecOffset     Form = 0x17
	FormExprloc       Form = 0x18
	FormFlagPresent   Form = 0x19
	FormStrx          Form = 0x1a
	FormAddrx         Form = 0x1b
	FormRefSup4       Form = 0x1c
	FormStrpSup       Form = 0x1d
	FormData16        Form = 0x1e
	FormLineStrp      Form = 0x1f
	FormRefSig8       Form = 0x20
	FormImplicitConst Form = 0x21
	FormLoclistx      Form = 0x22
	FormRnglistx      Form = 0x23
	FormRefSup8       Form = 0x24
	FormStrx1         Form = 0x25
	FormStrx2         Form = 0x26
	FormStrx3         Form = 0x27
	FormStrx4         Form = 0x28
	FormAddrx1        Form = 0x29
	FormAddrx2        Form = 0x2a
	FormAddrx3        Form = 0x2b
	FormAddrx4        Form = 0x2c

	FormGNUAddrIndex Form = 0x1f01 // pre-standard split DWARF: same as FormAddrx
	FormGNUStrIndex  Form = 0x1f02 // pre-standard split DWARF: same as FormStrx
	FormGNURefAlt    Form = 0x1f20 // dwz: .debug_info offset in the alt file
	FormGNUStrpAlt   Form = 0x1f21 // dwz: .debug_str offset in the alt file
)

// Attributes the decoder itself interprets (DW_AT_*).
const (
	AttrSibling        = 0x01
	AttrName           = 0x03
	AttrLanguage       = 0x13
	AttrProducer       = 0x25
	AttrStrOffsetsBase = 0x72
	AttrAddrBase       = 0x73
	AttrRnglistsBase   = 0x74
	AttrLoclistsBase   = 0x8c
	AttrGNUDWOID       = 0x2131
	AttrGNURangesBase  = 0x2132
	AttrGNUAddrBase    = 0x2133
)

// Unit DIE tags (DW_TAG_*).
const (
	TagCompileUnit  = 0x11
	TagPartialUnit  = 0x3c
	TagTypeUnit     = 0x41
	TagSkeletonUnit = 0x4a
)

// Unit header types of DWARF 5 (DW_UT_*). Units of earlier versions get
// UnitCompile, or UnitType for .debug_types units.
const (
	UnitCompile      = 0x01
	UnitType         = 0x02
	UnitPartial      = 0x03
	UnitSkeleton     = 0x04
	UnitSplitCompile = 0x05
	UnitSplitType    = 0x06
)

// Section names a section holding units.
type Section uint8

// The sections DIEs live in.
const (
	SecInfo  Section = iota // .debug_info
	SecTypes                // .debug_types (DWARF 4 type units)
)

func (s Section) String() string {
	if s == SecTypes {
		return ".debug_types"
	}
	return ".debug_info"
}
