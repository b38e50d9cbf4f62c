package archive

import (
	"encoding/binary"
	"fmt"

	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/core"
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
	mz := core.NewMinimizer(core.NewTarget(name, spec, core.FilePointerSize(data, spec)))
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
