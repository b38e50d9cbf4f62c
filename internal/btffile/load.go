package btffile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/gobtf/gobtf/internal/hugemem"
)

// loadChunk is the size of the pieces a file is loaded in: small enough
// that the parser starts soon after the loading and follows it closely,
// large enough that a piece is one system call of worthwhile size.
const loadChunk = 1 << 20

// loading is a file being read into fresh memory by several goroutines, in
// chunks taken in file order, while the caller already works on the part
// that is in.
//
// Why: deduplication rewrites its input in place, so the input must be in
// private memory, and filling a kernel's undeduplicated BTF (over a hundred
// MB) into fresh memory is page faults, one per 4 KiB page, whether through
// a populated private mapping of the file or one read. Several goroutines
// fault in parallel, each chunk is populated in one system call before it
// is read, and parsing the type index can follow the loaded part instead of
// waiting for the end.
//
// Invariant: done[c] is closed once chunk c is in (or its read failed, then
// err is set), so bytes [0, c*loadChunk) are in when done[0..c-1] are all
// closed; filled counts the leading chunks known to be in.
type loading struct {
	data   []byte
	done   []chan struct{}
	next   atomic.Int64 // next chunk to read
	filled int          // leading chunks seen closed, by ready's caller only
	err    error        // first read error, set under mu
	mu     sync.Mutex
	wg     sync.WaitGroup
}

// startLoading maps fresh anonymous memory of the file's size and starts
// loading f into it on up to workers goroutines. f must stay open until
// wait returns.
func startLoading(f *os.File, size int, workers int) (*loading, error) {
	data, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	chunks := (size + loadChunk - 1) / loadChunk
	l := &loading{data: data, done: make([]chan struct{}, chunks)}
	for i := range l.done {
		l.done[i] = make(chan struct{})
	}
	for range max(1, min(workers, chunks)) {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				c := int(l.next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo, hi := c*loadChunk, min(size, (c+1)*loadChunk)
				hugemem.Populate(data[lo:hi]) // a hint: read faults in what it did not
				if _, err := f.ReadAt(data[lo:hi], int64(lo)); err != nil {
					if errors.Is(err, io.EOF) {
						err = fmt.Errorf("file shrank while being read: %w", io.ErrUnexpectedEOF)
					}
					l.mu.Lock()
					if l.err == nil {
						l.err = fmt.Errorf("reading bytes [%d, %d): %w", lo, hi, err)
					}
					l.mu.Unlock()
				}
				close(l.done[c])
			}
		}()
	}
	return l, nil
}

// ready waits until the first end bytes are loaded (or their reads have
// failed) and returns how many leading bytes are: at least end, at most all.
// It is called by one goroutine only.
func (l *loading) ready(end int) int {
	for l.filled < len(l.done) && l.filled*loadChunk < end {
		<-l.done[l.filled]
		l.filled++
	}
	return min(len(l.data), l.filled*loadChunk)
}

// wait waits for all reads and returns the first error.
func (l *loading) wait() error {
	l.wg.Wait()
	return l.err
}

// release unmaps the memory; nothing may use data after it.
func (l *loading) release() { syscall.Munmap(l.data) }
