package classlayout

import (
	"runtime"
	"sync"
)

// unitWork is one unit on its way through run.parallel.
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

// parallel prints every struct and union of every unit as inOrder does,
// loading, filtering and printing units on all CPUs:
// only the decision whether a definition was printed from an earlier unit
// is taken in unit order, between the filtering (which may infer holes but
// never depends on other units) and the printing of the unit's remaining
// types (which, as in pahole, runs in ID order within the unit, so the
// packed attributes it infers on the way come out the same).
func (r *Run) parallel() error {
	n := len(r.units)
	workers := runtime.GOMAXPROCS(0)
	window := 4 * workers
	units := make([]*unitWork, n)
	for i := range units {
		units[i] = &unitWork{ready: make(chan struct{}), done: make(chan struct{})}
	}
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
			u := units[i]
			unit := r.units[i]
			jobs <- func() { u.load(r, unit) }
		}
	}()
	var err error
	for i := 0; i < n; i++ {
		u := units[i]
		<-u.ready
		if u.err == nil && err == nil {
			for _, c := range u.cands {
				if c.keys != nil {
					t := &u.p.m.Types[c.id]
					if dup, _ := r.seen.check(t.Name, t.Size, nil, c.keys, false); dup {
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
			err = units[i-1].flush(r, err)
			units[i-1] = nil
			<-slots
		}
	}
	if n > 0 {
		err = units[n-1].flush(r, err)
	}
	close(jobs)
	wg.Wait()
	return err
}

// load reads unit i and selects its candidates (which of them earlier
// units printed is decided later, in unit order).
func (u *unitWork) load(r *Run, i int) {
	defer close(u.ready)
	opt := &r.opt
	m, err := r.src.loadUnit(i, opt, true)
	if err != nil {
		u.err = err
		return
	}
	p := NewPrinter(m, *opt)
	p.packCache = r.cache
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
func (u *unitWork) flush(r *Run, err error) error {
	<-u.done
	if err != nil {
		return err
	}
	if u.err != nil {
		return u.err
	}
	return r.finishUnit(u.p)
}
