package elfio

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
)

// fixtureFile returns the path of the named fixture, skipping the test
// when it could not be built.
func fixtureFile(t testing.TB, name string) string {
	t.Helper()
	for _, fx := range buildFixtures(t) {
		if fx.name == name {
			if fx.path == "" {
				t.Skipf("skipping: fixture %s: %s", name, fx.skip)
			}
			return fx.path
		}
	}
	t.Fatalf("no fixture %s", name)
	return ""
}

// TestCompressionFixtures checks that the compressed fixtures, which the
// comparisons with readelf and debug/elf decompress, really use each
// format, so those comparisons cover zlib, zstd and the GNU .zdebug form.
func TestCompressionFixtures(t *testing.T) {
	tests := []struct {
		fixture, section string
		chType           elf.CompressionType // 0 for the .zdebug form
	}{
		{"gcc-x86_64-gz-zlib", ".debug_info", elf.COMPRESS_ZLIB},
		{"gcc-i386-gz-zlib", ".debug_info", elf.COMPRESS_ZLIB},
		{"clang-s390x-gz-zlib", ".debug_info", elf.COMPRESS_ZLIB},
		{"gcc-x86_64-zstd", ".debug_info", elf.COMPRESS_ZSTD},
		{"gcc-x86_64-gz-zlib-gnu", ".zdebug_info", 0},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			f, err := Open(fixtureFile(t, tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s := f.Section(tc.section)
			if s == nil {
				t.Fatalf("no section %s", tc.section)
			}
			raw, err := f.rawData(s)
			if err != nil {
				t.Fatal(err)
			}
			if tc.chType == 0 {
				if !bytes.HasPrefix(raw, []byte("ZLIB")) {
					t.Fatalf("%s does not start with ZLIB", tc.section)
				}
			} else if s.Flags&elf.SHF_COMPRESSED == 0 || elf.CompressionType(f.ByteOrder.Uint32(raw)) != tc.chType {
				t.Fatalf("%s is not compressed with %v", tc.section, tc.chType)
			}
			data, err := f.SectionData(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) <= len(raw) {
				t.Errorf("decompressed %d bytes into only %d", len(raw), len(data))
			}
			d, err := f.DWARFSections()
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Info) != len(data) {
				t.Errorf("DWARFSections: .debug_info has %d bytes, SectionData %d", len(d.Info), len(data))
			}
		})
	}
}

// TestDecompressionErrors corrupts compressed sections and checks for
// errors naming the section instead of panics or huge allocations.
func TestDecompressionErrors(t *testing.T) {
	type mutation func(f *File, b []byte, off int)
	setSize64 := func(v uint64) mutation {
		return func(f *File, b []byte, off int) { f.ByteOrder.PutUint64(b[off+8:], v) }
	}
	tests := []struct {
		name, fixture, section string
		mutate                 mutation
		want                   string
	}{
		{"zlib size bomb", "gcc-x86_64-gz-zlib", ".debug_info", setSize64(1 << 31), "is impossible for"},
		{"zlib over limit", "gcc-x86_64-gz-zlib", ".debug_info", setSize64(1 << 40), "exceeds the limit"},
		{"zlib too short", "gcc-x86_64-gz-zlib", ".debug_info", func(f *File, b []byte, off int) {
			f.ByteOrder.PutUint64(b[off+8:], f.ByteOrder.Uint64(b[off+8:])+100)
		}, "zlib stream ends after"},
		{"zlib too long", "gcc-x86_64-gz-zlib", ".debug_info", func(f *File, b []byte, off int) {
			f.ByteOrder.PutUint64(b[off+8:], f.ByteOrder.Uint64(b[off+8:])-1)
		}, "zlib stream longer than the declared"},
		{"zlib corrupt", "gcc-x86_64-gz-zlib", ".debug_info", func(f *File, b []byte, off int) {
			for i := off + 24 + 2; i < off+24+40; i++ {
				b[i] ^= 0x5a
			}
		}, "section .debug_info: offset 0x18: zlib stream"},
		{"unknown type", "gcc-x86_64-gz-zlib", ".debug_info", func(f *File, b []byte, off int) {
			f.ByteOrder.PutUint32(b[off:], 77)
		}, "unknown compression type 77"},
		{"zlib i386 bomb", "gcc-i386-gz-zlib", ".debug_info", func(f *File, b []byte, off int) {
			f.ByteOrder.PutUint32(b[off+4:], 1<<31)
		}, "is impossible for"},
		{"zstd too long", "gcc-x86_64-zstd", ".debug_info", func(f *File, b []byte, off int) {
			f.ByteOrder.PutUint64(b[off+8:], f.ByteOrder.Uint64(b[off+8:])-1)
		}, "zstd stream"},
		{"zstd too short", "gcc-x86_64-zstd", ".debug_info", func(f *File, b []byte, off int) {
			f.ByteOrder.PutUint64(b[off+8:], f.ByteOrder.Uint64(b[off+8:])+1)
		}, "zstd stream"},
		{"zstd bomb", "gcc-x86_64-zstd", ".debug_info", setSize64(1 << 32), "is impossible for"},
		{"zstd corrupt", "gcc-x86_64-zstd", ".debug_info", func(f *File, b []byte, off int) {
			for i := off + 24 + 12; i < off+24+60; i++ {
				b[i] ^= 0xa5
			}
		}, "zstd stream"},
		{"gnu bomb", "gcc-x86_64-gz-zlib-gnu", ".zdebug_info", func(f *File, b []byte, off int) {
			binary.BigEndian.PutUint64(b[off+4:], 1<<33)
		}, "exceeds the limit"},
		{"gnu truncated stream", "gcc-x86_64-gz-zlib-gnu", ".zdebug_info", func(f *File, b []byte, off int) {
			binary.BigEndian.PutUint64(b[off+4:], binary.BigEndian.Uint64(b[off+4:])+7)
		}, "zlib stream ends after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			good, err := os.ReadFile(fixtureFile(t, tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			f0, err := NewFile("c.o", good)
			if err != nil {
				t.Fatal(err)
			}
			s := f0.Section(tc.section)
			if s == nil {
				t.Fatalf("no section %s", tc.section)
			}
			bad := bytes.Clone(good)
			tc.mutate(f0, bad, int(s.Offset))
			f, err := NewFile("c.o", bad)
			if err != nil {
				t.Fatal(err)
			}
			for _, get := range []func() error{
				func() error { _, err := f.SectionData(f.Section(tc.section)); return err },
				func() error { _, err := f.DWARFSections(); return err },
			} {
				err := get()
				t.Log(err)
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Section != tc.section || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want a *FormatError for %s containing %q", err, tc.section, tc.want)
				}
			}
		})
	}
}

// TestSectionBeyondFile checks that a section whose contents lie past the
// end of the file is reported, naming it.
func TestSectionBeyondFile(t *testing.T) {
	good := fixtureBytes(t)
	f, err := NewFile("x.o", good)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".debug_str")
	shoff := int(leUint64(good[40:]))
	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint64(bad[shoff+s.Index*64+32:], 1<<62) // sh_size
	fb, err := NewFile("x.o", bad)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fb.DWARFSections()
	if err == nil || !strings.Contains(err.Error(), "x.o: section .debug_str: contents at file offset") {
		t.Errorf("got %v", err)
	}
}
