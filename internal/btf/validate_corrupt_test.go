package btf_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestValidateCorrupt checks that each corruption is rejected with its
// specific message.
func TestValidateCorrupt(t *testing.T) {
	seen := map[string]string{}
	for _, tc := range testutil.Corruptions {
		if prev, ok := seen[tc.Want]; ok {
			t.Errorf("cases %q and %q expect the same message %q; each should break a distinct rule", prev, tc.Name, tc.Want)
		}
		seen[tc.Want] = tc.Name
	}
	testutil.ForEachCorruption(t, func(t *testing.T, tc testutil.Corruption, data []byte, base *btf.Spec, _ []byte) {
		_, err := btf.ValidateBlob(data, base, btf.ValidateOptions{})
		if err == nil {
			t.Fatalf("accepted; want an error containing %q", tc.Want)
		}
		for _, part := range strings.Split(tc.Want, "|") {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not contain %q", err, part)
			}
		}
		var ve *btf.ValidationError
		var fe *btf.FormatError
		switch {
		case errors.As(err, &ve):
			if ve.Kernel != "" && !strings.Contains(tc.Kernel, ve.Kernel) && !strings.Contains(ve.Kernel, tc.Kernel) {
				t.Errorf("kernel phrase %q does not match the kernel's %q", ve.Kernel, tc.Kernel)
			}
		case errors.As(err, &fe):
		default:
			t.Errorf("error %T is neither a *ValidationError nor a *FormatError", err)
		}
	})
}
