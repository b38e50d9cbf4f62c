package main

import (
	"fmt"
	"io"
	"runtime"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
	"github.com/gobtf/gobtf/internal/dwarf2btf"
)

// printEncodeStats writes the --stats table of "gobtf -J": each phase's wall
// time, type and string counts before and after deduplication, and the
// process's peak resident memory. baseWait is the time spent waiting for
// the --btf_base, 0 without one. jobs is the number of converters, shown
// with the number of CPUs the run could use.
func printEncodeStats(w io.Writer, jobs int, est *dwarf2btf.Stats, baseWait time.Duration, dst *dedup.Stats, encode, write time.Duration, out *btf.Spec) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "converters, CPUs\t%d, %d\t\n", jobs, runtime.GOMAXPROCS(0))
	row := func(name string, d time.Duration) { fmt.Fprintf(tw, "%s\t%.1f ms\t\n", name, ms(d)) }
	total := est.Load + est.Convert + baseWait + encode + write
	row("ELF load", est.Load)
	row("DWARF decode + convert + join", est.Convert)
	if baseWait > 0 {
		// The base BTF is read and prepared while the input is
		// converted; only the time the encoding then waited for it is a
		// phase of its own.
		row("--btf_base: wait for its preparation", baseWait)
	}
	if dst != nil {
		for _, p := range dst.Passes {
			if p.Beside {
				row("  dedup: "+p.Name+" (beside)", p.Duration)
				continue
			}
			row("  dedup: "+p.Name, p.Duration)
			total += p.Duration
		}
	}
	row("encode", encode)
	row("write", write)
	row("total", total)
	fmt.Fprintf(tw, "types\t%d\t-> %d\t\n", est.Types, out.NumTypes())
	fmt.Fprintf(tw, "string bytes\t%d\t-> %d\t\n", est.StringBytes, len(out.Strings().Bytes()))
	if kb, ok := peakRSSKiB(); ok {
		fmt.Fprintf(tw, "peak RSS\t%.1f MB\t\n", float64(kb)/1024)
	}
	return tw.Flush()
}

// peakRSSKiB returns the process's peak resident set size in KiB.
func peakRSSKiB() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return int64(ru.Maxrss), true
}
