// Package tuning is gobtf's process policy: how many CPUs a run may use,
// how the garbage collector runs for the input at hand, and the heap's
// preparation for huge pages. It is for the command (cmd/gobtf) only: the
// library packages leave the process's settings alone, and the pipelines
// (package encoder) offer hooks at their phases, which the command fills
// with the functions here. Each setting is undone by the function or
// method that says so.
package tuning

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/gobtf/gobtf/internal/hugemem"
)

// PrepareHeap grows the heap by about n bytes of memory advised for huge
// pages and collects it again, so that the allocations that follow (up to
// n bytes of them) land there (hugemem.GrowHeap); it does nothing where
// huge pages do not pay. Call it once, early, with an estimate of the peak
// heap.
func PrepareHeap(n int) {
	if hugemem.GrowHeap(n) {
		runtime.GC()
	}
}

// Encoding is the tuning of one "gobtf -J" run: its methods are the
// encoder's hooks (encoder.Hooks), Restore undoes them.
type Encoding struct {
	tuneGC    bool
	restores  []func()
	converted func(merged bool)
}

// ForEncoding tunes the process for an encoding with jobs workers: with
// limitCPUs (-j given), at most jobs CPUs, as pahole's -j N runs N threads
// (besides the converters, goroutines read the ELF side, join units, fault
// memory in and share deduplication's work, and in a kernel build, where
// make runs many encodings at once, each would otherwise take more CPUs
// than it was given). The garbage collector is tuned for the input once it
// is open (Opened) unless GOGC is set in the environment.
func ForEncoding(jobs int, limitCPUs bool) *Encoding {
	e := &Encoding{tuneGC: os.Getenv("GOGC") == ""}
	if limitCPUs && jobs < runtime.GOMAXPROCS(0) {
		old := runtime.GOMAXPROCS(jobs)
		e.restores = append(e.restores, func() { runtime.GOMAXPROCS(old) })
	}
	return e
}

// Opened is called once the input is open and the output's storage
// reserved: it prepares the heap for twice the file's size and sets the
// collector for the input's .debug_info size (gcForInput).
func (e *Encoding) Opened(fileSize int, infoSize uint64) {
	PrepareHeap(2 * fileSize)
	if e.tuneGC {
		restore, converting := gcForInput(infoSize)
		e.restores = append(e.restores, restore)
		e.converted = converting
	}
}

// Converting is called as the units' conversion starts.
func (e *Encoding) Converting(merged bool) {
	if e.converted != nil {
		e.converted(merged)
	}
}

// Converted is called once the conversion's working memory (abbreviation
// tables, symbol tables, per-unit buffers) is garbage, before
// deduplication allocates its own: it collects, so that deduplication
// reuses that memory and the two never add up in the peak resident
// memory. The memory is not handed back to the system
// (debug.FreeOSMemory): deduplication would only fault it in again.
func (e *Encoding) Converted() { runtime.GC() }

// Restore puts back the settings the encoding changed, last first.
func (e *Encoding) Restore() {
	for i := len(e.restores) - 1; i >= 0; i-- {
		e.restores[i]()
	}
	e.restores = nil
}

// Dedup is the tuning of one "gobtf dedup" run: its methods are the
// deduplication's hooks (encoder.DedupHooks), Restore undoes them.
type Dedup struct{ restore func() }

// Loading is called before the input is read, with an estimate of the
// peak heap: it prepares the heap.
func (d *Dedup) Loading(heap int) { PrepareHeap(heap) }

// Deduplicated is called once the deduplicated types are made: what is
// left allocates little but the output's bytes, and a collection started
// by that allocation would mark the whole heap on another CPU while the
// output is written, for nothing. So there is none until Restore.
func (d *Dedup) Deduplicated() {
	if d.restore == nil {
		d.restore = WithoutCollection()
	}
}

// Restore puts back the collector's setting.
func (d *Dedup) Restore() {
	if d.restore != nil {
		d.restore()
		d.restore = nil
	}
}

// WithoutCollection turns the garbage collector off until the returned
// function is called: for a run whose working set lives to its end (the C
// header of dump --format c is a few times the BTF's size), where
// collecting would only cost time.
func WithoutCollection() (restore func()) {
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

// ForLayoutView sets the collector for the layout view of DWARF until the
// returned function is called: units are loaded and dropped one after
// another, and a larger heap goal trades a little memory for less CPU
// time (docs/performance.md).
func ForLayoutView() (restore func()) {
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}
