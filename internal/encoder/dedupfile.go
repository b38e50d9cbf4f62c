package encoder

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btffile"
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
		bf, err := btffile.Open(base, btffile.Options{})
		if err != nil {
			return nil, err
		}
		baseSpec = bf.Spec
	}
	if o.Hooks.Loading != nil {
		o.Hooks.Loading(heapEstimate(in, base))
	}
	// Deduplication rewrites its input in place: it is loaded into fresh
	// private memory while it is parsed.
	input, err := btffile.Open(in, btffile.Options{Base: baseSpec, Memory: btffile.Loading, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return nil, err
	}
	// The input is unmapped beside the output's writing (below), or here on
	// an early return (Close may be called twice).
	release := input.Close
	defer release()
	spec := input.Spec
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
	if err := elfio.WriteFile(out, res.Marshal(spec.ByteOrder())); err != nil {
		return nil, err
	}
	st.Write = time.Since(deduped)
	return st, nil
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
