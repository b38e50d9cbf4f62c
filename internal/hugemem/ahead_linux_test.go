package hugemem

import (
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// resident reports, for each 4 KiB page of b, whether it is in memory
// (mincore).
func resident(t *testing.T, b []byte) []bool {
	t.Helper()
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := p &^ (pageSize - 1)
	n := (p + uintptr(len(b)) - start + pageSize - 1) / pageSize
	vec := make([]byte, n)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, start, n*pageSize, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	out := make([]bool, n)
	for i, v := range vec {
		out[i] = v&1 != 0
	}
	return out
}

// countResident returns how many 4 KiB pages of b are in memory.
func countResident(t *testing.T, b []byte) int {
	n := 0
	for _, r := range resident(t, b) {
		if r {
			n++
		}
	}
	return n
}

// freshArray returns a []uint32 of length 0 and capacity n in memory the
// process has not touched (its own mapping), and a function unmapping it.
func freshArray(t *testing.T, n int) ([]uint32, func()) {
	t.Helper()
	m, err := syscall.Mmap(-1, 0, 4*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&m[0])), n)[:0], func() { syscall.Munmap(m) }
}

// skipWithoutPopulate skips the test when the kernel refuses
// MADV_POPULATE_WRITE, which Ahead needs to do anything.
func skipWithoutPopulate(t *testing.T) {
	t.Helper()
	probe, unmap := freshArray(t, pageSize)
	defer unmap()
	if !populate(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(probe[:1]))), pageSize)) {
		t.Skip("kernel without MADV_POPULATE_WRITE (Linux < 5.14)")
	}
}

func TestAheadFaultsInAheadOfTheWriterAndKeepsContents(t *testing.T) {
	skipWithoutPopulate(t)

	const n = 16 << 20 // 64 MiB of uint32
	const window = 8 << 20
	s, unmap := freshArray(t, n)
	defer unmap()
	full := s[:n]
	asBytes := func(lo, hi int) []byte {
		return unsafe.Slice((*byte)(unsafe.Pointer(&full[lo])), 4*(hi-lo))
	}

	a := StartAhead(s, window)
	// The writer fills a quarter of the array, as the joiner would.
	for i := range n / 4 {
		s = append(s, uint32(i)*2654435761)
	}
	a.Advance(4 * len(s))

	// The window past the writer's end becomes resident without being
	// touched by this goroutine.
	ahead := asBytes(len(s), len(s)+window/4)
	deadline := time.Now().Add(10 * time.Second)
	for countResident(t, ahead) < len(ahead)/pageSize && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got, want := countResident(t, ahead), len(ahead)/pageSize; got < want {
		t.Fatalf("%d of the %d pages ahead of the writer are resident", got, want)
	}
	// Far beyond the window nothing was touched.
	far := asBytes(n/2, n)
	if c := countResident(t, far); c != 0 {
		t.Errorf("%d pages far past the window are resident", c)
	}

	a.Stop()
	// The writer's data is intact, and what lies past it reads as zero.
	for i, v := range s {
		if v != uint32(i)*2654435761 {
			t.Fatalf("word %d = %#x after Stop, written %#x", i, v, uint32(i)*2654435761)
		}
	}
	for i := len(s); i < n; i++ {
		if full[i] != 0 {
			t.Fatalf("word %d past the writer's end = %#x, want 0", i, full[i])
		}
	}
}

func TestAheadStopReturnsUnusedWholeHugePages(t *testing.T) {
	skipWithoutPopulate(t)
	const n = 8 << 20 // 32 MiB
	s, unmap := freshArray(t, n)
	defer unmap()
	const window = 16 << 20
	full := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:n]))), 4*n)
	a := StartAhead(s, window)
	a.Advance(0)
	deadline := time.Now().Add(10 * time.Second)
	for countResident(t, full) < window/pageSize && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if c := countResident(t, full); c < window/pageSize {
		t.Fatalf("%d pages resident before Stop, want the window's %d", c, window/pageSize)
	}
	a.Stop()
	// Stop released everything past the (empty) written part, in whole
	// huge pages: at most the partial huge pages at the ends stay.
	if c := countResident(t, full); c > 2*hugePage/pageSize {
		t.Errorf("%d pages still resident after Stop, want at most %d", c, 2*hugePage/pageSize)
	}
}

func TestAheadSmallOrDisabledIsANoOp(t *testing.T) {
	for _, tc := range []struct {
		name         string
		size, window int
	}{
		{"small array", 1 << 10, 1 << 20},
		{"no window", 8 << 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, unmap := freshArray(t, tc.size)
			defer unmap()
			a := StartAhead(s, tc.window)
			a.Advance(0)
			a.Stop()
			full := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:tc.size]))), 4*tc.size)
			if c := countResident(t, full); c != 0 {
				t.Errorf("%d pages resident, want none", c)
			}
		})
	}
}

// TestAheadWhereThePopulateAdviceIsRefused runs Ahead as on a kernel older
// than 5.14, which rejects MADV_POPULATE_WRITE: it gives up at the first
// refusal, Advance and Stop neither block nor fail, and Stop gives nothing
// back (it faulted nothing in).
func TestAheadWhereThePopulateAdviceIsRefused(t *testing.T) {
	calls := 0
	populateFunc = func([]byte) bool { calls++; return false }
	defer func() { populateFunc = populate }()
	const n = 8 << 20
	s, unmap := freshArray(t, n)
	defer unmap()
	for i := range 1 << 20 {
		s = append(s, uint32(i)+1)
	}
	a := StartAhead(s, 16<<20)
	for range 100 {
		a.Advance(4 * len(s))
	}
	done := make(chan struct{})
	go func() { a.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not return")
	}
	if calls != 1 {
		t.Errorf("populate called %d times, want 1 (give up at the first refusal)", calls)
	}
	for i, v := range s {
		if v != uint32(i)+1 {
			t.Fatalf("word %d = %d after Stop, written %d", i, v, i+1)
		}
	}
	full := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:n]))), 4*n)
	if c, written := countResident(t, full), 4*len(s)/pageSize; c < written {
		t.Errorf("%d pages resident, want at least the %d written", c, written)
	}
}
