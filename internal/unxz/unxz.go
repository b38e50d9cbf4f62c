// Package unxz decompresses .xz files held in memory into memory: the xz
// container (streams, blocks, index, padding; CRC32, CRC64 and SHA-256
// checks verified) around LZMA2, the one filter xz uses by default and
// BTFHub's archives use. The whole output being in memory, it is the LZMA
// dictionary itself: matches copy from the output, with no window to
// manage, and the output is allocated once (its size read from the index),
// which makes decoding faster than a streaming decoder's
// (github.com/ulikunitz/xz; BenchmarkDecode and BenchmarkDecodeUlikunitz
// compare them). Files with other filters (BCJ, delta) are ErrUnsupported:
// the caller falls back to a streaming decoder.
package unxz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"slices"
)

// ErrUnsupported is the error of an xz file this package does not decode
// (a filter other than LZMA2 alone), though it may be valid.
var ErrUnsupported = errors.New("xz filter chain other than LZMA2 alone")

// ErrTooLarge is the error of a file that decompresses beyond the limit.
var ErrTooLarge = errors.New("decompresses beyond the limit")

var (
	headerMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0}
	footerMagic = []byte{'Y', 'Z'}
	crc64Table  = crc64.MakeTable(crc64.ECMA)
)

// Decode returns the decompressed contents of the xz file in data (one or
// more streams, with stream padding between them), at most limit bytes.
// Errors give the offset in data where decoding failed.
func Decode(data []byte, limit int) ([]byte, error) {
	d := &decoder{data: data, limit: limit}
	// The hint is taken only where it is plausible (LZMA2 packs BTF about
	// fourfold), so that a forged index cannot make Decode allocate up
	// to the limit for a few bytes; past it the output grows as it is
	// decoded.
	if n := sizeHint(data); n > 0 && n <= limit && n/64 <= len(data) {
		d.out = make([]byte, 0, n)
	}
	out, err := d.file()
	if err != nil {
		return nil, fmt.Errorf("offset %#x: %w", d.off, err)
	}
	return out, nil
}

// sizeHint reads the uncompressed size of a file of one stream from the
// index its footer points to, so that the output is allocated once; 0 when
// it cannot be read (decoding then finds what is wrong). Nothing is checked
// here but what locating and reading the sizes needs.
func sizeHint(data []byte) int {
	if len(data) < 24 || !bytes.Equal(data[len(data)-2:], footerMagic) {
		return 0
	}
	back := (int(binary.LittleEndian.Uint32(data[len(data)-8:])) + 1) * 4
	start := len(data) - 12 - back
	if back <= 0 || start < 12 || data[start] != 0 {
		return 0
	}
	idx := data[start : len(data)-12]
	n, p, err := vli(idx, 1)
	if err != nil || n > uint64(len(idx)) {
		return 0
	}
	var total uint64
	for range n {
		var u uint64
		if _, p, err = vli(idx, p); err == nil {
			u, p, err = vli(idx, p)
		}
		if err != nil {
			return 0
		}
		total += u
		if total > 1<<40 {
			return 0
		}
	}
	return int(total)
}

// decoder walks the file; off is where it reads.
type decoder struct {
	data  []byte
	off   int
	limit int
	out   []byte
	z     lzma
}

func (d *decoder) file() ([]byte, error) {
	for {
		if err := d.stream(); err != nil {
			return nil, err
		}
		for d.off+4 <= len(d.data) && binary.LittleEndian.Uint32(d.data[d.off:]) == 0 {
			d.off += 4 // stream padding
		}
		if d.off == len(d.data) {
			return d.out, nil
		}
		if !bytes.HasPrefix(d.data[d.off:], headerMagic) {
			return nil, errors.New("data after the last stream")
		}
	}
}

// record is an index record: a block's unpadded and uncompressed sizes.
type record struct{ unpadded, uncompressed uint64 }

