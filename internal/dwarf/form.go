package dwarf

// Form is an attribute encoding (DW_FORM_*), which says how an attribute's
// value is stored.
type Form uint16

// The forms of DWARF 2 to 5 (DWARF 5, section 7.5.6) and the GNU
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

// IsConst reports whether values of form f are integer constants (as
// opposed to references, blocks, strings or expressions).
func (f Form) IsConst() bool {
	switch f {
	case FormData1, FormData2, FormData4, FormData8, FormSdata, FormUdata, FormImplicitConst:
		return true
	}
	return false
}

// IsBlock reports whether values of form f are blocks of bytes: blocks and
// expressions.
func (f Form) IsBlock() bool {
	switch f {
	case FormBlock, FormBlock1, FormBlock2, FormBlock4, FormExprloc:
		return true
	}
	return false
}

// IsString reports whether values of form f are strings, in the DIE or in
// a string section (supplementary files' aside).
func (f Form) IsString() bool {
	switch f {
	case FormString, FormStrp, FormLineStrp, FormStrx, FormStrx1, FormStrx2, FormStrx3, FormStrx4:
		return true
	}
	return false
}

// IsStrx reports whether f is one of the fixed-size string index forms,
// strx1 to strx4.
func (f Form) IsStrx() bool { return f >= FormStrx1 && f <= FormStrx4 }
