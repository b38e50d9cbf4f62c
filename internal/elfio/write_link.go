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
// relative (see symlinkTarget); symbolic reports that.
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

// symlinkTarget is target as a symbolic link in dir names it: the path
// from dir to target, both with their links resolved, relative so that the
// tree can move; target as it is when they cannot be resolved.
func symlinkTarget(target, dir string) string {
	rt, err1 := filepath.EvalSymlinks(target)
	rd, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return target
	}
	if rt, err1 = filepath.Abs(rt); err1 == nil {
		if rd, err2 = filepath.Abs(rd); err2 == nil {
			if rel, err := filepath.Rel(rd, rt); err == nil {
				return rel
			}
		}
	}
	return target
}
