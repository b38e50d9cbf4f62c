package elfio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// WriteFile writes data as the whole contents of the file at path, through
// the same atomic replacement as WriteSections: path holds either what it
// held before or all of data, never a part, and no temporary file is left
// on error. An existing file keeps its mode (and, when running as root, its
// owner), and a symbolic link is followed; a new file gets mode 0644.
// Errors name path (and its folder when the temporary file cannot be made).
func WriteFile(path string, data []byte) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fi = nil
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", path)
	}
	return replaceFile(path, fi, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}
