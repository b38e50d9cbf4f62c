package archive

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/core"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Minimize minimizes the BTF in data (raw BTF or an ELF file's .BTF, as
// btffile reads it) for objs, as "gobtf gen min_core_btf" minimizes a file:
// the same target (standalone BTF, the pointer size of the ELF class or
// else of the BTF's "long"), the objects added in order, the output built
// and checked by core, encoded in the host's byte order. name names the
// kernel in errors. It returns the output's bytes and its relocations'
// tally. data is the minimization's: it must not change. An object's own fault is a *core.ObjectError (core.IsObjectError).
func Minimize(name string, data []byte, objs []*btfext.Object) ([]byte, core.Tally, error) {
	f, err := btffile.Bytes(data, name, btffile.Options{})
	if err != nil {
		return nil, core.Tally{}, err
	}
	spec := f.Spec
	if err := core.CheckStandalone(spec); err != nil {
		return nil, core.Tally{}, fmt.Errorf("%s: not standalone BTF: %w", name, err)
	}
	mz := core.NewMinimizer(core.NewTarget(name, spec, pointerSize(data, spec)))
	for _, obj := range objs {
		if _, err := mz.Add(obj); err != nil {
			return nil, core.Tally{}, err
		}
	}
	out, err := mz.Build()
	if err != nil {
		return nil, core.Tally{}, fmt.Errorf("%s: %w", name, err)
	}
	return out.Spec.Marshal(binary.NativeEndian), mz.Tally(out), nil
}

// pointerSize is the pointer size libbpf takes for a kernel's BTF: its ELF
// class's for an ELF file, else the size of its "long".
func pointerSize(data []byte, spec *btf.Spec) uint32 {
	if elfio.IsELF(data) {
		if len(data) > elf.EI_CLASS && elf.Class(data[elf.EI_CLASS]) == elf.ELFCLASS32 {
			return 4
		}
		return 8
	}
	return core.GuessPointerSize(spec)
}
