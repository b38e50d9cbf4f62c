package elfio

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// MaxDecompressedSize bounds the size a compressed section may claim to
// decompress to (4 GiB, or the address space's limit on 32-bit hosts). A
// larger claim is rejected before any memory is allocated.
const MaxDecompressedSize = min(4<<30, math.MaxInt)

// Compression formats set hard limits on how far input can expand: a
// deflate stream cannot grow by more than 1032 times, and a zstd block,
// even run-length encoded, turns at least 4 bytes into at most 128 KiB. A
// declared size beyond these ratios is a lie and is rejected up front, so
// crafted headers cannot make us allocate gigabytes for a few bytes.
const (
	maxZlibRatio = 1032
	maxZstdRatio = 128 << 10 / 4
	ratioSlack   = 64 << 10
)

// SectionData returns the contents of section s. Plain sections are
// returned as a slice of the file's read-only memory, without copying: the
// caller must never write into it, and must not use it after Close.
// Sections flagged SHF_COMPRESSED (zlib or zstd) and legacy GNU ".zdebug_*"
// sections starting with "ZLIB" are decompressed into a new slice, which the
// caller owns. SHT_NOBITS sections yield nil. No relocations are applied;
// see DWARFSections for that.
func (f *File) SectionData(s *Section) ([]byte, error) {
	b, _, err := f.sectionData(s)
	return b, err
}

// sectionData is SectionData, also telling whether the bytes are a new
// slice (owned) rather than the file's memory.
func (f *File) sectionData(s *Section) (b []byte, owned bool, err error) {
	raw, err := f.rawData(s)
	if err != nil || raw == nil {
		return raw, false, err
	}
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		b, err = f.decompressELF(s, raw)
		return b, true, err
	}
	if strings.HasPrefix(s.Name, ".zdebug") && bytes.HasPrefix(raw, []byte("ZLIB")) {
		b, err = f.decompressGNU(s, raw)
		return b, true, err
	}
	return raw, false, nil
}

// decompressELF decodes a section with an ELF compression header
// (Elf32_Chdr or Elf64_Chdr) in front of its compressed stream.
func (f *File) decompressELF(s *Section, raw []byte) ([]byte, error) {
	bo := f.ByteOrder
	var typ elf.CompressionType
	var size uint64
	var hdr int
	if f.Class == elf.ELFCLASS32 {
		hdr = 12
		if len(raw) < hdr {
			return nil, f.secErrorf(s, 0, nil, "compressed section shorter (%d bytes) than its %d-byte header", len(raw), hdr)
		}
		typ = elf.CompressionType(bo.Uint32(raw))
		size = uint64(bo.Uint32(raw[4:]))
	} else {
		hdr = 24
		if len(raw) < hdr {
			return nil, f.secErrorf(s, 0, nil, "compressed section shorter (%d bytes) than its %d-byte header", len(raw), hdr)
		}
		typ = elf.CompressionType(bo.Uint32(raw))
		size = bo.Uint64(raw[8:])
	}
	switch typ {
	case elf.COMPRESS_ZLIB:
		return f.inflate(s, raw[hdr:], size, hdr)
	case elf.COMPRESS_ZSTD:
		return f.unzstd(s, raw[hdr:], size, hdr)
	}
	return nil, f.secErrorf(s, 0, nil, "unknown compression type %d", uint32(typ))
}

// decompressGNU decodes a legacy ".zdebug_*" section: "ZLIB", the
// uncompressed size as 8 big-endian bytes, then a zlib stream.
func (f *File) decompressGNU(s *Section, raw []byte) ([]byte, error) {
	const hdr = 12
	if len(raw) < hdr {
		return nil, f.secErrorf(s, 0, nil, "compressed section shorter (%d bytes) than its %d-byte ZLIB header", len(raw), hdr)
	}
	return f.inflate(s, raw[hdr:], binary.BigEndian.Uint64(raw[4:]), hdr)
}

// checkSize rejects a declared decompressed size that is absurd for the
// compressed bytes available (see maxZlibRatio) or beyond
// MaxDecompressedSize.
func (f *File) checkSize(s *Section, size uint64, compressed, ratio int, hdr int) error {
	if size > MaxDecompressedSize {
		return f.secErrorf(s, 0, nil, "declared decompressed size %#x exceeds the limit of %#x", size, uint64(MaxDecompressedSize))
	}
	if size > uint64(compressed)*uint64(ratio)+ratioSlack {
		return f.secErrorf(s, int64(hdr), nil, "declared decompressed size %#x is impossible for %d compressed bytes", size, compressed)
	}
	return nil
}

// inflate decompresses the zlib stream src, which must yield exactly size
// bytes and end there with a valid checksum. hdr is the stream's offset in
// the section, for messages.
func (f *File) inflate(s *Section, src []byte, size uint64, hdr int) ([]byte, error) {
	if err := f.checkSize(s, size, len(src), maxZlibRatio, hdr); err != nil {
		return nil, err
	}
	zr, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, f.secErrorf(s, int64(hdr), err, "zlib stream")
	}
	defer zr.Close()
	out := make([]byte, size)
	if n, err := io.ReadFull(zr, out); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, f.secErrorf(s, int64(hdr), nil, "zlib stream ends after %d bytes, header says %d", n, size)
		}
		return nil, f.secErrorf(s, int64(hdr), err, "zlib stream")
	}
	// Reading on checks the trailing checksum and that nothing follows.
	var one [1]byte
	if n, err := zr.Read(one[:]); n > 0 {
		return nil, f.secErrorf(s, int64(hdr), nil, "zlib stream longer than the declared %d bytes", size)
	} else if err != io.EOF {
		return nil, f.secErrorf(s, int64(hdr), err, "zlib stream")
	}
	return out, nil
}

// zstdDecoder is shared by all files; DecodeAll may run concurrently. It
// never produces more than the capacity of the buffer it is given.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderMaxMemory(MaxDecompressedSize),
		zstd.WithDecoderConcurrency(0))
})

// unzstd decompresses the zstd frames in src, which must yield exactly size
// bytes.
func (f *File) unzstd(s *Section, src []byte, size uint64, hdr int) ([]byte, error) {
	if err := f.checkSize(s, size, len(src), maxZstdRatio, hdr); err != nil {
		return nil, err
	}
	dec, err := zstdDecoder()
	if err != nil {
		return nil, fmt.Errorf("setting up the zstd decoder: %w", err)
	}
	out, err := dec.DecodeAll(src, make([]byte, 0, size))
	if err != nil {
		return nil, f.secErrorf(s, int64(hdr), err, "zstd stream (declared size %d)", size)
	}
	if uint64(len(out)) != size {
		return nil, f.secErrorf(s, int64(hdr), nil, "zstd stream yields %d bytes, header says %d", len(out), size)
	}
	return out, nil
}

// UncompressedSize returns the size of section s's contents once
// decompressed: the size its ELF compression header declares when it is
// SHF_COMPRESSED (and the header is there), else its size as stored. (A
// legacy .zdebug_* section counts as stored, as debug/elf counts it.)
func (f *File) UncompressedSize(s *Section) uint64 {
	if s.Flags&elf.SHF_COMPRESSED == 0 || s.Type == elf.SHT_NOBITS {
		return s.Size
	}
	raw, err := f.rawData(s)
	if err != nil {
		return s.Size
	}
	if f.Class == elf.ELFCLASS32 {
		if len(raw) >= 12 {
			return uint64(f.ByteOrder.Uint32(raw[4:]))
		}
	} else if len(raw) >= 24 {
		return f.ByteOrder.Uint64(raw[8:])
	}
	return s.Size
}