// stream decodes one stream: header, blocks, index, footer.
func (d *decoder) stream() error {
	if len(d.data)-d.off < 12 || !bytes.Equal(d.data[d.off:d.off+6], headerMagic) {
		return errors.New("not an xz stream header")
	}
	flags := d.data[d.off+6 : d.off+8]
	if crc32.ChecksumIEEE(flags) != binary.LittleEndian.Uint32(d.data[d.off+8:]) {
		return errors.New("stream header CRC32 mismatch")
	}
	if flags[0] != 0 || flags[1] > 0x0f {
		return errors.New("unknown stream flags")
	}
	check := flags[1]
	d.off += 12
	var blocks []record
	for {
		if d.off >= len(d.data) {
			return errors.New("truncated: no index")
		}
		if d.data[d.off] == 0 {
			break // the index indicator
		}
		r, err := d.block(check)
		if err != nil {
			return err
		}
		blocks = append(blocks, r)
	}
	indexStart := d.off
	if err := d.index(blocks); err != nil {
		return err
	}
	if len(d.data)-d.off < 12 {
		return errors.New("truncated stream footer")
	}
	f := d.data[d.off : d.off+12]
	if crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f) {
		return errors.New("stream footer CRC32 mismatch")
	}
	if !bytes.Equal(f[10:12], footerMagic) || !bytes.Equal(f[8:10], flags) {
		return errors.New("stream footer does not match the header")
	}
	if back := (uint64(binary.LittleEndian.Uint32(f[4:])) + 1) * 4; back != uint64(d.off-indexStart) {
		return errors.New("stream footer's backward size is not the index's")
	}
	d.off += 12
	return nil
}

// checkSize is the size of a check of each type (xz's table).
func checkSize(check byte) int {
	if check == 0 {
		return 0
	}
	return 4 << ((check - 1) / 3)
}

// block decodes one block, verifies its check and returns its index record.
func (d *decoder) block(check byte) (record, error) {
	hsize := (int(d.data[d.off]) + 1) * 4
	if len(d.data)-d.off < hsize {
		return record{}, errors.New("truncated block header")
	}
	h := d.data[d.off : d.off+hsize]
	if crc32.ChecksumIEEE(h[:hsize-4]) != binary.LittleEndian.Uint32(h[hsize-4:]) {
		return record{}, errors.New("block header CRC32 mismatch")
	}
	bflags := h[1]
	if bflags&0x3c != 0 {
		return record{}, errors.New("unknown block flags")
	}
	p := 2
	var csize, usize uint64 = 0, 0
	var err error
	hasC, hasU := bflags&0x40 != 0, bflags&0x80 != 0
	if hasC {
		if csize, p, err = vli(h[:hsize-4], p); err != nil {
			return record{}, err
		}
	}
	if hasU {
		if usize, p, err = vli(h[:hsize-4], p); err != nil {
			return record{}, err
		}
	}
	if int(bflags&3) != 0 {
		return record{}, ErrUnsupported
	}
	var id, psize uint64
	if id, p, err = vli(h[:hsize-4], p); err == nil {
		psize, p, err = vli(h[:hsize-4], p)
	}
	if err != nil {
		return record{}, err
	}
	if id != 0x21 {
		return record{}, ErrUnsupported
	}
	if psize != 1 || p+1 > hsize-4 {
		return record{}, errors.New("bad LZMA2 filter properties")
	}
	dictByte := h[p]
	p++
	for _, b := range h[p : hsize-4] {
		if b != 0 {
			return record{}, errors.New("block header padding is not zero")
		}
	}
	if dictByte > 40 {
		return record{}, errors.New("LZMA2 dictionary size beyond 4 GiB")
	}
	dictSize := uint32(0xFFFFFFFF)
	if dictByte < 40 {
		dictSize = (2 | uint32(dictByte)&1) << (dictByte/2 + 11)
	}
	d.off += hsize
	outStart := len(d.out)
	dataStart := d.off
	if err := d.lzma2(dictSize); err != nil {
		return record{}, err
	}
	comp := uint64(d.off - dataStart)
	if hasC && comp != csize || hasU && uint64(len(d.out)-outStart) != usize {
		return record{}, errors.New("block sizes differ from its header's")
	}
	for d.off%4 != 0 {
		if d.off >= len(d.data) || d.data[d.off] != 0 {
			return record{}, errors.New("bad block padding")
		}
		d.off++
	}
	n := checkSize(check)
	if len(d.data)-d.off < n {
		return record{}, errors.New("truncated block check")
	}
	sum, got := d.data[d.off:d.off+n], d.out[outStart:]
	switch check {
	case 1:
		if crc32.ChecksumIEEE(got) != binary.LittleEndian.Uint32(sum) {
			return record{}, errors.New("CRC32 mismatch of the decompressed data")
		}
	case 4:
		if crc64.Checksum(got, crc64Table) != binary.LittleEndian.Uint64(sum) {
			return record{}, errors.New("CRC64 mismatch of the decompressed data")
		}
	case 10:
		if s := sha256.Sum256(got); !bytes.Equal(s[:], sum) {
			return record{}, errors.New("SHA-256 mismatch of the decompressed data")
		}
	}
	d.off += n
	return record{unpadded: uint64(hsize) + comp + uint64(n), uncompressed: uint64(len(got))}, nil
}

