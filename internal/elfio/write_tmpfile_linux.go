package elfio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// oTmpfile is O_TMPFILE (__O_TMPFILE | O_DIRECTORY) on the Linux
// architectures Go supports; package syscall does not export it for all.
const oTmpfile = 0x410000

// atSymlinkFollow makes linkat follow the /proc/self/fd magic link.
const atSymlinkFollow = 0x400

// createUnnamedTemp opens an unnamed temporary file in dir. It returns
// (nil, nil) when the file system does not support O_TMPFILE, so that the
// caller falls back to a named file, and an error for real failures (such
// as a read-only file system).
func createUnnamedTemp(dir string, perm os.FileMode) (*tempFile, error) {
	fd, err := syscall.Open(dir, oTmpfile|syscall.O_RDWR|syscall.O_CLOEXEC, uint32(perm))
	if err != nil {
		if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.EINVAL) {
			return nil, nil
		}
		return nil, err
	}
	return &tempFile{f: os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed temporary file)")), dir: dir}, nil
}

// linkUnnamed gives the unnamed temporary file f the path name.
func linkUnnamed(f *os.File, name string) error {
	old, err := syscall.BytePtrFromString(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		return err
	}
	nw, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	const atFdcwd = -100
	cwd := atFdcwd
	_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(cwd), uintptr(unsafe.Pointer(old)),
		uintptr(cwd), uintptr(unsafe.Pointer(nw)), atSymlinkFollow, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
