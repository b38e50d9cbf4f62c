package btf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// paholeLayoutBlob is testdata/pahole/layout.pahole.btf: pahole's output
// with a kind layout section (dwarves master 1436daf with libbpf 1.8.0, see
// cmd/gobtf/layout_test.go).
func paholeLayoutBlob(t *testing.T) []byte {
	return testutil.Testdata(t, "pahole", "layout.pahole.btf")
}

// TestKindLayoutsMatchPahole compares KindLayouts with the table libbpf
// wrote into pahole's output, and checks that the blob decodes and encodes
// back byte for byte.
func TestKindLayoutsMatchPahole(t *testing.T) {
	data := paholeLayoutBlob(t)
	h, _, err := btf.ParseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	if h.HdrLen != btf.LayoutHeaderLen || h.LayoutLen == 0 {
		t.Fatalf("pahole's blob: hdr_len %d, layout_len %d", h.HdrLen, h.LayoutLen)
	}
	s, err := btf.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Layout(), btf.KindLayouts(); !slices.Equal(got, want) {
		t.Errorf("layout table:\n got (pahole) %v\nwant (KindLayouts) %v", got, want)
	}
	if out := s.Marshal(s.ByteOrder()); !bytes.Equal(out, data) {
		t.Errorf("re-encoded blob differs from pahole's:\n% x\nwant\n% x", out, data)
	}
	in, err := btf.ParseInPlace(append([]byte(nil), data...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Layout(), s.Layout()) {
		t.Errorf("ParseInPlace layout %v, Parse %v", in.Layout(), s.Layout())
	}
}

// TestLayoutByteOrders encodes a Spec with a layout table in both byte
// orders and decodes it back, and checks where the sections lie: types,
// then the table, then strings, as libbpf writes them.
func TestLayoutByteOrders(t *testing.T) {
	s := btf.NewSpec(nil)
	i := s.AddInt("int", 4, btf.IntSigned, 32)
	s.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "a", Type: i}})
	l := btf.KindLayouts()
	l[3].Flags = 0x0102 // not written by anyone yet, but kept in its order
	s.SetLayout(l)
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		t.Run(order.String(), func(t *testing.T) {
			data := s.Marshal(order)
			h, got, err := btf.ParseHeader(data)
			if err != nil {
				t.Fatal(err)
			}
			if got != order {
				t.Fatalf("decoded as %v", got)
			}
			if h.HdrLen != btf.LayoutHeaderLen || h.TypeOff != 0 || h.LayoutOff != h.TypeLen ||
				h.LayoutLen != uint32(4*len(l)) || h.StrOff != h.LayoutOff+h.LayoutLen {
				t.Errorf("header %+v: want types at 0, the table after them, strings last", h)
			}
			back, err := btf.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back.Layout(), l) {
				t.Errorf("layout %v, want %v", back.Layout(), l)
			}
			if !bytes.Equal(back.Marshal(order), data) {
				t.Error("encoding is not stable")
			}
		})
	}
}

// TestParseLayoutErrors corrupts the layout fields of pahole's blob.
func TestParseLayoutErrors(t *testing.T) {
	le := binary.LittleEndian
	good := paholeLayoutBlob(t)
	h, _, err := btf.ParseHeader(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		off, len uint32
		at       int
		want     string
	}{
		{"unaligned offset", h.LayoutOff + 2, h.LayoutLen - 4, 24, "not 4-byte aligned"},
		{"partial entry", h.LayoutOff, h.LayoutLen - 2, 28, "not a multiple of 4"},
		{"past the end", h.LayoutOff, h.LayoutLen + h.StrLen + 4, 24, "exceeds data"},
		{"over the types", h.LayoutOff - 4, h.LayoutLen, 24, "overlaps the type section"},
		{"over the strings", h.LayoutOff + 4, h.LayoutLen, 24, "overlaps the string section"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := append([]byte(nil), good...)
			le.PutUint32(data[24:], tc.off)
			le.PutUint32(data[28:], tc.len)
			_, err := btf.Parse(data, nil)
			var fe *btf.FormatError
			if !errors.As(err, &fe) || fe.Offset != tc.at || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want a FormatError at %#x containing %q", err, tc.at, tc.want)
			}
		})
	}
	// A zero length with an offset set is no section, to libbpf and the
	// kernel alike.
	data := append([]byte(nil), good...)
	le.PutUint32(data[28:], 0)
	if s, err := btf.Parse(data, nil); err != nil || s.Layout() != nil {
		t.Errorf("layout_len 0: %v, layout %v; want no error and no table", err, s.Layout())
	}
}

// TestValidateBlobLayout applies both rule sets to pahole's blob: kernels
// that predate the section refuse its header, later ones take it.
func TestValidateBlobLayout(t *testing.T) {
	data := paholeLayoutBlob(t)
	_, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{})
	var ve *btf.ValidationError
	if !errors.As(err, &ve) || ve.Kernel != "Unsupported btf_header" {
		t.Errorf("old rules: %v; want the kernel's \"Unsupported btf_header\"", err)
	}
	if _, err := btf.ValidateBlob(data, nil, btf.ValidateOptions{LayoutSection: true}); err != nil {
		t.Errorf("layout rules: %v", err)
	}
	// A gap between the table and the strings is no section's: refused.
	gap := append([]byte(nil), data...)
	h, _, _ := btf.ParseHeader(gap)
	binary.LittleEndian.PutUint32(gap[28:], h.LayoutLen-4)
	if _, err := btf.ValidateBlob(gap, nil, btf.ValidateOptions{LayoutSection: true}); !errors.As(err, &ve) || ve.Kernel != "Unsupported section found" {
		t.Errorf("gap before the strings: %v; want \"Unsupported section found\"", err)
	}
}
