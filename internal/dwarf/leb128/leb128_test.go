package leb128

import (
	"bytes"
	"math"
	"testing"
)

// TestKnownEncodings checks the examples of DWARF 5's figures 7.22 and
// 7.23 both ways.
func TestKnownEncodings(t *testing.T) {
	for _, c := range []struct {
		v   uint64
		enc []byte
	}{
		{2, []byte{2}}, {127, []byte{127}}, {128, []byte{0x80, 1}}, {129, []byte{0x81, 1}},
		{130, []byte{0x82, 1}}, {12857, []byte{0xb9, 100}},
	} {
		if got := AppendUint(nil, c.v); !bytes.Equal(got, c.enc) {
			t.Errorf("AppendUint(%d) = % x, want % x", c.v, got, c.enc)
		}
		v, p, ok := Uint(c.enc, 0)
		if !ok || v != c.v || p != len(c.enc) {
			t.Errorf("Uint(% x) = %d, %d, %v", c.enc, v, p, ok)
		}
	}
	for _, c := range []struct {
		v   int64
		enc []byte
	}{
		{2, []byte{2}}, {-2, []byte{0x7e}}, {127, []byte{0xff, 0}}, {-127, []byte{0x81, 0x7f}},
		{128, []byte{0x80, 1}}, {-128, []byte{0x80, 0x7f}}, {129, []byte{0x81, 1}}, {-129, []byte{0xff, 0x7e}},
	} {
		if got := AppendInt(nil, c.v); !bytes.Equal(got, c.enc) {
			t.Errorf("AppendInt(%d) = % x, want % x", c.v, got, c.enc)
		}
		v, p, ok := Int(c.enc, 0)
		if !ok || v != c.v || p != len(c.enc) {
			t.Errorf("Int(% x) = %d, %d, %v", c.enc, v, p, ok)
		}
	}
}

// TestLimits: truncated numbers fail at the end of the input, and bits past
// the 64th are dropped.
func TestLimits(t *testing.T) {
	if v, p, ok := Uint([]byte{0x81, 0x82}, 0); ok || p != 2 || v != 1|2<<7 {
		t.Errorf("truncated: %d, %d, %v", v, p, ok)
	}
	if _, p, ok := Uint(nil, 0); ok || p != 0 {
		t.Errorf("empty: %d, %v", p, ok)
	}
	long := append(bytes.Repeat([]byte{0xff}, 12), 0x01)
	if v, p, ok := Uint(long, 0); !ok || p != len(long) || v != math.MaxUint64 {
		t.Errorf("long: %#x, %d, %v", v, p, ok)
	}
	for _, v := range []int64{math.MinInt64, math.MaxInt64, -1, 0} {
		if got, _, ok := Int(AppendInt(nil, v), 0); !ok || got != v {
			t.Errorf("Int(AppendInt(%d)) = %d", v, got)
		}
	}
	if p, ok := Skip([]byte{0x80, 1, 5, 0x80}, 0, 2); !ok || p != 3 {
		t.Errorf("Skip 2: %d, %v", p, ok)
	}
	if _, ok := Skip([]byte{0x80, 1, 5, 0x80}, 0, 3); ok {
		t.Error("Skip past the end succeeded")
	}
}

// TestPutUint: a padded field reads back as the value.
func TestPutUint(t *testing.T) {
	b := make([]byte, 4)
	PutUint(b, 300)
	if v, p, ok := Uint(b, 0); !ok || p != 4 || v != 300 {
		t.Errorf("PutUint(4 bytes, 300) = % x, reads %d, %d, %v", b, v, p, ok)
	}
}

// FuzzUint: what AppendUint writes, Uint reads back, and Uint never reads
// past its input.
func FuzzUint(f *testing.F) {
	f.Add([]byte{0xe5, 0x8e, 0x26}, uint64(624485))
	f.Fuzz(func(t *testing.T, b []byte, v uint64) {
		if got, p, ok := Uint(AppendUint(nil, v), 0); !ok || got != v || p != len(AppendUint(nil, v)) {
			t.Fatalf("round trip of %d: %d", v, got)
		}
		if _, p, ok := Uint(b, 0); p > len(b) || ok && p == 0 {
			t.Fatalf("Uint(% x) ends at %d", b, p)
		}
		if _, p, _ := Int(b, 0); p > len(b) {
			t.Fatalf("Int(% x) ends at %d", b, p)
		}
	})
}

// BenchmarkUint reads a mix of one- and multi-byte numbers.
func BenchmarkUint(b *testing.B) {
	var buf []byte
	for i := range 1024 {
		buf = AppendUint(buf, uint64(i*i))
	}
	b.ReportAllocs()
	for b.Loop() {
		for p := 0; p < len(buf); {
			_, p, _ = Uint(buf, p)
		}
	}
}
