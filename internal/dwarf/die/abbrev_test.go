package die

import (
	"strings"
	"testing"
)

// TestAbbrevImplicitLimit checks the bound of attrSpec's implicit index: a
// table with maxImplicit DW_FORM_implicit_const attributes keeps every value,
// one more is a clear error rather than a wrapped index.
func TestAbbrevImplicitLimit(t *testing.T) {
	table := func(n int) []byte {
		b := []byte{1, 0x13, 0} // code 1, DW_TAG_structure_type, no children
		for i := range n {
			// DW_AT_byte_size, DW_FORM_implicit_const, SLEB128 value i%64
			b = append(b, 0x0b, 0x21, byte(i%64))
		}
		return append(b, 0, 0, 0)
	}
	tests := []struct {
		n       int
		wantErr string
	}{
		{1, ""},
		{maxImplicit, ""},
		{maxImplicit + 1, "implicit constants"},
	}
	var sc abbrevScratch
	for _, tt := range tests {
		tab, err := parseAbbrevTable(table(tt.n), 0, &sc, false)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%d implicit constants: err = %v, want one containing %q", tt.n, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%d implicit constants: %v", tt.n, err)
		}
		a := tab.lookup(1)
		if a == nil || int(a.n) != tt.n || len(tab.specs) != tt.n {
			t.Fatalf("%d implicit constants: abbreviation %+v, %d specs", tt.n, a, len(tab.specs))
		}
		for i, s := range tab.specs {
			if got := tab.implicit[s.implicit]; got != int64(i%64) {
				t.Fatalf("%d implicit constants: spec %d reads %d, want %d", tt.n, i, got, i%64)
			}
		}
	}
}
