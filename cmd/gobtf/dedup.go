package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/hugemem"
)

func init() { subcommands = append(subcommands, newDedupCmd) }

// newDedupCmd builds "gobtf dedup", which deduplicates a BTF file like
// libbpf's btf__dedup.
func newDedupCmd() *cobra.Command {
	var base string
	var stats bool
	cmd := &cobra.Command{
		Use:   "dedup [--base FILE] [--stats] IN OUT",
		Short: "Deduplicate BTF as libbpf's btf__dedup does",
		Long: `dedup reads the BTF in IN (raw BTF, or an ELF file with a .BTF section),
removes duplicate types with libbpf's btf__dedup algorithm and writes the
result to OUT as raw BTF in IN's byte order.

With --base, IN is split BTF on top of the (deduplicated) base BTF in FILE, as
for kernel modules: base types are kept as they are, split types equal to base
types are replaced by them, and OUT holds only the split part.

--stats prints type counts and the time of each pass to stderr.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDedup(cmd, base, args[0], args[1], stats)
		},
	}
	cmd.Flags().StringVarP(&base, "base", "B", "", "read IN as split BTF on top of the base BTF in `FILE` (raw or ELF)")
	cmd.Flags().BoolVar(&stats, "stats", false, "print type counts and per-pass timings to stderr")
	return cmd
}

// runDedup loads, deduplicates and writes one BTF file.
func runDedup(cmd *cobra.Command, basePath, in, out string, stats bool) error {
	t0 := time.Now()
	var base *btf.Spec
	if basePath != "" {
		var err error
		if base, err = loadDedupSpec(basePath, nil); err != nil {
			return err
		}
	}
	hugemem.PrepareHeap(heapEstimate(in, basePath))
	input, err := openInput(in)
	if err != nil {
		return err
	}
	// The input is unmapped beside the output's writing (below), or here on
	// an early return; Once makes the deferred call wait for the first.
	var unmap sync.Once
	release := func() { unmap.Do(input.release) }
	defer release()
	spec, err := btf.ParseInPlaceLoading(input.data, base, input.ready)
	if lerr := input.wait(); lerr != nil {
		return fmt.Errorf("%s: %w", in, lerr)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	parsed := time.Now()
	res, st, err := dedup.Dedup(spec, dedup.Options{InPlace: true})
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	deduped := time.Now()
	// Nothing reads the input again (the output has its own words and
	// strings): unmapping its 130 MB (a kernel's) on another CPU while the
	// output is written keeps that from the command's end.
	go release()
	// What is left allocates little but the output's bytes, and a
	// collection started by that allocation marked the 80 MB heap on the
	// other CPU while the output was written: writing took 23-29 ms with
	// two CPUs, 11 ms with one. Nothing allocated from here on needs
	// collecting before the command ends.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if err := os.WriteFile(out, res.Marshal(spec.ByteOrder()), 0o644); err != nil {
		return err
	}
	if stats {
		w := tabwriter.NewWriter(cmd.ErrOrStderr(), 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(w, "types\t%d\t-> %d\t\n", st.TypesIn, st.TypesOut)
		fmt.Fprintf(w, "string bytes\t%d\t-> %d\t\n", st.StringsIn, st.StringsOut)
		fmt.Fprintf(w, "read+parse\t%.1f ms\t\t\n", ms(parsed.Sub(t0)))
		for _, p := range st.Passes {
			fmt.Fprintf(w, "  %s\t%.1f ms\t\t\n", p.Name, ms(p.Duration))
		}
		fmt.Fprintf(w, "dedup\t%.1f ms\t\t\n", ms(deduped.Sub(parsed)))
		fmt.Fprintf(w, "write\t%.1f ms\t\t\n", ms(time.Since(deduped)))
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
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

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// loadDedupSpec reads and decodes the BTF of a raw BTF or ELF file; errors
// name the file.
func loadDedupSpec(path string, base *btf.Spec) (*btf.Spec, error) {
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
// (the input and an optional base), for hugemem.PrepareHeap: twice their
// sizes. (Encoding prepares its heap in dwarf2btf.Open.) A file that cannot
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
