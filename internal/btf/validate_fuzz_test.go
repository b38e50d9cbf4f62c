package btf_test

import (
	"errors"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// FuzzValidate feeds arbitrary bytes to ValidateBlob. It must never panic
// (the validator follows references the blob controls), it must return a
// *ValidationError or a *FormatError for whatever it rejects, and a blob it
// accepts must decode to a Spec that Validate accepts too.
func FuzzValidate(f *testing.F) {
	for _, tc := range ruleCases {
		_, data := ruleBlob(tc)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{})
		if err != nil {
			var ve *btf.ValidationError
			var fe *btf.FormatError
			if !errors.As(err, &ve) && !errors.As(err, &fe) {
				t.Fatalf("error %T %v is neither a ValidationError nor a FormatError", err, err)
			}
			// Whatever Parse decodes must be safe to validate.
			if p, perr := btf.Parse(data, nil); perr == nil {
				_ = p.Validate()
				_ = p.ValidateWith(btf.ValidateOptions{IgnoreLimits: true})
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("ValidateBlob accepted a blob whose Spec Validate rejects: %v", err)
		}
	})
}
