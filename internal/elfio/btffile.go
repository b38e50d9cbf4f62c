package elfio

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/gobtf/gobtf/internal/unxz"
)

// BTFFile is what a file holds of BTF, as ReadBTFFile finds it.
type BTFFile struct {
	// BTF is the .BTF section's contents, or the whole file for raw BTF;
	// nil when an ELF file has no .BTF section.
	BTF []byte
	// Base is the .BTF.base section's contents (a distilled base), or
	// nil.
	Base []byte
	// ELF is set for an ELF file, with its object type (ET_REL for a
	// kernel module, ET_EXEC or ET_DYN for a vmlinux).
	ELF  bool
	Type elf.Type
	// Compression names how the file was compressed ("xz", "zstd",
	// "gzip"), or is empty.
	Compression string
	// ModName is a kernel module's name as its .modinfo gives it (the
	// "name=" entry modpost writes), or empty.
	ModName string
}

// MaxDecompressedFile bounds the size of a compressed file's contents (128
// MiB, several times the largest module a distribution installs):
// decompression stops there with an error rather than fill memory.
const MaxDecompressedFile = 128 << 20

// ReadBTFFile reads the BTF a file holds: a raw BTF file, or an ELF file's
// .BTF and .BTF.base sections (copies, decompressed if their sections are
// compressed). An ELF file compressed whole with xz, zstd or gzip, as
// kernel modules are installed (.ko.xz, .ko.zst, .ko.gz), is decompressed
// in memory first. Errors name the file (and the section, for ELF input).
func ReadBTFFile(path string) (*BTFFile, error) {
	f, err := Open(path)
	if errors.Is(err, ErrNotELF) {
		var data []byte
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		method := compression(data)
		if method == "" {
			return &BTFFile{BTF: data}, nil
		}
		if data, err = decompressFile(path, method, data); err != nil {
			return nil, err
		}
		if f, err = NewFile(path, data); err != nil {
			return nil, fmt.Errorf("%s: %s-compressed: %w", path, method, err)
		}
		defer f.Close()
		out, err := f.btfFile(path)
		if err == nil {
			out.Compression = method
		}
		return out, err
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.btfFile(path)
}

func (f *File) btfFile(path string) (*BTFFile, error) {
	out := &BTFFile{ELF: true, Type: f.Type}
	var err error
	if out.BTF, err = f.btfSection(path, ".BTF"); err != nil {
		return nil, err
	}
	if out.Base, err = f.btfSection(path, ".BTF.base"); err != nil {
		return nil, err
	}
	if sec := f.Section(".modinfo"); sec != nil && sec.Type != elf.SHT_NOBITS {
		if info, err := f.SectionData(sec); err == nil {
			for _, e := range bytes.Split(info, []byte{0}) {
				if name, ok := bytes.CutPrefix(e, []byte("name=")); ok {
					out.ModName = string(name)
					break
				}
			}
		}
	}
	return out, nil
}

// Magic numbers of the whole-file compressions of kernel modules.
var (
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// compression names the whole-file compression data starts with, or "".
func compression(data []byte) string {
	switch {
	case bytes.HasPrefix(data, xzMagic):
		return "xz"
	case bytes.HasPrefix(data, zstdMagic):
		return "zstd"
	case bytes.HasPrefix(data, gzipMagic):
		return "gzip"
	}
	return ""
}

// decompressFile decompresses a whole file's contents, at most
// MaxDecompressedFile bytes of them.
func decompressFile(path, method string, data []byte) ([]byte, error) {
	var r io.Reader
	var err error
	switch method {
	case "xz":
		// In memory, the whole output is the dictionary (package unxz);
		// a filter chain unxz does not decode is streamed.
		out, err := unxz.Decode(data, MaxDecompressedFile)
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, unxz.ErrTooLarge):
			return nil, fmt.Errorf("%s: %s-compressed: decompresses to more than %d bytes", path, method, MaxDecompressedFile)
		case !errors.Is(err, unxz.ErrUnsupported):
			return nil, fmt.Errorf("%s: %s-compressed: %w", path, method, err)
		}
		r, err = xz.NewReader(bytes.NewReader(data))
	case "zstd":
		var d *zstd.Decoder
		if d, err = zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(MaxDecompressedFile)); err == nil {
			defer d.Close()
			r = d
		}
	case "gzip":
		r, err = gzip.NewReader(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s-compressed: %w", path, method, err)
	}
	var out bytes.Buffer
	n, err := io.Copy(&out, io.LimitReader(r, MaxDecompressedFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s-compressed: after %d bytes: %w", path, method, n, err)
	}
	if n > MaxDecompressedFile {
		return nil, fmt.Errorf("%s: %s-compressed: decompresses to more than %d bytes", path, method, MaxDecompressedFile)
	}
	return out.Bytes(), nil
}

// Decompress returns data decompressed when it starts with the magic of xz,
// zstd or gzip (at most MaxDecompressedFile bytes of it), with the name of
// the compression, or data itself and "" when it starts with none of them.
// Errors name path.
func Decompress(path string, data []byte) ([]byte, string, error) {
	method := compression(data)
	if method == "" {
		return data, "", nil
	}
	out, err := decompressFile(path, method, data)
	return out, method, err
}
