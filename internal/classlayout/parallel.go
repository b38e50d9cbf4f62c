package classlayout

import (
	"bufio"
	"io"
	"runtime"
	"sync"
)

// unitWork is one compilation unit on its way through printDWARFParallel.
type unitWork struct {
	p     *Printer
	cands []candidate // structs and unions passing the filters, in ID order
	print []uint32    // those to print: not printed from an earlier unit
	err   error
	ready chan struct{} // closed when cands is known
	done  chan struct{} // closed when p.buf holds the unit's output
}

type candidate struct {
	id   uint32
	keys []memberKey // nil for anonymous types, which pahole never deduplicates
}

// dwarfParallel prints every struct and union of the units as dwarfAll
// does, loading, filtering and printing units on all CPUs:
// only the decision whether a definition was printed from an earlier unit
// is taken in unit order, between the filtering (which may infer holes but
// never depends on other units) and the printing of the unit's remaining
// types (which, as in pahole, runs in ID order within the unit, so the
// packed attributes it infers on the way come out the same).
func (r *Run) dwarfParallel(dw *DWARF, units []int) error {
	opt, bw, errw := r.opt, r.bw, r.errw
	n := len(units)
	workers := runtime.GOMAXPROCS(0)
	window := 4 * workers
	work := make([]*unitWork, n)
	for i := range work {
		work[i] = &unitWork{ready: make(chan struct{}), done: make(chan struct{})}
	}
	cache := r.cache
	slots := make(chan struct{}, window) // bounds the units in memory
	jobs := make(chan func(), window)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				job()
			}
		}()
	}
	go func() { // feeder: load and filter units in order, window at a time
		for i := range n {
			slots <- struct{}{}
			u, unit := work[i], units[i]
			jobs <- func() { u.load(dw, unit, opt, cache) }
		}
	}()
	seen := r.seen
	var err error
	for i := 0; i < n; i++ {
		u := work[i]
		<-u.ready
		if u.err == nil && err == nil {
			for _, c := range u.cands {
				if c.keys != nil {
					t := &u.p.m.Types[c.id]
					if dup, _ := seen.check(t.Name, t.Size, nil, c.keys, false); dup {
						continue
					}
				}
				u.print = append(u.print, c.id)
			}
			go func() { // printing runs beside the next units' loading
				for _, id := range u.print {
					u.p.format(&u.p.m.Types[id], id)
				}
				close(u.done)
			}()
		} else {
			close(u.done)
		}
		if i > 0 {
			err = work[i-1].flush(bw, errw, err)
			work[i-1] = nil
			<-slots
		}
	}
	if n > 0 {
		err = work[n-1].flush(bw, errw, err)
	}
	close(jobs)
	wg.Wait()
	return err
}

// load reads unit i and selects its candidates.
func (u *unitWork) load(dw *DWARF, i int, opt Options, cache *packCache) {
	defer close(u.ready)
	m, err := dw.LoadUnit(i, opt.FixupSillyBitfields, true)
	if err != nil {
		u.err = err
		return
	}
	p := NewPrinter(m, opt)
	p.packCache = cache
	u.p = p
	for id := uint32(1); id < uint32(len(m.Types)); id++ {
		t := &m.Types[id]
		if t.Kind != KindStruct && t.Kind != KindUnion {
			continue
		}
		if t.Name == "" && !(opt.IncludeAnonymous || opt.IncludeNestedAnonymous) {
			continue
		}
		if !p.filter(t, id) {
			continue
		}
		c := candidate{id: id}
		if t.Name != "" {
			c.keys = keysOf(m.MembersOf(t))
		}
		u.cands = append(u.cands, c)
	}
}

// flush waits for the unit's output and writes it, keeping the first error.
func (u *unitWork) flush(bw *bufio.Writer, errw io.Writer, err error) error {
	<-u.done
	if err != nil {
		return err
	}
	if u.err != nil {
		return u.err
	}
	if err := u.p.drainTo(bw); err != nil {
		return err
	}
	u.p.writeNotes(errw)
	if u.p.overflow {
		return u.p.overflowErr
	}
	return nil
}
