package hugemem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestGrowHeapAdvisesLaterAllocations checks the mechanism GrowHeap relies
// on: after it and a collection, a large allocation lands in a mapping
// that carries the huge-page advice (VmFlags "hg" in /proc/self/smaps).
func TestGrowHeapAdvisesLaterAllocations(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("kernel without transparent huge pages")
	}
	forceHuge(t, true)
	if !GrowHeap(256 << 20) {
		t.Fatal("GrowHeap did nothing with huge pages forced on")
	}
	runtime.GC()
	b := make([]byte, 64<<20)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	// An address inside b's 2 MiB-aligned interior.
	mid := (p + hugePage) &^ (hugePage - 1)
	flags, err := vmFlags(mid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("mapping of %#x has VmFlags %q, without hg (MADV_HUGEPAGE)", mid, flags)
	}
	b[0], b[len(b)-1] = 1, 1 // the memory works as memory
}

// vmFlags returns the VmFlags line of the mapping holding addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 { // a mapping's header
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}

// TestPopulate checks that Populate keeps what memory holds, faults in
// fresh memory (Linux 5.14 and later), and refuses nothing it is given.
func TestPopulate(t *testing.T) {
	if Populate(nil) {
		t.Error("Populate(nil) reported work done")
	}
	fresh, err := syscall.Mmap(-1, 0, 1<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(fresh)
	written := make([]byte, 3*4096+5)
	for i := range written {
		written[i] = byte(i * 7)
	}
	want := append([]byte(nil), written...)
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"fresh mapping", fresh},
		{"unaligned part of a mapping", fresh[100 : 4096*3+1]},
		{"Go heap with contents", written[1:]},
	} {
		if !Populate(tt.b) {
			t.Errorf("%s: Populate refused (kernel older than 5.14?)", tt.name)
		}
	}
	if !bytes.Equal(written, want) {
		t.Error("Populate changed the contents of memory")
	}
	// Resident without having been touched: the kernel faulted it in.
	vec := make([]byte, len(fresh)/4096)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&fresh[0])), uintptr(len(fresh)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	for i, v := range vec {
		if v&1 == 0 {
			t.Fatalf("page %d of the fresh mapping is not resident after Populate", i)
		}
	}
	for i, c := range fresh {
		if c != 0 {
			t.Fatalf("fresh memory reads %d at %d after Populate", c, i)
		}
	}
}
