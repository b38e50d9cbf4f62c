package archive

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/gobtf/gobtf/internal/elfio"
)

// ReadBTF returns the bytes of the BTF file an entry holds, in memory: the
// file itself (raw BTF or an ELF file), decompressed when it is compressed
// with xz, zstd or gzip, and for a tar the one member whose name ends with
// ".btf" (BTFHub's tars hold exactly one, <kernel>.btf). Errors name the
// file, and the member or offset where it is known.
func ReadBTF(e Entry) ([]byte, error) {
	data, err := os.ReadFile(e.Path)
	if err != nil {
		return nil, err
	}
	data, _, err = elfio.Decompress(e.Path, data)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(e.Rel, ".tar.xz") {
		return data, nil
	}
	return tarMember(e.Path, data)
}

// maxMember bounds a tar member's size as decompression bounds a file's.
const maxMember = elfio.MaxDecompressedFile

// tarMember returns the one regular member of the tar in data whose name
// ends with ".btf", as a slice of data (a tar stores a member's bytes
// whole, after its header). A tar with none, or with more than one, is an
// error.
func tarMember(name string, data []byte) ([]byte, error) {
	r := bytes.NewReader(data)
	tr := tar.NewReader(r)
	var found []byte
	var foundName string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: tar: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(path.Base(h.Name), ".btf") {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%s: tar: holds %s and %s: which is the kernel's BTF?", name, foundName, h.Name)
		}
		// Next leaves r at the member's first byte (archive/tar reads
		// headers block by block, and no further).
		off := int64(len(data)) - int64(r.Len())
		if h.Size < 0 || h.Size > maxMember || h.Size > int64(r.Len()) {
			return nil, fmt.Errorf("%s: tar: member %s at offset %#x: size %d is beyond the archive's end or %d bytes", name, h.Name, off, h.Size, maxMember)
		}
		found, foundName = data[off:off+h.Size:off+h.Size], h.Name
	}
	if found == nil {
		return nil, fmt.Errorf("%s: tar: no member named *.btf", name)
	}
	return found, nil
}
