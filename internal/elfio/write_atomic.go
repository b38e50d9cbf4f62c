package elfio

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Atomic replacement, for every file gobtf writes (WriteSections, WriteFile).
// The new contents go to a temporary file in the target's directory, so that
// the final rename stays on one file system:
//
//   - On Linux the temporary file is unnamed (O_TMPFILE): a crash or a kill
//     while it is written leaves nothing behind. Once it is complete and
//     synced it is linked under a temporary name and at once renamed over
//     the target; only a kill in between those two calls leaves the name.
//   - Elsewhere, or when the file system lacks O_TMPFILE, the file is
//     created under the temporary name with O_EXCL from the start; SIGINT
//     and SIGTERM remove it before the signal takes its usual effect.
//
// Temporary names are ".<target name>.gobtf-<16 hex digits>.tmp": hidden,
// never the target's name, and recognisable, so each WriteSections call on a
// target first removes such leftovers beside it (they are complete copies
// from a killed run, or the temporary file of a concurrent writer of the
// same file, which then fails with a clear error and leaves the target
// intact).

// WriteHook, when set, is called at each stage of a write: "created",
// "copied" (WriteSections), "written", "synced", "linked" (O_TMPFILE) and
// "renamed". It is for tests, of this package and of the commands that
// write files, which stop or kill a writer at a stage; programs leave it
// nil.
var WriteHook func(stage string)

func hook(stage string) {
	if WriteHook != nil {
		WriteHook(stage)
	}
}

// WriteFile writes data to the file at path atomically, as WriteSections
// writes the ELF file: path holds its old contents or all of the new ones,
// never a part, and an error leaves it and its folder as they were. An
// existing file keeps its mode (and, when running as root, its owner); a
// new one gets 0644 less the umask. A symbolic link is followed. Errors
// name path and, when the temporary file cannot be made, its folder.
func WriteFile(path string, data []byte) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", path)
	case errors.Is(err, fs.ErrNotExist):
		fi = nil
	case err != nil:
		return err
	}
	return replaceFile(path, fi, func(dst *os.File) error {
		if _, err := dst.Write(data); err != nil {
			return err
		}
		hook("written")
		return nil
	})
}

// useTmpfile can be cleared by tests to exercise the named fallback.
var useTmpfile = true

const tempInfix, tempSuffix = ".gobtf-", ".tmp"

// tempName returns a fresh temporary name for the target base name.
func tempName(base string) (string, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return "." + base + tempInfix + hex.EncodeToString(r[:]) + tempSuffix, nil
}

// isTempName reports whether name is a temporary name for base.
func isTempName(name, base string) bool {
	prefix := "." + base + tempInfix
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, tempSuffix) {
		return false
	}
	mid := name[len(prefix) : len(name)-len(tempSuffix)]
	if len(mid) != 16 {
		return false
	}
	_, err := hex.DecodeString(mid)
	return err == nil
}

// removeStaleTemps removes leftover temporary files for base in dir.
func removeStaleTemps(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type().IsRegular() && isTempName(e.Name(), base) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// tempFile is the temporary file being written: name is "" while it is an
// unnamed O_TMPFILE.
type tempFile struct {
	f    *os.File
	dir  string
	name string
}

// createNamedTemp creates the temporary file under a fresh name, with the
// permissions perm (less the umask).
func createNamedTemp(dir, base string, perm os.FileMode) (*tempFile, error) {
	for range 100 {
		name, err := tempName(base)
		if err != nil {
			return nil, err
		}
		full := filepath.Join(dir, name)
		f, err := os.OpenFile(full, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &tempFile{f: f, dir: dir, name: full}, nil
	}
	return nil, errors.New("no free temporary file name")
}

// replaceFile writes a new version of path with fill and atomically puts it
// in place of path (of which fi is the stat; nil when path does not exist
// yet). A symbolic link is followed: the file it points to is replaced.
func replaceFile(path string, fi os.FileInfo, fill func(*os.File) error) (err error) {
	target := path
	perm := os.FileMode(0o644) // a new file's, less the umask
	if fi != nil {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return err
		}
		perm = 0o600 // then the original's (copyOwnerAndMode)
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	removeStaleTemps(dir, base)

	var tmp *tempFile
	if useTmpfile {
		tmp, err = createUnnamedTemp(dir, perm)
	}
	if tmp == nil && err == nil {
		tmp, err = createNamedTemp(dir, base, perm)
	}
	if err != nil {
		return tempFileError(path, dir, err)
	}
	var stopSignals func()
	if tmp.name != "" {
		stopSignals = removeOnSignal(tmp.name)
	}
	defer func() {
		if stopSignals != nil {
			stopSignals()
		}
		if tmp.f != nil {
			tmp.f.Close()
		}
		if err != nil && tmp.name != "" {
			os.Remove(tmp.name)
		}
	}()
	hook("created")

	if err := fill(tmp.f); err != nil {
		return fmt.Errorf("%s: writing the new version to a temporary file in %s: %w", path, dir, err)
	}
	if fi != nil {
		if err := copyOwnerAndMode(tmp.f, fi); err != nil {
			return fmt.Errorf("%s: giving the new version the original's owner and mode: %w", path, err)
		}
	}
	if err := tmp.f.Sync(); err != nil {
		return fmt.Errorf("%s: syncing the new version in %s: %w", path, dir, err)
	}
	hook("synced")
	if tmp.name == "" {
		name, err := tempName(base)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		full := filepath.Join(dir, name)
		if err := linkUnnamed(tmp.f, full); err != nil {
			return fmt.Errorf("%s: naming the new version %s: %w", path, full, err)
		}
		tmp.name = full
		hook("linked")
	}
	if err := tmp.f.Close(); err != nil {
		tmp.f = nil
		return fmt.Errorf("%s: closing the new version %s: %w", path, tmp.name, err)
	}
	tmp.f = nil
	if err := os.Rename(tmp.name, target); err != nil {
		return fmt.Errorf("%s: renaming the new version %s over it: %w", path, tmp.name, err)
	}
	tmp.name = ""
	hook("renamed")
	// Make the rename durable; a failure here does not undo it.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// tempFileError explains a failure to create the temporary file by the
// target's own path and folder: the temporary file's name means nothing to
// the user.
func tempFileError(path, dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: cannot write: folder %s does not exist (create it, or name a file in an existing folder): %w", path, dir, err)
	}
	return fmt.Errorf("%s: cannot create a file in folder %s: %w", path, dir, err)
}

// copyOwnerAndMode gives f the permission bits of fi and, when running as
// root, its owner and group (chown first: it clears set-id bits).
func copyOwnerAndMode(f *os.File, fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
		if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	return f.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
}

// removeOnSignal removes the named temporary file if SIGINT or SIGTERM
// arrives before the returned stop function is called, then lets the signal
// take its default effect (or reach the program's own handlers).
func removeOnSignal(name string) (stop func()) {
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case sig := <-ch:
			os.Remove(name)
			signal.Stop(ch)
			if s, ok := sig.(syscall.Signal); ok {
				syscall.Kill(os.Getpid(), s)
			}
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
	}
}
