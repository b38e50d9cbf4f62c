package archive

import (
	"sync"

	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/core"
)

// Options say how Run minimizes a tree.
type Options struct {
	// Objects are the CO-RE objects every kernel is minimized for, added
	// in this order (the one-kernel command's order of OBJECT...).
	Objects []*btfext.Object
	// Jobs is the number of kernels minimized at once (at least 1). Each
	// job holds one kernel's BTF, decompressed, and its minimization.
	Jobs int
	// Strict refuses, unwritten, the output of a kernel on which a
	// relocation is unresolved, ambiguous or failed (core.Tally.Errors).
	Strict bool
}

// Status says what Run did with a kernel.
type Status string

const (
	Written  Status = "written"    // its output was written
	Linked   Status = "linked"     // its output is a link to an identical one written before
	UpToDate Status = "up to date" // its output was there already, with the right bytes and links
	Refused  Status = "refused"    // Strict: a relocation is unresolved, ambiguous or failed
	Failed   Status = "failed"     // its file or output could not be read, minimized or written
)

// Kernel is what Run did with one kernel.
type Kernel struct {
	Archive string `json:"archive"` // Entry.Rel
	Output  string `json:"output"`  // Entry.Out
	Status  Status `json:"status"`
	// Size is the output's size in bytes, Written the bytes written for it
	// by this run (0 for a link or an output up to date).
	Size    int   `json:"size"`
	Written int64 `json:"written"`
	// LinkedTo is the output (relative to the output directory) that this
	// one is a link to, for a Linked or UpToDate duplicate; Symbolic says
	// the link is a symbolic one (the file system refused a hard link).
	LinkedTo    string     `json:"linked_to,omitempty"`
	Symbolic    bool       `json:"symbolic,omitempty"`
	Relocations core.Tally `json:"relocations"`
	// Err is why the kernel Failed (or was Refused); Error its text.
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"`
}

// Summary counts what Run did.
type Summary struct {
	Kernels      int   `json:"kernels"`
	Done         int   `json:"done"` // Written, Linked or UpToDate
	Failed       int   `json:"failed"`
	Refused      int   `json:"refused"`
	Unique       int   `json:"unique_outputs"`
	Written      int   `json:"written"`
	Linked       int   `json:"linked"`
	UpToDate     int   `json:"up_to_date"`
	BytesWritten int64 `json:"bytes_written"`
	// Unresolved counts the kernels on which a relocation is unresolved,
	// ambiguous or failed (written or refused).
	Unresolved int `json:"kernels_with_unresolved"`
}

// minimized is a worker's result for entry i.
type minimized struct {
	i     int
	out   []byte
	tally core.Tally
	err   error
}

// Run minimizes every entry (from Walk on the source directory) for
// o.Objects and writes the outputs under outDir, as the package comment
// says, calling report, on the calling goroutine, for each kernel in the
// entries' order as soon as it is done. A kernel that cannot be read,
// minimized or written is reported Failed and the run goes on; the error
// returned is for what stops the run: an object's own fault
// (core.IsObjectError), which every kernel would meet.
func Run(entries []Entry, outDir string, o Options, report func(*Kernel)) (Summary, error) {
	jobs := max(o.Jobs, 1)
	// At most window entries are between the dispatcher and the writer, so
	// that a slow kernel holds back only window-1 small outputs.
	window := make(chan struct{}, 2*jobs)
	stop := make(chan struct{})
	next := make(chan int)
	results := make(chan minimized, jobs)
	go func() {
		defer close(next)
		for i := range entries {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results <- minimizeEntry(i, entries[i], o.Objects)
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	w := newWriter(outDir)
	sum := Summary{Kernels: len(entries)}
	pending := make(map[int]minimized)
	var fatal error
	nextOut := 0
	for r := range results {
		if fatal != nil {
			continue // draining, so that the workers end
		}
		pending[r.i] = r
		for {
			r, ok := pending[nextOut]
			if !ok {
				break
			}
			delete(pending, nextOut)
			if core.IsObjectError(r.err) {
				fatal = r.err
				close(stop)
				break
			}
			k := w.put(entries[r.i], r, o.Strict)
			sum.add(k)
			report(k)
			<-window
			nextOut++
		}
	}
	sum.Unique = len(w.firsts)
	return sum, fatal
}

// minimizeEntry reads and minimizes one entry.
func minimizeEntry(i int, e Entry, objs []*btfext.Object) minimized {
	data, err := ReadBTF(e)
	if err != nil {
		return minimized{i: i, err: err}
	}
	out, tally, err := Minimize(e.Path, data, objs)
	return minimized{i: i, out: out, tally: tally, err: err}
}

// add counts k.
func (s *Summary) add(k *Kernel) {
	switch k.Status {
	case Written:
		s.Written++
	case Linked:
		s.Linked++
	case UpToDate:
		s.UpToDate++
	case Refused:
		s.Refused++
	case Failed:
		s.Failed++
	}
	if k.Status != Failed && k.Status != Refused {
		s.Done++
	}
	if k.Status != Failed && k.Relocations.Errors() > 0 {
		s.Unresolved++
	}
	s.BytesWritten += k.Written
}
