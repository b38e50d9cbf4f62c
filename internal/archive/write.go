package archive

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gobtf/gobtf/internal/elfio"
)

// writer writes the outputs, one at a time, in the entries' order. The
// first output with given bytes is a regular file; every later one with
// the same bytes is a link to it.
type writer struct {
	dir    string
	firsts map[[sha256.Size]byte]*first
}

// first is the first output written with some bytes.
type first struct {
	path string // as the output's path under dir
	rel  string // Entry.Out
	data []byte
}

func newWriter(dir string) *writer {
	return &writer{dir: dir, firsts: make(map[[sha256.Size]byte]*first)}
}

// put writes (or links, or leaves alone) the output of entry e, and says
// what it did.
func (w *writer) put(e Entry, r minimized, strict bool) *Kernel {
	k := &Kernel{Archive: e.Rel, Output: e.Out, Relocations: r.tally}
	fail := func(s Status, err error) *Kernel {
		k.Status, k.Err, k.Error = s, err, err.Error()
		return k
	}
	if r.err != nil {
		return fail(Failed, r.err)
	}
	k.Size = len(r.out)
	if strict && r.tally.Errors() > 0 {
		return fail(Refused, fmt.Errorf("%s: --strict: %d relocation(s) unresolved, ambiguous or failed; %s not written", e.Path, r.tally.Errors(), e.Out))
	}
	path := filepath.Join(w.dir, filepath.FromSlash(e.Out))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fail(Failed, err)
	}
	sum := sha256.Sum256(r.out)
	if f, ok := w.firsts[sum]; ok && bytes.Equal(f.data, r.out) {
		k.LinkedTo = f.rel
		if sym, ok := linkedTo(path, f.path); ok {
			k.Status, k.Symbolic = UpToDate, sym
			return k
		}
		sym, err := elfio.LinkFile(f.path, path)
		if err != nil {
			return fail(Failed, err)
		}
		k.Status, k.Symbolic = Linked, sym
		return k
	}
	w.firsts[sum] = &first{path: path, rel: e.Out, data: r.out}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(r.out)) && sameBytes(path, r.out):
		k.Status = UpToDate
		return k
	case err == nil && fi.Mode()&os.ModeSymlink != 0:
		// A link to another output, from a run where this one was its
		// duplicate: WriteFile would write through it.
		if err := os.Remove(path); err != nil {
			return fail(Failed, err)
		}
	}
	if err := elfio.WriteFile(path, r.out); err != nil {
		return fail(Failed, err)
	}
	k.Status, k.Written = Written, int64(len(r.out))
	return k
}

// linkedTo reports whether path is already a link to target: a hard link
// (the same file), or a symbolic link that leads to it.
func linkedTo(path, target string) (symbolic, ok bool) {
	li, err := os.Lstat(path)
	if err != nil {
		return false, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false, false
	}
	ti, err := os.Stat(target)
	if err != nil || !regular(target) {
		return false, false
	}
	return li.Mode()&os.ModeSymlink != 0, os.SameFile(fi, ti)
}

// regular reports whether path is a regular file (not through a link).
func regular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// sameBytes reports whether the file at path holds data.
func sameBytes(path string, data []byte) bool {
	got, err := os.ReadFile(path)
	return err == nil && bytes.Equal(got, data)
}
