package btf

import (
	"cmp"
	"fmt"
	"slices"
)

// ValidateBlob decodes a BTF blob (split on base when base is not nil) and
// applies every rule of the kernel's verifier: the header and section-layout
// rules that only the raw bytes show, the decoding checks of [Parse], and
// the semantic rules of [Spec.ValidateWith]. It returns the decoded Spec
// when the blob is valid.
//
// The layout rules beyond those of [ParseHeader]: the type, string and kind
// layout sections must tile the data after the header exactly (no gap, no
// trailing bytes), the string section must come last unless the header has
// the layout fields (with opts.LayoutSection: the rules of the kernels that
// added them; older ones refuse such a header unless the fields are zero),
// a standalone blob must not be empty, and, unless opts.IgnoreLimits is set, the blob may not exceed
// KernelMaxBlobSize. Unlike the kernel, which only loads its own byte order,
// ValidateBlob accepts either byte order.
//
// Errors are a *ValidationError for a broken rule, or the *FormatError of
// ParseHeader or Parse for bytes that cannot be decoded at all.
func ValidateBlob(data []byte, base *Spec, opts ValidateOptions) (*Spec, error) {
	if !opts.IgnoreLimits && len(data) > KernelMaxBlobSize {
		return nil, blobErrorf("", "blob of %d bytes exceeds the kernel's limit of %d bytes", len(data), KernelMaxBlobSize)
	}
	if !opts.LayoutSection {
		if err := checkOldHeader(data); err != nil {
			return nil, err
		}
	}
	h, _, err := ParseHeader(data)
	if err != nil {
		return nil, err
	}
	if err := checkLayout(h, len(data), base != nil, opts.LayoutSection); err != nil {
		return nil, err
	}
	s, err := Parse(data, base)
	if err != nil {
		return nil, err
	}
	if err := s.ValidateWith(opts); err != nil {
		return nil, err
	}
	return s, nil
}

// checkOldHeader applies the header rule of kernels without the kind layout
// section (layout.go), whose header ends after str_len: every byte up to
// hdr_len beyond it is zero. A blob too short to tell, or not BTF, is left
// to ParseHeader.
func checkOldHeader(data []byte) error {
	if len(data) < 8 {
		return nil
	}
	order := magicOrder(data)
	if order == nil {
		return nil
	}
	end := uint64(order.Uint32(data[4:]))
	if end > uint64(len(data)) {
		return nil
	}
	for i := uint64(HeaderLen); i < end; i++ {
		if data[i] != 0 {
			return &ValidationError{Kernel: "Unsupported btf_header",
				Rule: fmt.Sprintf("offset %#x: unknown non-zero header byte (kernels without the kind layout section have no header field past the 24th byte)", i)}
		}
	}
	return nil
}

// checkLayout applies the kernel's section-layout rules to a header that
// ParseHeader accepted.
func checkLayout(h Header, size int, split, layoutRules bool) error {
	if !split && uint32(size) == h.HdrLen {
		return blobErrorf("No data", "blob holds a header and nothing else")
	}
	type section struct {
		name     string
		off, len uint32
	}
	secs := []section{{"type", h.TypeOff, h.TypeLen}, {"string", h.StrOff, h.StrLen}}
	if layoutRules && h.LayoutLen != 0 {
		secs = append(secs, section{"layout", h.LayoutOff, h.LayoutLen})
	}
	// The kernel visits the sections sorted by offset, then length.
	slices.SortStableFunc(secs, func(a, b section) int {
		return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.len, b.len))
	})
	body := uint32(size) - h.HdrLen
	var end uint32
	for _, s := range secs {
		switch {
		case s.off > body:
			return blobErrorf("Invalid section offset", "%s section offset %d is beyond the %d bytes after the header", s.name, s.off, body)
		case s.off > end:
			return blobErrorf("Unsupported section found", "%d unknown bytes before the %s section", s.off-end, s.name)
		case s.off < end:
			return blobErrorf("Section overlap found", "%s section at %d overlaps the previous section ending at %d", s.name, s.off, end)
		case body-end < s.len:
			return blobErrorf("Total section length too long", "%s section of %d bytes at %d extends beyond the data", s.name, s.len, s.off)
		}
		end += s.len
	}
	if end != body {
		return blobErrorf("Unsupported section found", "%d bytes after the last section belong to no section", body-end)
	}
	// With the layout fields, the kernels that know them no longer ask
	// for this.
	if (!layoutRules || h.HdrLen < LayoutHeaderLen) && h.StrOff+h.StrLen != body {
		return blobErrorf("String section is not at the end", "the string section must be the last section")
	}
	return nil
}
