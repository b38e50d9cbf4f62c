package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btfcheck"
)

func init() { subcommands = append(subcommands, newCheckCmd) }

// checkFlags are gobtf check's options as given.
type checkFlags struct {
	base, as, kernel string
	lint, verbose    bool
	json             bool
	jobs             int
}

// newCheckCmd builds "gobtf check", which checks BTF as the kernel will.
func newCheckCmd() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [--base VMLINUX] [--as module|vmlinux|load] [--kernel VERSION|running] [--lint] [-v] [--json] FILE|DIR...",
		Short: "Check BTF as the kernel will: a vmlinux, its modules, whole module trees",
		Long: `check applies the kernel's BTF checks, offline, to each FILE (raw BTF, an ELF
file with a .BTF section, a file under /sys/kernel/btf) and to the kernel
modules found under each DIR (.ko, .ko.xz, .ko.zst, .ko.gz), and prints each
rejection as the kernel's log states it: the file, then "[ID] KIND name
reason". The kernel stops at the first fault, and so does the verdict; -v
lists every fault gobtf finds, with the kernel's log lines, and every file
accepted. A summary follows: files checked, accepted, rejected, by reason.

The kernel checks BTF in three places, with different rules; --as picks one:
  module   module loading: header, strings, each type's own fields, type
           tags, and the relocation of a distilled base (.BTF.base), on the
           vmlinux's BTF; no reference resolution, no size limit
  vmlinux  the vmlinux's own BTF at boot: the same checks, standalone
  load     BPF_BTF_LOAD: all of the above and the resolution of every
           reference, and the size limits (split BTF is checked merged
           with its base, as btfload hands it to the kernel)
By default a module (.ko, a module under /sys/kernel/btf, or raw BTF when
--base is given) gets the module check, a vmlinux (an ELF executable, or raw
BTF named vmlinux) the vmlinux check, other raw BTF the load check.

Modules are checked on --base, else on the vmlinux among the FILEs, else,
for modules under /lib/modules/VERSION/, on that tree's build/vmlinux or,
when VERSION is the running kernel's, on /sys/kernel/btf/vmlinux.

--kernel checks by the rules of that kernel version (default: the newest
gobtf knows; "running" for the running kernel's). The rules differ between
versions (docs/compatibility.md lists how); a version before .BTF.base was
read (6.11) checks a module's .BTF on the vmlinux directly, as it would.

--lint adds a section of what the kernel accepts but is wrong: a module made
on another vmlinux BTF than its base, types an incomplete deduplication left
twice, module types that copy a base type. It never changes the exit status.

--json prints one JSON object per file and a summary object, one per line.

Exit status: 0 when every file is accepted, 1 when any is rejected, 2 for
bad usage and files that cannot be read.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.base, "base", "B", "", "check modules on the vmlinux BTF in `VMLINUX` (raw or ELF)")
	fl.StringVar(&f.as, "as", "", "apply the rules of `PATH`: module, vmlinux or load (default: by the input)")
	fl.StringVar(&f.kernel, "kernel", "", "check by the rules of kernel `VERSION` (e.g. 6.1), or running (default: the newest gobtf knows)")
	fl.BoolVar(&f.lint, "lint", false, "also report what the kernel accepts but is wrong (never changes the exit status)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "list every fault found, with the kernel's log lines, and every file accepted")
	fl.BoolVar(&f.json, "json", false, "print one JSON object per file and a summary object")
	fl.IntVarP(&f.jobs, "jobs", "j", 0, "check `N` files at once (default: one per CPU)")
	return cmd
}

// runCheck runs the check and prints its report; it returns the error whose
// exit status ends gobtf.
func runCheck(cmd *cobra.Command, f checkFlags, args []string) error {
	opts := btfcheck.Options{Base: f.base, Lint: f.lint, AllFaults: f.verbose, Workers: f.jobs}
	var err error
	if opts.As, err = btfcheck.ParseAs(f.as); err != nil {
		return usageError{err}
	}
	opts.Kernel = btfcheck.Newest()
	if f.kernel != "" {
		if opts.Kernel, err = btfcheck.ParseKernel(f.kernel); err != nil {
			return usageError{err}
		}
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	defer out.Flush()
	rep := &checkReport{out: out, errOut: cmd.ErrOrStderr(), flags: f, kernel: opts.Kernel.String(), reasons: map[string]int{}}
	err = btfcheck.Run(args, opts, rep.add)
	var ue *btfcheck.UsageError
	if errors.As(err, &ue) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	rep.finish()
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	switch {
	case rep.errors > 0:
		return &exitError{code: 2}
	case rep.rejected > 0:
		return &exitError{code: 1}
	}
	return nil
}

// checkReport prints results as they come and keeps the summary's counts.
type checkReport struct {
	out    *bufio.Writer
	errOut io.Writer
	flags  checkFlags
	kernel string

	files, accepted, rejected, errors int
	reasons                           map[string]int
	lint                              []string // the lint section, in file order
}

// add reports one file's result.
func (r *checkReport) add(res btfcheck.Result) {
	r.files++
	if res.Err != nil {
		r.errors++
		r.out.Flush()
		fmt.Fprintf(r.errOut, "gobtf: %v\n", res.Err)
		if r.flags.json {
			r.writeJSON(jsonResult{File: res.File, Error: res.Err.Error()})
		}
		return
	}
	if res.Accepted {
		r.accepted++
	} else {
		r.rejected++
		r.reasons[res.Faults[0].Kernel]++
	}
	for _, l := range res.Lint {
		r.lint = append(r.lint, fmt.Sprintf("%s: %s (%s): %s", res.File, l.Check, l.Certain, l.Msg))
	}
	if r.flags.json {
		r.writeJSON(resultJSON(res, r.flags.verbose))
		return
	}
	if res.Accepted {
		if r.flags.verbose {
			note := ""
			if res.Note != "" {
				note = "; " + res.Note
			}
			fmt.Fprintf(r.out, "%s: accepted (%s, %s)%s\n", res.File, res.As, res.Kernel, note)
		}
		return
	}
	for i, f := range res.Faults {
		fmt.Fprintf(r.out, "%s: %s%s\n", res.File, sectionPrefix(f), btfcheck.Line(f.ValidationError))
		if !r.flags.verbose {
			break
		}
		if i == 0 {
			fmt.Fprintf(r.out, "    (rejected by the %s check of Linux %s; the kernel stops here)\n", res.As, res.Kernel)
		}
		for _, l := range f.Log {
			fmt.Fprintf(r.out, "    %s\n", strings.ReplaceAll(l, "\t", "    "))
		}
	}
}

// sectionPrefix names where a fault is when it is not in .BTF.
func sectionPrefix(f btfcheck.Fault) string {
	switch f.Section {
	case ".BTF":
		return ""
	case "":
		return "relocation: "
	}
	return f.Section + ": "
}

// finish prints the lint section and the summary.
func (r *checkReport) finish() {
	if r.flags.json {
		s := jsonSummary{Files: r.files, Accepted: r.accepted, Rejected: r.rejected, Errors: r.errors, Kernel: r.kernel, Reasons: r.reasons}
		if r.flags.lint {
			s.Lint = len(r.lint)
		}
		r.writeJSON(struct {
			Summary jsonSummary `json:"summary"`
		}{s})
		return
	}
	if r.flags.lint {
		fmt.Fprintf(r.out, "\nlint (%d findings; the kernel accepts these):\n", len(r.lint))
		for _, l := range r.lint {
			fmt.Fprintf(r.out, "%s\n", l)
		}
	}
	fmt.Fprintf(r.out, "\nchecked %d files by the rules of Linux %s: %d accepted, %d rejected", r.files, r.kernel, r.accepted, r.rejected)
	if r.errors > 0 {
		fmt.Fprintf(r.out, ", %d not checked", r.errors)
	}
	fmt.Fprintln(r.out)
	reasons := make([]string, 0, len(r.reasons))
	for k := range r.reasons {
		reasons = append(reasons, k)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if r.reasons[a] != r.reasons[b] {
			return r.reasons[b] - r.reasons[a]
		}
		return strings.Compare(a, b)
	})
	for _, k := range reasons {
		if k == "" {
			k = "(no kernel log line)"
		}
		fmt.Fprintf(r.out, "%8d  %s\n", r.reasons[k], strings.TrimPrefix(k, "\t"))
	}
}

// jsonResult is --json's object for one file.
type jsonResult struct {
	File     string `json:"file"`
	As       string `json:"as,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
	Accepted bool   `json:"accepted"`
	jsonFault
	Faults []jsonFault `json:"faults,omitempty"`
	Note   string      `json:"note,omitempty"`
	Lint   []jsonLint  `json:"lint,omitempty"`
	Error  string      `json:"error,omitempty"`
}

