package btf

// String-section and name rules of the kernel's BTF verifier.

// checkStrings applies the kernel's string-section rules to every layer of
// the chain. A base section must be non-empty, start with the empty string
// (a NUL at offset 0) and end with a NUL. A split section may be empty, and
// otherwise must end with a NUL; it need not start with one, since its
// offsets continue the base's. No section may be longer than the highest
// string offset allows.
func (v *validator) checkStrings() error {
	for _, l := range v.layers {
		data := l.spec.strs.data
		split := l.spec.base != nil
		switch {
		case split && len(data) == 0:
			continue
		case len(data) == 0:
			return blobErrorf("Invalid string section", "string section is empty (it must hold at least the empty string)")
		case uint64(len(data))-1 > uint64(v.maxNameOff):
			return blobErrorf("Invalid string section", "string section of %d bytes exceeds the kernel's offset limit %#x", len(data), KernelMaxNameOffset)
		case data[len(data)-1] != 0:
			return blobErrorf("Invalid string section", "string section does not end with a NUL byte")
		case !split && data[0] != 0:
			return blobErrorf("Invalid string section", "string section does not start with a NUL byte (offset 0 must be the empty string)")
		}
	}
	return nil
}

// nameOffValid reports whether off addresses a byte of the chain's string
// sections within the kernel's offset limit.
func (v *validator) nameOffValid(off uint32) bool {
	return off <= v.maxNameOff && off < v.strs.Len()
}

// strAt returns the bytes from offset off to the end of the string section
// holding it. off must be valid.
func (v *validator) strAt(off uint32) []byte {
	st := v.strs
	for off < st.start {
		st = st.base
	}
	return st.data[off-st.start:]
}

// Bits of validator.names, one byte per string offset: whether the string
// at that offset has been classified, and whether it is a valid identifier
// and a valid section name. Names repeat a lot (a vmlinux before
// deduplication names the same member millions of times), so each distinct
// offset is scanned once.
const (
	nameClassified = 1 << iota
	nameIdentOK
	nameSectionOK
)

// nameClass classifies the string at the valid offset off.
// With v.own only the Spec's own strings are memoised: a module's BTF is
// small next to the vmlinux strings its names also point into.
func (v *validator) nameClass(off uint32) uint8 {
	memoStart := uint32(0)
	if v.own {
		memoStart = v.strs.start
	}
	if off < memoStart {
		return classifyName(v.strAt(off))
	}
	if v.names == nil {
		v.names = make([]uint8, v.strs.Len()-memoStart)
	}
	if c := v.names[off-memoStart]; c != 0 {
		return c
	}
	c := classifyName(v.strAt(off))
	v.names[off-memoStart] = c
	return c
}

// classifyName computes the name classes of the string at the start of b.
func classifyName(b []byte) uint8 {
	c := uint8(nameClassified)
	if identOK(b) {
		c |= nameIdentOK
	}
	if sectionOK(b) {
		c |= nameSectionOK
	}
	return c
}

// validIdent reports whether the string at the valid offset off is a name
// the kernel accepts for a type, member, enumerator, function, parameter or
// variable.
func (v *validator) validIdent(off uint32) bool { return v.nameClass(off)&nameIdentOK != 0 }

// validSection reports whether the string at the valid offset off is a
// name the kernel accepts for a DATASEC: any printable string, or, under
// the rules with DatasecIdentNames, an identifier.
func (v *validator) validSection(off uint32) bool {
	if v.opts.Rules.DatasecIdentNames {
		return v.validIdent(off)
	}
	return v.nameClass(off)&nameSectionOK != 0
}

// nonEmpty reports whether the string at the valid offset off is not empty.
func (v *validator) nonEmpty(off uint32) bool {
	b := v.strAt(off)
	return len(b) > 0 && b[0] != 0
}

// identOK applies the kernel's identifier rule to the NUL-terminated string
// at the start of b: a letter, '_' or '.' first, then letters, digits, '_'
// or '.', at most KernelMaxNameLen bytes. "Letter" follows the kernel's
// Latin-1 character classes, so bytes 0xc0-0xff other than 0xd7 and 0xf7
// count as letters.
func identOK(b []byte) bool {
	if len(b) == 0 || !identByte(b[0], true) {
		return false
	}
	for i := 1; i < len(b); i++ {
		c := b[i]
		if c == 0 {
			return true
		}
		if i == KernelMaxNameLen || !identByte(c, false) {
			return false
		}
	}
	return false // no terminator: cannot happen after checkStrings
}

// sectionOK applies the kernel's DATASEC name rule: non-empty, printable
// bytes only (Latin-1 printable, so 0xa0-0xff count), at most
// KernelMaxNameLen bytes.
func sectionOK(b []byte) bool {
	if len(b) == 0 || b[0] == 0 {
		return false
	}
	for i, c := range b {
		if c == 0 {
			return true
		}
		if i == KernelMaxNameLen || !printByte(c) {
			return false
		}
	}
	return false
}

// letterByte reports whether the kernel's ctype tables class c as a letter.
func letterByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	case c >= 0xc0:
		return c != 0xd7 && c != 0xf7
	}
	return false
}

func identByte(c byte, first bool) bool {
	return letterByte(c) || c == '_' || c == '.' || !first && c >= '0' && c <= '9'
}

// printByte reports whether the kernel's ctype tables class c as printable.
func printByte(c byte) bool { return c >= 0x20 && c <= 0x7e || c >= 0xa0 }
