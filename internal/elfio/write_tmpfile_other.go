//go:build !linux

package elfio

import (
	"errors"
	"os"
)

// createUnnamedTemp reports that unnamed temporary files are not available
// here: the caller uses a named one.
func createUnnamedTemp(dir string, perm os.FileMode) (*tempFile, error) { return nil, nil }

// linkUnnamed is never called where createUnnamedTemp gives no file.
func linkUnnamed(f *os.File, name string) error {
	return errors.New("unnamed temporary files are not supported")
}
