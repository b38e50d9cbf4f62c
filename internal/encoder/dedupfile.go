package encoder

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/elfio"
)

// DedupStats describes a DedupFile call, for "gobtf dedup --stats".
type DedupStats struct {
	Dedup *dedup.Stats  // counts and passes
	Parse time.Duration // reading and parsing the input (and the base)
	Total time.Duration // deduplicating
	Write time.Duration // writing the output
}

// DedupOptions says what DedupFile does.
type DedupOptions struct {
	// Base is the path of the base BTF (raw or ELF) the input is split
	// BTF on; "" when the input is base BTF.
	Base string

	// Libbpf112 deduplicates as libbpf 1.1.2 does (the libbpf of Debian
	// 12 and of the bpftool 7.1 built on it) instead of as current
	// libbpf does, for comparing with tools that link it (see
	// dedup.Options.Libbpf112 for the two differences; the results agree
	// on C input).
	Libbpf112 bool

	// Hooks are called at the deduplication's phases.
	Hooks DedupHooks
}

// DedupHooks let the caller act at DedupFile's phases, as gobtf tunes the
// process there (tuning.Dedup). A nil hook is not called.
type DedupHooks struct {
	// Loading is called before the input is read, with an estimate of
	// the peak heap (heapEstimate).
	Loading func(heap int)
	// Deduplicated is called once the output's types are made: what is
	// left allocates little but the output's bytes.
	Deduplicated func()
}

// DedupFile deduplicates the BTF in the file in (raw BTF, or an ELF file's
// .BTF) as libbpf's btf__dedup does and writes the result to out as raw BTF
// in in's byte order. With o.Base set, in is split BTF on the base BTF in
// that file, and out holds the split part only. Errors name the file.
func DedupFile(ctx context.Context, in, out string, o DedupOptions) (*DedupStats, error) {
	base := o.Base
	t0 := time.Now()
	var baseSpec *btf.Spec
	if base != "" {
		var err error
		if baseSpec, err = readSpec(base, nil); err != nil {
			return nil, err
		}
	}
	if o.Hooks.Loading != nil {
		o.Hooks.Loading(heapEstimate(in, base))
	}
	input, err := openInput(in)
	if err != nil {
		return nil, err
	}
	// The input is unmapped beside the output's writing (below), or here on
	// an early return; Once makes the deferred call wait for the first.
	var unmap sync.Once
	release := func() { unmap.Do(input.release) }
	defer release()
	spec, err := btf.ParseInPlaceLoading(input.data, baseSpec, input.ready)
	if lerr := input.wait(); lerr != nil {
		return nil, fmt.Errorf("%s: %w", in, lerr)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st := &DedupStats{Parse: time.Since(t0)}
	parsed := time.Now()
	res, dst, err := dedup.Dedup(spec, dedup.Options{InPlace: true, Libbpf112: o.Libbpf112})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	st.Dedup, st.Total = dst, time.Since(parsed)
	deduped := time.Now()
	// Nothing reads the input again (the output has its own words and
	// strings): it is unmapped on another goroutine while the output is
	// written, so that the unmapping does not add to the command's time.
	go release()
	if o.Hooks.Deduplicated != nil {
		o.Hooks.Deduplicated()
	}
	if err := os.WriteFile(out, res.Marshal(spec.ByteOrder()), 0o644); err != nil {
		return nil, err
	}
	st.Write = time.Since(deduped)
	return st, nil
}

// inputBTF is the BTF of a dedup input file, possibly still loading.
type inputBTF struct {
	data    []byte
	ready   func(end int) int // as btf.ParseInPlaceLoading wants it; nil: data is complete
	wait    func() error      // waits until data is complete; the first read error
	release func()            // waits, then frees data
}

// openInput returns the BTF bytes of the file at path. Raw BTF is loaded
// into fresh private memory, which deduplication rewrites in place, by
// several goroutines while the caller parses it (see loading). ELF input is
// read and its .BTF section extracted.
func openInput(path string) (*inputBTF, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	var l *loading
	if fi.Size() > 0 && fi.Size() <= 1<<31 && !elfio.IsELF(magic[:n]) && fi.Mode().IsRegular() {
		l, err = startLoading(f, int(fi.Size()), loadWorkers())
	}
	if l == nil || err != nil {
		f.Close()
		data, err := elfio.ReadBTF(path)
		if err != nil {
			return nil, err
		}
		return &inputBTF{data: data, wait: func() error { return nil }, release: func() {}}, nil
	}
	wait := sync.OnceValue(func() error {
		err := l.wait()
		f.Close()
		return err
	})
	return &inputBTF{data: l.data, ready: l.ready, wait: wait, release: func() { wait(); l.release() }}, nil
}

// readSpec reads and decodes the BTF of a raw BTF or ELF file; errors name
// the file.
func readSpec(path string, base *btf.Spec) (*btf.Spec, error) {
	data, err := elfio.ReadBTF(path)
	if err != nil {
		return nil, err
	}
	spec, err := btf.Parse(data, base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return spec, nil
}

// heapEstimate guesses the peak heap of deduplicating the BTF files at paths
// (the input and an optional base), for DedupHooks.Loading: twice their
// sizes. A file that cannot
// be read counts as empty: the error is reported where it is opened.
func heapEstimate(paths ...string) int {
	n := int64(0)
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && p != "" && fi.Mode().IsRegular() {
			n += 2 * fi.Size()
		}
	}
	return int(min(n, 8<<30))
}
