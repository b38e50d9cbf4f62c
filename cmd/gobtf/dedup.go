package main

import (
	"fmt"
	"os"
	"syscall"
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
	data, release, err := mapInput(in)
	if err != nil {
		return err
	}
	defer release()
	spec, err := btf.ParseInPlace(data, base)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	parsed := time.Now()
	res, st, err := dedup.Dedup(spec, dedup.Options{InPlace: true})
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	deduped := time.Now()
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

// mapInput returns the BTF bytes of the file at path. Raw BTF is mapped
// privately into memory rather than read: deduplication rewrites it in place
// (copy-on-write, the file is not changed) and a mapping of a cached file
// costs far less than filling fresh memory. ELF input is read and its .BTF
// section extracted. release unmaps.
func mapInput(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	if fi.Size() == 0 || fi.Size() > 1<<31 || elfio.IsELF(magic[:n]) || !fi.Mode().IsRegular() {
		data, err := elfio.ReadBTF(path)
		return data, func() {}, err
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		data, err := elfio.ReadBTF(path)
		return data, func() {}, err
	}
	return m, func() { syscall.Munmap(m) }, nil
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
