// Package elfio reads and writes the ELF files gobtf works on: their sections,
// symbols and debug sections on the way in, and the .BTF section on the way
// out.
package elfio

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
)

// elfMagic starts every ELF file.
var elfMagic = []byte{0x7f, 'E', 'L', 'F'}

// IsELF reports whether data starts with the ELF magic.
func IsELF(data []byte) bool { return bytes.HasPrefix(data, elfMagic) }

// ErrNoBTF is wrapped by ReadBTF's error when an ELF file has no .BTF section.
var ErrNoBTF = errors.New("no .BTF section")

// ReadBTF returns the BTF bytes held by the file at path: the whole file when
// it is raw BTF, or the contents of its .BTF section when it is an ELF file
// (a copy, decompressed if need be). Errors name the file (and the section,
// for ELF input).
func ReadBTF(path string) ([]byte, error) {
	f, err := Open(path)
	if errors.Is(err, ErrNotELF) {
		return os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sec := f.Section(".BTF")
	if sec == nil {
		return nil, fmt.Errorf("%s: %w", path, ErrNoBTF)
	}
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("%s: section .BTF: has no contents (SHT_NOBITS)", path)
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