// lzma2 decodes the LZMA2 chunks of a block, up to their end marker.
func (d *decoder) lzma2(dictSize uint32) error {
	dictStart := len(d.out)
	needDictReset, needProps := true, true
	for {
		if d.off >= len(d.data) {
			return errors.New("truncated LZMA2 data")
		}
		c := d.data[d.off]
		switch {
		case c == 0:
			d.off++
			return nil
		case c == 1 || c == 2:
			if len(d.data)-d.off < 3 {
				return errors.New("truncated LZMA2 chunk header")
			}
			if c == 1 {
				dictStart, needDictReset, needProps = len(d.out), false, true
			} else if needDictReset {
				return errCorrupt
			}
			n := int(binary.BigEndian.Uint16(d.data[d.off+1:])) + 1
			d.off += 3
			if len(d.data)-d.off < n {
				return errors.New("truncated uncompressed LZMA2 chunk")
			}
			if len(d.out)+n > d.limit {
				return ErrTooLarge
			}
			d.out = append(d.out, d.data[d.off:d.off+n]...)
			d.off += n
		case c >= 0x80:
			if len(d.data)-d.off < 5 {
				return errors.New("truncated LZMA2 chunk header")
			}
			size := int(c&0x1f)<<16 + int(binary.BigEndian.Uint16(d.data[d.off+1:])) + 1
			packed := int(binary.BigEndian.Uint16(d.data[d.off+3:])) + 1
			d.off += 5
			reset := c >> 5 & 3
			if reset == 3 {
				dictStart, needDictReset = len(d.out), false
			} else if needDictReset {
				return errCorrupt
			}
			if reset >= 2 {
				if d.off >= len(d.data) {
					return errors.New("truncated LZMA2 chunk header")
				}
				if err := d.z.setProps(d.data[d.off]); err != nil {
					return err
				}
				d.off++
				needProps = false
			} else if needProps {
				return errCorrupt
			}
			if reset >= 1 {
				d.z.reset()
			}
			if len(d.data)-d.off < packed {
				return errors.New("truncated LZMA2 chunk")
			}
			if len(d.out)+size > d.limit {
				return ErrTooLarge
			}
			d.out = slices.Grow(d.out, size)
			var err error
			if d.out, err = d.z.decode(d.out, d.data[d.off:d.off+packed], size, dictStart, dictSize); err != nil {
				return err
			}
			d.off += packed
		default:
			return errCorrupt
		}
	}
}

// index reads the stream's index and checks it against the blocks read.
func (d *decoder) index(blocks []record) error {
	start := d.off
	p := d.off + 1
	n, p, err := vli(d.data, p)
	if err != nil {
		return err
	}
	if n != uint64(len(blocks)) {
		return errors.New("index lists another number of blocks")
	}
	for _, b := range blocks {
		var u, c uint64
		if u, p, err = vli(d.data, p); err == nil {
			c, p, err = vli(d.data, p)
		}
		if err != nil {
			return err
		}
		if u != b.unpadded || c != b.uncompressed {
			return errors.New("index sizes differ from the blocks'")
		}
	}
	for (p-start)%4 != 0 {
		if p >= len(d.data) || d.data[p] != 0 {
			return errors.New("bad index padding")
		}
		p++
	}
	if len(d.data)-p < 4 {
		return errors.New("truncated index")
	}
	if crc32.ChecksumIEEE(d.data[start:p]) != binary.LittleEndian.Uint32(d.data[p:]) {
		return errors.New("index CRC32 mismatch")
	}
	d.off = p + 4
	return nil
}

// vli reads xz's variable-length integer at b[p:] and returns it and the
// offset after it.
func vli(b []byte, p int) (uint64, int, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		if p >= len(b) {
			return 0, p, errors.New("truncated integer")
		}
		c := b[p]
		p++
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, p, errors.New("integer not in its shortest form")
			}
			return v, p, nil
		}
	}
	return 0, p, errors.New("integer longer than 9 bytes")
}
