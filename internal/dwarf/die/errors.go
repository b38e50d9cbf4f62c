package die

import (
	"errors"
	"fmt"
)

// DecodeError reports malformed or unsupported DWARF: the section being read
// and the byte offset in it where decoding failed. Err says what was wrong;
// errors.Is(err, ErrUnsupported) tells input this decoder does not handle
// from input that is broken.
type DecodeError struct {
	Section string // e.g. ".debug_info", ".debug_abbrev", ".debug_str_offsets"
	Offset  uint64 // byte offset in Section
	Err     error
}

// Error formats the error like debug/dwarf's DecodeError.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("decoding dwarf section %s at offset %#x: %v", e.Section, e.Offset, e.Err)
}

// Unwrap returns the underlying cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrUnsupported is wrapped by DecodeErrors for valid DWARF this decoder
// cannot resolve, such as references into a supplementary file that was not
// supplied.
var ErrUnsupported = errors.New("unsupported")

// Causes shared by many DecodeErrors; they are preallocated so that the hot
// decoder only allocates the DecodeError itself on failure.
var (
	errTruncated = errors.New("data truncated")
	errBadAbbrev = errors.New("unknown abbreviation code")
	errBadForm   = errors.New("unknown attribute form")
)

func decodeErr(sec string, off int, err error) error {
	return &DecodeError{Section: sec, Offset: uint64(off), Err: err}
}

func decodeErrf(sec string, off int, format string, args ...any) error {
	return &DecodeError{Section: sec, Offset: uint64(off), Err: fmt.Errorf(format, args...)}
}
