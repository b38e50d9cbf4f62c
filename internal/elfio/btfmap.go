package elfio

import (
	"debug/elf"
	"errors"
	"syscall"
)

// MapBTF is ReadBTF without the copy: where the file can be memory-mapped,
// the returned bytes are a private, copy-on-write mapping of it (all of it
// for raw BTF, the .BTF section of an ELF file), which the caller may read
// and write until it calls release. A compressed section, a small file, or
// one that cannot be mapped is read as ReadBTF reads it, and release then
// does nothing.
//
// Why: gobtf reads the kernel's BTF as the base of every module it encodes.
// A copy is megabytes of memory that the process touches for the first
// time, which costs more than the copying itself (page faults, and on a VM
// whose free memory goes back to the host, the host's faults too), as much
// as encoding a small module takes. A mapping of a file that is in the page
// cache, as the vmlinux a build has just written is, costs no copy and no
// fault of fresh memory.
func MapBTF(path string) (data []byte, release func(), err error) {
	noop := func() {}
	// Private and writable: writes through the result stay in the process.
	m, err := mapFile(path, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		data, err = ReadBTF(path)
		return data, noop, err
	}
	unmap := func() { _ = syscall.Munmap(m) }
	f, err := NewFile(path, m)
	if errors.Is(err, ErrNotELF) {
		return m, unmap, nil
	}
	if err != nil {
		unmap()
		return nil, nil, err
	}
	if sec := f.Section(".BTF"); sec != nil && sec.Type != elf.SHT_NOBITS && sec.Flags&elf.SHF_COMPRESSED == 0 {
		if data, err := f.rawData(sec); err == nil {
			return data, unmap, nil
		}
	}
	// A compressed section is decompressed into a copy; the rest fails as
	// ReadBTF fails.
	data, err = f.readBTF(path)
	unmap()
	if err != nil {
		return nil, nil, err
	}
	return data, noop, nil
}
