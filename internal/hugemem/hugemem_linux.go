package hugemem

import (
	"syscall"
	"unsafe"
)

// supported reports whether advise can have an effect.
const supported = true

// hugePage is the size of an x86-64 and arm64 (4 KiB granule) huge page,
// the unit the advised range is trimmed to.
const hugePage = 2 << 20

// madvHugepage is MADV_HUGEPAGE, the same on every Linux architecture.
const madvHugepage = 14

// advise asks for huge pages for the 2 MiB-aligned part of b.
func advise(b []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if start >= end {
		return
	}
	// A hint only: an error (no THP support, mode "never") changes nothing.
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugepage)
}
