package hugemem

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestPrepareHeapAdvisesLaterAllocations checks the mechanism PrepareHeap
// relies on: after it, a large allocation lands in a mapping that carries
// the huge-page advice (VmFlags "hg" in /proc/self/smaps).
func TestPrepareHeapAdvisesLaterAllocations(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("kernel without transparent huge pages")
	}
	forceHuge(t, true)
	PrepareHeap(256 << 20)
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
