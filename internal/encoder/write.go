package encoder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// write marshals spec in order and writes it, atomically (elfio): raw to
// detached when that is set, and otherwise as sections of the ELF file
// it was converted from, through the descriptor it was opened with, like pahole
// (through llvm-objcopy --add-section, which is not needed here): .BTF is
// added or replaced, an allocated .BTF (a finished vmlinux's) too even when
// the new one has another size. With distilled, the sections are those of
// pahole's distilled_base feature (distilledSections).
func write(file *elfio.File, detached string, spec *btf.Spec, order binary.ByteOrder, distilled bool, st *Stats) error {
	path := file.Name()
	t := time.Now()
	out := spec.Marshal(order)
	st.Marshal = time.Since(t)
	t = time.Now()
	defer func() { st.Write = time.Since(t) }()
	if detached != "" {
		return elfio.WriteFile(detached, out)
	}
	secs := []elfio.NewSection{{Name: ".BTF", Data: out}}
	if distilled {
		var err error
		if secs, err = distilledSections(spec, order); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	for i := range secs {
		secs[i].MayMove = true
	}
	return file.WriteSections(secs)
}

// distilledSections returns the sections pahole's distilled_base feature
// writes into a module (ELF mode only; pahole ignores the feature for
// detached output): .BTF, the split BTF relative to the distilled base, and
// .BTF.base, the distilled base itself (btf.DistillBase), in that order.
func distilledSections(spec *btf.Spec, order binary.ByteOrder) ([]elfio.NewSection, error) {
	if spec.Base() == nil {
		return nil, errors.New("the distilled_base feature needs --btf_base")
	}
	base, split, err := btf.DistillBase(spec)
	if err != nil {
		return nil, fmt.Errorf("distilling the base BTF: %w", err)
	}
	return []elfio.NewSection{
		{Name: ".BTF", Data: split.Marshal(order)},
		{Name: ".BTF.base", Data: base.Marshal(order)},
	}, nil
}
