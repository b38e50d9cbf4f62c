package hugemem

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Ahead faults in the memory of a large array, from another goroutine, a
// little ahead of the one goroutine that fills it front to back.
//
// Why: the first touch of a page is paid by whoever touches it. When a single
// goroutine writes a big array that several others feed (the joiner of the
// per-unit BTF, which copies every unit's types into one Spec), its page
// faults become a serial stage that the feeding goroutines queue behind. On a
// virtual machine whose host has taken back the guest's free memory (free
// page reporting), a fresh page costs about as much as copying into it ten
// times over, and the joiner then leaves the converters idle. Faulting the
// pages in on another goroutine moves that cost onto whichever CPU is free.
//
// Invariant: only the kernel touches the memory, through MADV_POPULATE_WRITE,
// which maps pages that are not mapped yet and leaves mapped ones alone. A
// fresh page reads as zero either way, so the array's contents are the same
// with or without Ahead, and the writer's stores never race with it. Where
// the advice is unsupported (Linux before 5.14, other systems), the first
// call fails and Ahead stops.
type Ahead struct {
	mem    []byte // the whole capacity of the array
	window int

	used atomic.Int64 // bytes the writer has filled, as last reported
	kick chan struct{}
	wg   sync.WaitGroup

	populated int // bytes from mem's start known faulted in; run's, then Stop's
}

// populateFunc is populate, replaced by tests of a kernel that refuses it.
var populateFunc = populate

// populateStep is the most one system call faults in, so that the populator
// notices a stop or a faster writer soon.
const populateStep = 4 << 20

// StartAhead starts faulting in the capacity of s beyond len(s), up to
// window bytes past what the writer reports with Advance. T must hold no
// pointers. Stop must be called once the writer is done. Arrays smaller than
// a few huge pages are left alone: their faults do not matter.
func StartAhead[T any](s []T, window int) *Ahead {
	a := &Ahead{window: window}
	mem := Bytes(s)
	if !supported || len(mem) < minBytes || window <= 0 {
		return a
	}
	a.mem = mem
	var zero T
	a.used.Store(int64(uintptr(len(s)) * unsafe.Sizeof(zero)))
	a.kick = make(chan struct{}, 1)
	a.kick <- struct{}{}
	a.wg.Add(1)
	go a.run()
	return a
}

// Advance reports that the writer has filled the array's first n bytes. It
// never blocks; the populator catches up when it next runs.
func (a *Ahead) Advance(n int) {
	if a.mem == nil {
		return
	}
	a.used.Store(int64(n))
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// Stop ends the population, waits for it, and gives back to the system the
// whole huge pages it faulted in past the writer's last reported end: they
// were never written, so they read as zero again afterwards, as they did
// before, and the process's peak memory does not carry them.
//
// Because of that release, nothing may write past the last reported end
// until Stop has returned: the writer reports every write (Advance) before
// it hands the array on, and whoever writes next waits for Stop.
func (a *Ahead) Stop() {
	if a.mem == nil {
		return
	}
	close(a.kick)
	a.wg.Wait()
	used := int(a.used.Load())
	base := uintptr(unsafe.Pointer(unsafe.SliceData(a.mem)))
	from := (base + uintptr(used) + hugePage - 1) &^ (hugePage - 1)
	to := (base + uintptr(a.populated)) &^ (hugePage - 1)
	if from < to {
		release(from, to-from)
	}
	a.mem = nil
}

func (a *Ahead) run() {
	defer a.wg.Done()
	for range a.kick {
		used := int(a.used.Load())
		a.populated = max(a.populated, used)
		for end := min(used+a.window, len(a.mem)); a.populated < end; {
			n := min(populateStep, end-a.populated)
			if !populateFunc(a.mem[a.populated : a.populated+n]) {
				for range a.kick { // unsupported: drain until Stop
				}
				return
			}
			a.populated += n
		}
	}
}
