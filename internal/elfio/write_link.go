package elfio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LinkFile makes path name the file at target, atomically as WriteFile
// writes: a hard link made under a temporary name beside path and renamed
// over it, so that path holds its old contents or target's, never nothing.
// Where the file system refuses the hard link (another file system, too
// many links, no hard links), path becomes a symbolic link to target,
// relative when both are relative or both absolute; symbolic reports that.
// A symbolic link at path is replaced, not followed. Errors name path.
func LinkFile(target, path string) (symbolic bool, err error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for range 100 {
		name, err := tempName(base)
		if err != nil {
			return false, err
		}
		tmp := filepath.Join(dir, name)
		lerr := os.Link(target, tmp)
		if lerr != nil && !errors.Is(lerr, os.ErrExist) {
			symbolic = true
			lerr = os.Symlink(symlinkTarget(target, dir), tmp)
		}
		if errors.Is(lerr, os.ErrExist) {
			continue
		}
		if lerr != nil {
			return false, fmt.Errorf("%s: linking to %s: %w", path, target, lerr)
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return false, fmt.Errorf("%s: renaming the link to %s into place: %w", path, target, err)
		}
		return symbolic, nil
	}
	return false, fmt.Errorf("%s: no free temporary name for a link", path)
}

// symlinkTarget is target as a symbolic link in dir names it: relative to
// dir when that can be said, else as it is.
func symlinkTarget(target, dir string) string {
	if filepath.IsAbs(target) != filepath.IsAbs(dir) {
		return target
	}
	if rel, err := filepath.Rel(dir, target); err == nil {
		return rel
	}
	return target
}
