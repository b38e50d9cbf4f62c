package elfio

import (
	"fmt"
	"strings"
)

// FormatError reports malformed or unsupported ELF input. Its message names
// the file, then the section and the offset when they are known, then what
// is wrong, for example
//
//	vmlinux: section .debug_info: offset 0x1234: relocation beyond the section's 0x1000 bytes
//
// Offset is a file offset when Section is empty; otherwise it is an offset
// into that section's contents (after decompression for errors found while
// relocating). A negative Offset means no offset is known.
type FormatError struct {
	File    string // the path given to Open, or the name given to NewFile
	Section string // the section concerned, "" for the file as a whole
	Offset  int64  // see the type's documentation; -1 when unknown
	Msg     string // what is wrong
	Err     error  // the underlying cause, if any (e.g. a decompressor's error)
}

// Error formats the error as "file: section S: offset 0xN: msg: cause",
// leaving out the parts that are unknown.
func (e *FormatError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Section != "" {
		b.WriteString(": section ")
		b.WriteString(e.Section)
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, ": offset %#x", e.Offset)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause, so errors.Is and errors.As see it.
func (e *FormatError) Unwrap() error { return e.Err }

// errorf builds a FormatError about the file as a whole at file offset off.
func (f *File) errorf(off int64, format string, args ...any) error {
	return &FormatError{File: f.name, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// secErrorf builds a FormatError about section s at offset off within it.
func (f *File) secErrorf(s *Section, off int64, cause error, format string, args ...any) error {
	name := s.Name
	if name == "" {
		name = fmt.Sprintf("#%d", s.Index)
	}
	return &FormatError{File: f.name, Section: name, Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}
