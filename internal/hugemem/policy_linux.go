package hugemem

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// useHuge reports whether huge pages are worth asking for on this machine
// (see policy.go). It is decided on first use: reading sysfs takes about a
// tenth of a millisecond, and on a guest that reports free pages the probe
// of small faults up to a millisecond more.
var useHuge = sync.OnceValue(func() bool {
	if !freePageReporting(virtioDevices) {
		return true
	}
	return decideHuge(true, smallFaultCost())
})

// virtioDevices is where Linux lists the virtio devices.
const virtioDevices = "/sys/bus/virtio/devices"

// Virtio's balloon device ID, and its feature bit for free page reporting
// (VIRTIO_BALLOON_F_REPORTING).
const (
	virtioIDBalloon         = 5
	balloonFeatureReporting = 5
)

// freePageReporting reports whether a virtio balloon device under dir
// negotiated free page reporting. A device's "features" file lists the
// negotiated feature bits as '0' and '1' characters, bit 0 first.
func freePageReporting(dir string) bool {
	devs, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, d := range devs {
		text, err := os.ReadFile(filepath.Join(dir, d.Name(), "device"))
		if err != nil {
			continue
		}
		id, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(string(text)), "0x"), 16, 32)
		if err != nil || id != virtioIDBalloon {
			continue
		}
		feat, err := os.ReadFile(filepath.Join(dir, d.Name(), "features"))
		if err == nil && len(feat) > balloonFeatureReporting && feat[balloonFeatureReporting] == '1' {
			return true
		}
	}
	return false
}

// probeFaults is how many small pages smallFaultCost faults in.
const probeFaults = 64

// smallFaultCost returns the time of one small page fault: the median of
// probeFaults faults on fresh pages of a mapping advised against huge pages,
// each timed on its own. It returns 0 (cheap) when the mapping fails.
//
// Why the median: the probe is short, and one stall of the virtual CPU
// inside it would make every fault look dear if their total were divided
// out. Such stalls happen on the guests measured, most right after another
// process has handed its memory back, and can bring an average close to
// dearSmallFault. A stall lengthens one or two of the faults, not the
// median.
func smallFaultCost() time.Duration {
	const size = probeFaults * pageSize
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return 0
	}
	defer syscall.Munmap(b)
	syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), size, madvNohugepage)
	var times [probeFaults]time.Duration
	for i := range probeFaults {
		start := time.Now()
		b[i*pageSize] = 1
		times[i] = time.Since(start)
	}
	return median(times[:])
}

// median returns the middle one of ts (the upper one of the two middle
// ones for an even count), sorting ts in place; 0 for none.
func median(ts []time.Duration) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}
