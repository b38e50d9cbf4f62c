// Package elfio reads and writes the ELF files gobtf works on: their sections,
// symbols and debug sections on the way in, and the .BTF section on the way
// out.
package elfio

import (
	"bytes"
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
	return f.readBTF(path)
}

// readBTF returns a copy of the .BTF section's contents (decompressed if need
// be), with ReadBTF's errors.
func (f *File) readBTF(path string) ([]byte, error) {
	b, err := f.btfSection(path, ".BTF")
	if err == nil && b == nil {
		err = fmt.Errorf("%s: %w", path, ErrNoBTF)
	}
	return b, err
}
