// Package hugemem is the memory advice the stages share: transparent huge
// pages where they pay (policy.go), memory faulted in ahead of a writer
// (Ahead), and pages handed back to the system. Advice is only a hint: it
// never changes what memory reads, nor any setting of the process (package
// tuning collects after GrowHeap). docs/design.md and docs/performance.md
// give the reasons and figures.
package hugemem

import (
	"runtime"
	"unsafe"
)

// hugePage is the size of an x86-64 and arm64 (4 KiB granule) huge page,
// the unit the advised range is trimmed to.
const hugePage = 2 << 20

// minBytes is the smallest range worth advising: below a few huge pages the
// faults saved do not pay for the system call and the split mapping.
const minBytes = 8 << 20

// Make returns make([]T, n, c), advised for huge pages when it is large and
// they pay here (policy.go). T must hold no pointers. Only memory fresh from
// the system is untouched until used: made after GrowHeap, a large slice
// reuses that memory, which the runtime then clears whole, capacity
// included.
func Make[T any](n, c int) []T {
	s := make([]T, n, c)
	if b := Bytes(s); len(b) >= minBytes && supported {
		advise(b)
	}
	return s
}

// GrowHeap grows the Go heap by about n bytes of huge-page-advised memory,
// which is garbage when it returns: once a collection has freed it, the
// allocations that follow (up to n bytes of them) land in memory that
// faults in 2 MiB at a time. It reports whether it grew the heap; it does
// not for small n, on systems without the advice and where huge pages do
// not pay (see policy.go).
//
// It works because the runtime maps a large allocation fresh from the
// operating system without touching it, so the advice comes before the
// first touch; the runtime's page allocator then hands out the lowest free
// addresses first, which are these once they are freed. Memory that is
// never used again costs address space only. The caller (package tuning)
// calls it once, early, with an estimate of the peak heap, and then
// collects.
func GrowHeap(n int) bool {
	if n < minBytes || !supported || !useHuge() {
		return false
	}
	b := make([]byte, n)
	advise(b)
	runtime.KeepAlive(b)
	return true
}

// minTouched is the smallest table MakeTouched populates: below it, the
// slice most likely comes from heap memory already touched.
const minTouched = 64 << 10

// MakeTouched returns make([]T, n) with its memory faulted in, writable:
// for hash tables, whose probes read a slot before they fill it. A fresh
// page that is read first is mapped to the shared zero page and faults again
// when written; populated in one madvise (MADV_POPULATE_WRITE) it faults
// neither time, without a trap per page. Where the kernel refuses, the slice
// is cleared instead, which faults each page in once, writable. T must hold
// no pointers.
func MakeTouched[T any](n int) []T {
	s := make([]T, n)
	if b := Bytes(s); len(b) >= minTouched {
		if !populate(b) {
			clear(s)
		}
	}
	return s
}

// Populate faults in the pages holding b, writable, in one system call
// where the kernel can (Linux 5.14 and later), without changing what b
// holds, and reports whether it did. Memory about to be filled is cheaper
// to populate first than to fault in page by page as it is written: one
// system call instead of a fault per page.
func Populate(b []byte) bool { return len(b) > 0 && populate(b) }

// Bytes returns the memory of s, up to its capacity, as bytes. T must hold
// no pointers.
func Bytes[T any](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(cap(s))*unsafe.Sizeof(zero))
}

// DropPages hands the whole pages inside b back to the system
// (MADV_DONTNEED), a hint that takes them out of the process's resident
// memory. Private anonymous memory reads as zero when next touched (see
// Discard); a shared mapping of a file reads the file's bytes again, from
// the page cache, so on such a mapping it never changes what b reads.
func DropPages(b []byte) { discard(b) }

// Discard hands the whole pages inside each of bufs back to the system
// (MADV_DONTNEED), for memory that nothing will read again: the pages read
// as zero afterwards, and the process's exit, which frees its memory on one
// CPU, has that much less to free. It is meant to run on a goroutine of its
// own while the program finishes its output.
//
// Invariant: the caller never reads bufs again, and bufs must hold no
// pointers. The buffers stay reachable until Discard returns, so the
// garbage collector cannot free them and hand their pages to a new
// allocation while the system call is still emptying them.
func Discard(bufs ...[]byte) {
	for _, b := range bufs {
		discard(b)
	}
	runtime.KeepAlive(bufs)
}
