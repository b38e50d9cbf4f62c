package encoder

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/dedup"
)

// loadedBase is the base BTF of split encoding, read and prepared.
type loadedBase struct {
	spec    *btf.Spec
	index   *dedup.BaseIndex // the base prepared for deduplication
	release func()           // for spec's memory, once done with spec
	err     error
}

// loadBase reads and prepares the base BTF at path on its own goroutine and
// delivers it on the returned channel: an empty loadedBase when path is "".
func loadBase(path string, workers int) <-chan loadedBase {
	done := make(chan loadedBase, 1)
	if path == "" {
		done <- loadedBase{}
		return done
	}
	go func() { done <- prepareBase(path, workers) }()
	return done
}

// prepareBase reads the base BTF at path and prepares it for deduplication.
func prepareBase(path string, workers int) loadedBase {
	// The base is used where it lies, in a private mapping of the file (or
	// a copy of its own when the file cannot be mapped), which each
	// module's encoding would otherwise copy twice.
	f, err := btffile.Open(path, btffile.Options{Memory: btffile.Mapped})
	if pe, ok := btffile.IsParseError(err); ok {
		return loadedBase{err: fmt.Errorf("--btf_base %s: %w", path, pe.Err)}
	}
	if err != nil {
		return loadedBase{err: fmt.Errorf("--btf_base: %w", err)}
	}
	release := f.Close
	fail := func(err error) loadedBase {
		release()
		return loadedBase{err: fmt.Errorf("--btf_base %s: %w", path, err)}
	}
	b := f.Spec
	// Deduplication looks up split strings in the base's string table,
	// which needs an index; it is built while the base's types are entered
	// as candidates, which does not need it.
	indexed := make(chan struct{})
	go func() {
		b.Strings().Index()
		close(indexed)
	}()
	bi, err := dedup.PrepareBase(b, dedup.Options{Workers: workers})
	<-indexed
	if err != nil {
		return fail(err)
	}
	return loadedBase{spec: b, index: bi, release: release}
}
