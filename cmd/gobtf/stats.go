package main

import (
	"fmt"
	"io"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gobtf/gobtf/internal/encoder"
)

// printEncodeStats writes the --stats table of "gobtf -J": each phase's wall
// time, type and string counts before and after deduplication, and the
// process's peak resident memory, with the number of converters and of the
// CPUs the run could use.
func printEncodeStats(w io.Writer, st *encoder.Stats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "converters, CPUs\t%d, %d\t\n", st.Jobs, st.CPUs)
	row := func(name string, d time.Duration) { fmt.Fprintf(tw, "%s\t%.1f ms\t\n", name, ms(d)) }
	est := &st.Convert
	total := est.Load + est.Convert + st.BaseWait + st.Marshal + st.Write
	row("ELF load", est.Load)
	row("DWARF decode + convert + join", est.Convert)
	if st.BaseWait > 0 {
		// The base BTF is read and prepared while the input is
		// converted; only the time the encoding then waited for it is a
		// phase of its own.
		row("--btf_base: wait for its preparation", st.BaseWait)
	}
	if st.Dedup != nil {
		for _, p := range st.Dedup.Passes {
			if p.Beside {
				row("  dedup: "+p.Name+" (beside)", p.Duration)
				continue
			}
			row("  dedup: "+p.Name, p.Duration)
			total += p.Duration
		}
	}
	row("encode", st.Marshal)
	row("write", st.Write)
	row("total", total)
	fmt.Fprintf(tw, "types\t%d\t-> %d\t\n", est.Types, st.TypesOut)
	fmt.Fprintf(tw, "string bytes\t%d\t-> %d\t\n", est.StringBytes, st.StringBytesOut)
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
