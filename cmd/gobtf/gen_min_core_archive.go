package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/archive"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/progress"
)

// archiveFlags are the flags of "gobtf gen min_core_btf --archive".
type archiveFlags struct {
	on   bool
	jobs int
	json bool
}

// archiveHelp is the part of min_core_btf's help about --archive.
const archiveHelp = `

With --archive, INPUT and OUTPUT are directories: SRC_DIR, a tree of
kernels' BTF laid out as BTFHub lays out its archive
(<distro>/<version>/<arch>/<kernel>.btf.tar.xz; also <kernel>.btf,
.btf.xz, .btf.gz and .btf.zst), and OUT_DIR, where each kernel's minimized
BTF goes, at the same relative path, as <kernel>.btf: the same bytes as
"gobtf gen min_core_btf KERNEL_BTF OUT_DIR/.../<kernel>.btf OBJECT..." writes.
Each file is read and decompressed in memory, nothing is extracted to disk;
-j N minimizes N kernels at once (default: one per CPU), each holding one
kernel, so memory does not grow with the number of kernels. An output with
the same bytes as one written before it (in the tree's order) is a hard link
to it (a symbolic link where the file system refuses hard links); an output
already there with the right bytes and links is not rewritten. A progress
bar is drawn on stderr when it is a terminal. The run ends with a summary:
kernels done, unique outputs, bytes written, and each kernel on which
relocations are unresolved, ambiguous or failed, with their counts
(--json: one JSON object per kernel and a summary object, one per line).
A file that cannot be read (corrupt, truncated, not BTF) is reported on
stderr and skipped; the run goes on and exits 1 at the end. --strict
refuses, unwritten, each kernel on which a relocation is unresolved,
ambiguous or failed.`

// addArchiveFlags adds --archive's flags and help to min_core_btf.
func addArchiveFlags(cmd *cobra.Command, f *archiveFlags) {
	cmd.Use += "\n  min_core_btf --archive [-j N] [--json] [--strict] SRC_DIR OUT_DIR OBJECT..."
	cmd.Long += archiveHelp
	cmd.Example += "\n  gobtf gen min_core_btf --archive -j2 btfhub-archive/archive min-archive/ a.bpf.o b.bpf.o"
	fl := cmd.Flags()
	fl.BoolVar(&f.on, "archive", false, "minimize every kernel's BTF in the tree INPUT into the tree OUTPUT")
	fl.IntVarP(&f.jobs, "jobs", "j", 0, "with --archive, minimize `N` kernels at once (default: one per CPU)")
	fl.BoolVar(&f.json, "json", false, "with --archive, print one JSON object per kernel and a summary object")
}

// runMinCoreArchive is "gobtf gen min_core_btf --archive SRC_DIR OUT_DIR
// OBJECT...".
func runMinCoreArchive(cmd *cobra.Command, o minCoreOptions, args []string) error {
	if o.verbose || o.debug || o.baseBTF != "" || len(o.modules) > 0 || o.splitDir != "" {
		return usageError{fmt.Errorf("min_core_btf: -v, -d, --base-btf, --module and --split-output are for one kernel, not with --archive")}
	}
	if len(args) < 3 {
		return usageError{fmt.Errorf("min_core_btf: --archive: expected SRC_DIR OUT_DIR OBJECT..., got %d argument(s)", len(args))}
	}
	src, out, objects := args[0], args[1], args[2:]
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !si.IsDir() {
		return usageError{fmt.Errorf("min_core_btf: --archive: %s is not a directory", src)}
	}
	if oi, err := os.Stat(out); err == nil && os.SameFile(si, oi) {
		return usageError{fmt.Errorf("min_core_btf: --archive: %s is both SRC_DIR and OUT_DIR", src)}
	}
	objs := make([]*btfext.Object, 0, len(objects))
	for _, path := range objects {
		obj, err := btfext.ReadObject(path)
		if err != nil {
			return err
		}
		objs = append(objs, obj)
	}
	entries, err := archive.Walk(src, out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	jobs := o.archive.jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	stdout := bufio.NewWriter(cmd.OutOrStdout())
	defer stdout.Flush()
	stderr := cmd.ErrOrStderr()
	bar := progress.New(stderr, len(entries))
	var unresolved []*archive.Kernel
	enc := json.NewEncoder(stdout)
	sum, err := archive.Run(entries, out, archive.Options{Objects: objs, Jobs: jobs, Strict: o.strict}, func(k *archive.Kernel) {
		if k.Err != nil {
			bar.Clear()
			fmt.Fprintf(stderr, "gobtf: %v (skipped)\n", k.Err)
		}
		bar.Step(k.Output)
		switch {
		case o.archive.json:
			enc.Encode(k)
		case k.Status != archive.Failed && k.Relocations.Errors() > 0:
			unresolved = append(unresolved, k)
		}
	})
	bar.Clear()
	if err != nil {
		return err
	}
	if o.archive.json {
		enc.Encode(struct {
			Summary archive.Summary `json:"summary"`
		}{sum})
	} else {
		printArchiveSummary(stdout, filepath.Clean(out), sum, unresolved)
	}
	if sum.Failed+sum.Refused > 0 {
		if err := stdout.Flush(); err != nil {
			return err
		}
		return &exitError{code: 1}
	}
	return stdout.Flush()
}

// printArchiveSummary writes the end of an --archive run: the counts, then
// each kernel with relocations unresolved, ambiguous or failed.
func printArchiveSummary(w io.Writer, out string, s archive.Summary, unresolved []*archive.Kernel) {
	fmt.Fprintf(w, "min_core_btf --archive: %d kernel(s): %d done, %d failed", s.Kernels, s.Done, s.Failed)
	if s.Refused > 0 {
		fmt.Fprintf(w, ", %d refused (--strict)", s.Refused)
	}
	fmt.Fprintf(w, "; %d unique output(s) in %s: %d written (%d bytes), %d linked, %d up to date\n",
		s.Unique, out, s.Written, s.BytesWritten, s.Linked, s.UpToDate)
	if len(unresolved) == 0 {
		fmt.Fprintln(w, "unresolved relocations: none (every relocation resolved, local, or an existence check answered no)")
		return
	}
	fmt.Fprintf(w, "unresolved relocations on %d kernel(s):\n", len(unresolved))
	for _, k := range unresolved {
		t := k.Relocations
		fmt.Fprintf(w, "  %s: %d unresolved, %d ambiguous, %d failed", k.Output, t.Unresolved, t.Ambiguous, t.Failed)
		if t.Mismatched > 0 {
			fmt.Fprintf(w, ", %d relocated otherwise by the output", t.Mismatched)
		}
		fmt.Fprintf(w, " (of %d; %d absent)\n", t.Total, t.Absent)
	}
}
