package hugemem

import (
	"syscall"
	"unsafe"
)

// supported reports whether advise can have an effect.
const supported = true

// MADV_HUGEPAGE and MADV_NOHUGEPAGE, the same on every Linux architecture.
const (
	madvHugepage   = 14
	madvNohugepage = 15
)

// advise asks for huge pages for the 2 MiB-aligned part of b, where they
// pay (useHuge).
func advise(b []byte) {
	if !useHuge() {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if start >= end {
		return
	}
	// A hint only: an error (no THP support, mode "never") changes nothing.
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugepage)
}

// MADV_POPULATE_WRITE (Linux 5.14 and later) and MADV_DONTNEED, the same on
// every Linux architecture.
const (
	madvPopulateWrite = 23
	madvDontneed      = 4
)

// pageSize is the smallest page size of the architectures gobtf runs on;
// madvise wants its start aligned to the real one, which is a multiple.
const pageSize = 4096

// populate faults in the pages holding b, writable, without changing their
// contents. It reports false when the kernel refuses.
func populate(b []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := p &^ (pageSize - 1)
	end := p + uintptr(len(b))
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPopulateWrite)
	return errno == 0
}

// release gives the n bytes of memory at p (huge-page aligned) back to the
// system; they read as zero when next touched.
func release(p, n uintptr) {
	syscall.Syscall(syscall.SYS_MADVISE, p, n, madvDontneed)
}

// discard gives back the whole pages inside b; see Discard.
func discard(b []byte) {
	if len(b) == 0 {
		return
	}
	ps := uintptr(syscall.Getpagesize())
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + ps - 1) &^ (ps - 1)
	end := (p + uintptr(len(b))) &^ (ps - 1)
	if start < end {
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvDontneed)
	}
}
