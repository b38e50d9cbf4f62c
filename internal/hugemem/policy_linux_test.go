package hugemem

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// forceHuge makes useHuge answer on for the test, whatever this machine's
// policy.
func forceHuge(t *testing.T, on bool) {
	t.Helper()
	saved := useHuge
	useHuge = func() bool { return on }
	t.Cleanup(func() { useHuge = saved })
}

func TestDecideHuge(t *testing.T) {
	tests := []struct {
		name       string
		reporting  bool
		smallFault time.Duration
		want       bool
	}{
		{"bare metal or a host that keeps memory backed", false, 500 * time.Nanosecond, true},
		{"no reporting, dear faults", false, 20 * time.Microsecond, true},
		{"reporting, nested paging (small faults cheap)", true, 2500 * time.Nanosecond, false},
		{"reporting, shadow paging (small faults dear)", true, 19 * time.Microsecond, true},
		{"reporting, at the threshold", true, dearSmallFault, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideHuge(tt.reporting, tt.smallFault); got != tt.want {
				t.Errorf("decideHuge(%v, %v) = %v, want %v", tt.reporting, tt.smallFault, got, tt.want)
			}
		})
	}
}

// TestFreePageReporting reads fake virtio device folders laid out as
// Linux's /sys/bus/virtio/devices.
func TestFreePageReporting(t *testing.T) {
	type dev struct{ id, features string }
	tests := []struct {
		name string
		devs []dev
		want bool
	}{
		{"no devices", nil, false},
		{"balloon reporting", []dev{{"0x0001", "11000101"}, {"0x0005", "0110010100000000"}}, true},
		{"balloon without reporting", []dev{{"0x0005", "0110000000000000"}}, false},
		{"reporting bit on another device", []dev{{"0x0002", "0000010000000000"}}, false},
		{"short features file", []dev{{"0x0005", "011"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, d := range tt.devs {
				p := filepath.Join(dir, "virtio"+string(rune('0'+i)))
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, text := range map[string]string{"device": d.id + "\n", "features": d.features + "\n"} {
					if err := os.WriteFile(filepath.Join(p, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := freePageReporting(dir); got != tt.want {
				t.Errorf("freePageReporting = %v, want %v", got, tt.want)
			}
		})
	}
	if freePageReporting(filepath.Join(t.TempDir(), "missing")) {
		t.Error("a missing folder reports free pages")
	}
}

// TestMedian checks the statistic of the fault probe: a stall in one or a
// few of the probe's faults must not move it.
func TestMedian(t *testing.T) {
	us := time.Microsecond
	many := func(n int, d time.Duration, extra ...time.Duration) []time.Duration {
		ts := slices.Repeat([]time.Duration{d}, n)
		return append(ts, extra...)
	}
	tests := []struct {
		name string
		ts   []time.Duration
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []time.Duration{5 * us}, 5 * us},
		{"odd, unsorted", []time.Duration{9 * us, 1 * us, 4 * us}, 4 * us},
		{"even: the upper middle", []time.Duration{1 * us, 2 * us, 3 * us, 4 * us}, 3 * us},
		{"a 1 ms stall among 64 cheap faults", many(63, 2*us, time.Millisecond), 2 * us},
		{"stalls in a third of the faults", many(43, 2*us, slices.Repeat([]time.Duration{time.Millisecond}, 21)...), 2 * us},
		{"every fault dear", many(64, 19*us), 19 * us},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := median(slices.Clone(tt.ts)); got != tt.want {
				t.Errorf("median = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSmallFaultCost checks that the probe measures something: a fault
// takes time, and less than a millisecond on any machine worth running on.
func TestSmallFaultCost(t *testing.T) {
	c := smallFaultCost()
	if c <= 0 || c > time.Millisecond {
		t.Errorf("smallFaultCost = %v, want between 0 and 1 ms", c)
	}
	t.Logf("small page fault: %v; free page reporting: %v; huge pages used: %v", c, freePageReporting(virtioDevices), useHuge())
}

// TestNoAdviceWithoutHuge checks that where huge pages do not pay, advise
// (behind Make) leaves memory alone, and GrowHeap does not grow the heap.
func TestNoAdviceWithoutHuge(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("kernel without transparent huge pages")
	}
	b, err := syscall.Mmap(-1, 0, 3*hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	mid := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + hugePage) &^ (hugePage - 1)
	for _, on := range []bool{false, true} {
		forceHuge(t, on)
		advise(b)
		flags, err := vmFlags(mid)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(" "+flags+" ", " hg "); got != on {
			t.Errorf("huge pages %v: mapping has VmFlags %q", on, flags)
		}
	}

	forceHuge(t, false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if GrowHeap(1 << 30) {
		t.Error("GrowHeap says it grew the heap with huge pages off")
	}
	runtime.ReadMemStats(&after)
	if after.HeapSys >= before.HeapSys+1<<30 {
		t.Errorf("GrowHeap grew the heap from %d to %d bytes with huge pages off", before.HeapSys, after.HeapSys)
	}
}
