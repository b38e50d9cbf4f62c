package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/encoder"
	"github.com/gobtf/gobtf/internal/tuning"
)

func init() { subcommands = append(subcommands, newDedupCmd) }

// newDedupCmd builds "gobtf dedup", which deduplicates a BTF file like
// libbpf's btf__dedup.
func newDedupCmd() *cobra.Command {
	var o encoder.DedupOptions
	var stats bool
	cmd := &cobra.Command{
		Use:   "dedup [--base FILE] [--libbpf-1.1.2] [--stats] IN OUT",
		Short: "Deduplicate BTF as libbpf's btf__dedup does",
		Long: `dedup reads the BTF in IN (raw BTF, or an ELF file with a .BTF section),
removes duplicate types with libbpf's btf__dedup algorithm and writes the
result to OUT as raw BTF in IN's byte order.

With --base, IN is split BTF on top of the (deduplicated) base BTF in FILE, as
for kernel modules: base types are kept as they are, split types equal to base
types are replaced by them, and OUT holds only the split part.

With --libbpf-1.1.2, deduplication follows libbpf 1.1.2 (Debian 12's
libbpf, which its bpftool 7.1 links) where it differs from current
libbpf, so that OUT can be compared byte for byte with its output; on C
input the two agree.

--stats prints type counts and the time of each pass to stderr.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDedup(cmd, args[0], args[1], o, stats)
		},
	}
	cmd.Flags().StringVarP(&o.Base, "base", "B", "", "read IN as split BTF on top of the base BTF in `FILE` (raw or ELF)")
	cmd.Flags().BoolVar(&o.Libbpf112, "libbpf-1.1.2", false, "deduplicate as libbpf 1.1.2 does where it differs from current libbpf")
	cmd.Flags().BoolVar(&stats, "stats", false, "print type counts and per-pass timings to stderr")
	return cmd
}

// runDedup deduplicates one BTF file (encoder.DedupFile) and prints its
// --stats.
func runDedup(cmd *cobra.Command, in, out string, o encoder.DedupOptions, stats bool) error {
	var tune tuning.Dedup
	defer tune.Restore()
	o.Hooks = encoder.DedupHooks{Loading: tune.Loading, Deduplicated: tune.Deduplicated}
	st, err := encoder.DedupFile(cmd.Context(), in, out, o)
	if err != nil || !stats {
		return err
	}
	w := tabwriter.NewWriter(cmd.ErrOrStderr(), 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "types\t%d\t-> %d\t\n", st.Dedup.TypesIn, st.Dedup.TypesOut)
	fmt.Fprintf(w, "string bytes\t%d\t-> %d\t\n", st.Dedup.StringsIn, st.Dedup.StringsOut)
	fmt.Fprintf(w, "read+parse\t%.1f ms\t\t\n", ms(st.Parse))
	for _, p := range st.Dedup.Passes {
		fmt.Fprintf(w, "  %s\t%.1f ms\t\t\n", p.Name, ms(p.Duration))
	}
	fmt.Fprintf(w, "dedup\t%.1f ms\t\t\n", ms(st.Total))
	fmt.Fprintf(w, "write\t%.1f ms\t\t\n", ms(st.Write))
	return w.Flush()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
