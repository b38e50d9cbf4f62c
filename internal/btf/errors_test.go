package btf

import (
	"encoding/binary"
	"errors"
	"testing"
)

// TestErrNotBTF checks that every way of decoding BTF reports bad magic
// with an error that wraps ErrNotBTF, and only bad magic.
func TestErrNotBTF(t *testing.T) {
	bad := make([]byte, HeaderLen+16)
	binary.LittleEndian.PutUint16(bad, 0x7f45)
	short := []byte{0x9f, 0xeb}
	for _, tc := range []struct {
		name  string
		parse func([]byte) error
		data  []byte
		want  bool
	}{
		{"ParseHeader", func(b []byte) error { _, _, err := ParseHeader(b); return err }, bad, true},
		{"Parse", func(b []byte) error { _, err := Parse(b, nil); return err }, bad, true},
		{"ParseInPlace", func(b []byte) error { _, err := ParseInPlace(b, nil); return err }, bad, true},
		{"Parse, too short", func(b []byte) error { _, err := Parse(b, nil); return err }, short, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse(append([]byte(nil), tc.data...))
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, ErrNotBTF); got != tc.want {
				t.Errorf("errors.Is(%q, ErrNotBTF) = %v, want %v", err, got, tc.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%q is not a *FormatError", err)
			}
		})
	}
}
