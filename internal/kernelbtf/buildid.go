package kernelbtf

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/gobtf/gobtf/internal/elfio"
)

// buildIDSize is the size of a GNU build ID as pahole compares them (a
// SHA-1): longer IDs are cut to it, shorter ones padded with zeros.
const buildIDSize = 20

// ntGNUBuildID is NT_GNU_BUILD_ID, the type of the note holding the ID.
const ntGNUBuildID = 3

// FileBuildID returns the GNU build ID of the ELF file at path, in hex, as
// pahole reads it: from the first of the sections .note.gnu.build-id,
// .notes and .note the file has, the first "GNU" note of type
// NT_GNU_BUILD_ID, whose ID must take 20 bytes (once rounded up to 4).
func FileBuildID(path string) (string, bool) {
	f, err := elfio.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	for _, name := range []string{".note.gnu.build-id", ".notes", ".note"} {
		sec := f.Section(name)
		if sec == nil {
			continue
		}
		data, err := f.SectionData(sec)
		if err != nil {
			return "", false
		}
		return notesBuildID(data, f.ByteOrder, false)
	}
	return "", false
}

// notesBuildID finds the build ID in a sequence of ELF notes. From
// /sys/kernel/notes (sysfs) the ID is the first 20 bytes of its
// descriptor, padded with zeros; from a file's section its descriptor must
// take exactly 20 bytes.
func notesBuildID(data []byte, order binary.ByteOrder, sysfs bool) (string, bool) {
	align := func(n uint32) uint64 { return (uint64(n) + 3) &^ 3 }
	for len(data) >= 12 {
		namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
		data = data[12:]
		nlen, dlen := align(namesz), align(descsz)
		if uint64(len(data)) < nlen {
			return "", false
		}
		name := data[:nlen]
		data = data[nlen:]
		if typ == ntGNUBuildID && namesz == 4 && string(name[:4]) == "GNU\x00" {
			if !sysfs && dlen != buildIDSize {
				return "", false
			}
			n := min(dlen, buildIDSize)
			if uint64(len(data)) < n {
				return "", false
			}
			id := make([]byte, buildIDSize)
			copy(id, data[:n])
			return hex.EncodeToString(id), true
		}
		if uint64(len(data)) < dlen {
			return "", false
		}
		data = data[dlen:]
	}
	return "", false
}
