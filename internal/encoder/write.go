package encoder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// writeFileAtomic writes data to path through a temporary file in the same
// directory, synced and then renamed over path, so that path holds either its
// old contents or all of the new ones, never a partial file. An existing
// file's mode is kept; a new file gets 0644 (less the umask). On error the
// temporary file is removed.
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s: is a directory", path)
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".gobtf-*")
	if err != nil {
		return tempFileError(path, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("%s: writing: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: syncing: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ok = true
	return nil
}

// write marshals spec in order and writes it: raw to detached when that is
// set, and otherwise as sections of the ELF file at path, like pahole
// (through llvm-objcopy --add-section, which is not needed here): .BTF is
// added or replaced, an allocated .BTF (a finished vmlinux's) too even when
// the new one has another size. With distilled, the sections are those of
// pahole's distilled_base feature (distilledSections).
func write(path, detached string, spec *btf.Spec, order binary.ByteOrder, distilled bool, st *Stats) error {
	t := time.Now()
	out := spec.Marshal(order)
	st.Marshal = time.Since(t)
	t = time.Now()
	defer func() { st.Write = time.Since(t) }()
	if detached != "" {
		return writeFileAtomic(detached, out)
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
	return elfio.WriteSections(path, secs)
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

// tempFileError explains a failure to create the temporary output file by
// the output's own path and folder, without the temporary file's name, which
// the user never asked for.
func tempFileError(path string, err error) error {
	dir := filepath.Dir(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: cannot write: folder %s does not exist (create it, or name a file in an existing folder): %w", path, dir, err)
	}
	return fmt.Errorf("%s: cannot create a file in folder %s: %w", path, dir, err)
}
