package tuning

import (
	"os"
	"runtime/debug"
	"sync"
)

// bigInfo is the .debug_info size from which an input counts as
// kernel-sized for memory tuning (see gcForInput): a vmlinux has hundreds
// of MB of it, a module rarely more than a few.
const bigInfo = 64 << 20

// smallHeapLimit is the Go memory limit under which an input smaller than
// bigInfo is encoded without garbage collection (gcForInput).
const smallHeapLimit = 1 << 30

// gcForInput sets the garbage collector for an input of infoSize bytes of
// .debug_info and returns the function that restores the previous setting,
// and the one to call as the units' conversion starts
// (Encoding.Converting).
//
// A kernel's conversion has a live heap of a few hundred MB, mostly the
// output's big pointer-free arrays, cheap to mark, while the per-unit
// garbage would otherwise pile up to the size of the live heap before a
// collection (GOGC=100) and count in the peak resident memory. Deduplication's
// per-type arrays live through the conversion too (dedup.Stream). So once
// the conversion starts, collections run twenty times as often (GOGC=5),
// which bounds the garbage to a twentieth of the live heap. Not before,
// though: indexing the units and reading the ELF symbols allocate only what
// lives on (abbreviation tables, symbol tables), and collecting there would
// mark that growing heap again and again for nothing.
//
// A module's heap is small and mostly live to the end (the converters'
// buffers, the joined types, the base's tables): frequent collections
// would cost a large share of its short run for little memory. So smaller
// inputs are encoded without collection, up to a soft limit of
// smallHeapLimit (then the collector runs as the limit requires). Not so a
// merged conversion (LTO, dwz): it holds every unit's records at once and
// outgrows its buffers many times over, so without collection it could
// reach the limit; it runs with Go's default instead. An explicit GOMEMLIMIT
// in the environment is left alone (an explicit GOGC is left alone by the
// Encoding, which then does not call this).
func gcForInput(infoSize uint64) (restore func(), converting func(merged bool)) {
	if infoSize >= bigInfo {
		old := debug.SetGCPercent(-1)
		var once sync.Once
		return func() { debug.SetGCPercent(old) }, func(bool) { once.Do(func() { debug.SetGCPercent(5) }) }
	}
	oldLimit := int64(-1) // -1: the limit is left as it is
	if os.Getenv("GOMEMLIMIT") == "" {
		oldLimit = debug.SetMemoryLimit(smallHeapLimit)
	}
	old := debug.SetGCPercent(-1)
	restore = func() {
		debug.SetGCPercent(old)
		if oldLimit >= 0 {
			debug.SetMemoryLimit(oldLimit)
		}
	}
	converting = func(merged bool) {
		if merged {
			debug.SetGCPercent(100)
		}
	}
	return restore, converting
}