// jsonFault is a fault in --json's output: the kernel's ID, kind, name and
// reason, where it is, the error number and gobtf's description.
type jsonFault struct {
	ID      uint32   `json:"id,omitempty"`
	Kind    string   `json:"kind,omitempty"`
	Name    string   `json:"name,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	Section string   `json:"section,omitempty"`
	Errno   int      `json:"errno,omitempty"`
	Detail  string   `json:"detail,omitempty"`
	Log     []string `json:"log,omitempty"`
}

type jsonLint struct {
	Check   string `json:"check"`
	Certain string `json:"certainty"`
	Msg     string `json:"message"`
}

type jsonSummary struct {
	Files    int            `json:"files"`
	Accepted int            `json:"accepted"`
	Rejected int            `json:"rejected"`
	Errors   int            `json:"errors"`
	Kernel   string         `json:"kernel"`
	Reasons  map[string]int `json:"reasons"`
	Lint     int            `json:"lint,omitempty"`
}

func resultJSON(res btfcheck.Result, all bool) jsonResult {
	j := jsonResult{File: res.File, As: res.As.String(), Kernel: res.Kernel.String(), Accepted: res.Accepted, Note: res.Note}
	for i, f := range res.Faults {
		jf := jsonFault{ID: f.ID, Name: f.Name, Reason: f.Kernel, Section: f.Section, Errno: -f.Errno,
			Detail: strings.TrimPrefix(f.Error(), "btf: "), Log: f.Log}
		if f.ID != 0 {
			jf.Kind = f.Kind.String()
		}
		if i == 0 {
			j.jsonFault = jf
			if !all {
				break
			}
		}
		j.Faults = append(j.Faults, jf)
	}
	for _, l := range res.Lint {
		j.Lint = append(j.Lint, jsonLint{l.Check, l.Certain, l.Msg})
	}
	return j
}

func (r *checkReport) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain types are marshalled
	}
	r.out.Write(b)
	r.out.WriteByte('\n')
}
