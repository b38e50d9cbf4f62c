package elfio

import (
	"bytes"
	"debug/elf"
	"fmt"
)

// ReadSplitBTF is ReadBTF for files that may carry a distilled base, as an
// out-of-tree kernel module built with pahole's distilled_base feature does:
// it returns the .BTF bytes and, when the ELF file also has a .BTF.base
// section, that section's bytes (the distilled base the .BTF is split on;
// nil otherwise). Raw BTF input has no distilled base. Compressed modules
// are read as ReadBTFFile reads them. Errors name the file and section.
func ReadSplitBTF(path string) (data, base []byte, err error) {
	f, err := ReadBTFFile(path)
	if err != nil {
		return nil, nil, err
	}
	if f.ELF && f.BTF == nil {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNoBTF)
	}
	return f.BTF, f.Base, nil
}

// btfSection returns a copy of the named section's contents (decompressed if
// need be), or nil when the file has no such section.
func (f *File) btfSection(path, name string) ([]byte, error) {
	sec := f.Section(name)
	if sec == nil {
		return nil, nil
	}
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("%s: section %s: has no contents (SHT_NOBITS)", path, name)
	}
	b, owned, err := f.sectionData(sec)
	if err != nil {
		return nil, err
	}
	if !owned {
		b = bytes.Clone(b) // the mapping goes away with Close
	}
	return b, nil
}

// SectionBTF returns a copy of the named section's contents (decompressed
// if need be), for BTF sections such as .BTF and .BTF.base: nil when the
// file has no such section; an error naming the file and section for one
// without contents.
func (f *File) SectionBTF(name string) ([]byte, error) { return f.btfSection(f.name, name) }
