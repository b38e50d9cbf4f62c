// Command gobtf converts DWARF debug information into deduplicated BTF, as a
// drop-in replacement for "pahole -J", and offers BTF tools (dump, dedup).
//
// Without a subcommand gobtf is pahole, and reads its command line as
// pahole does (cmdline.go). Exit status: 0 on success, 1 when the input is
// bad or the work fails, 64 for a command line pahole's argp refuses, as
// pahole exits; a subcommand's bad usage exits 2. Every failure is
// reported on stderr, in one line but where pahole's own words take more.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// paholeVersion is the pahole release whose behaviour gobtf reproduces.
// "gobtf --version" prints exactly this, because the kernel's
// scripts/pahole-version.sh turns that output into CONFIG_PAHOLE_VERSION and
// the build enables BTF features by it.
const paholeVersion = "v1.31"

// gobtfVersion is gobtf's own version, printed by "gobtf version".
const gobtfVersion = "0.1.0-dev"

// subcommands holds the constructors of the subcommands; each subcommand's
// file registers itself from an init function, so the files stay independent.
var subcommands []func() *cobra.Command

// usageError marks an error caused by the command line rather than the
// input; it makes gobtf exit with status 2, or, on pahole's command line,
// with argp's 64 (paholeUsageError).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode maps an error returned by the command tree to the process status.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.As(err, new(paholeUsageError)) {
		return exUsage
	}
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// usageArgs wraps a cobra argument validator so that its failures are usage
// errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{argsError(cmd, args)}
		}
		return nil
	}
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	return newRootCmdWith(stdout, stderr, &encodeOptions{})
}

// newRootCmdWith builds the command tree around opts, which receives the
// encoding flags (tests inspect it).
func newRootCmdWith(stdout, stderr io.Writer, opts *encodeOptions) *cobra.Command {
	var popts *printOptions
	root := &cobra.Command{
		Use:   "gobtf [flags] [FILE...]",
		Short: "Convert DWARF to deduplicated BTF, like pahole -J; print struct layouts, like pahole",
		Long: `gobtf reads the DWARF debug information of an ELF file (a vmlinux, a kernel
module, any C program), converts it to BTF, deduplicates it and writes it as a
.BTF section into the file or, with --btf_encode_detached, to a separate file.
It accepts pahole's encoding flags (gobtf -J [flags] FILE).

Without -J, gobtf prints the layout of the structs and unions of each FILE as
pahole does, from its DWARF or BTF (pahole's printing options). Without a
FILE it reads the running kernel's BTF ($PAHOLE_VMLINUX_BTF_FILENAME, else
/sys/kernel/btf/vmlinux), else the vmlinux of the running kernel, found by
its build ID where pahole looks for it. A first argument that is no file
names the types to print (gobtf task_struct). A module's BTF under
/sys/kernel/btf is read on the kernel's.

The command line is read as pahole's argp reads it: long options may be
abbreviated to any unambiguous prefix (--prefix for --prefix_filter), their
values attached (--class_name=NAME, -CNAME) or not; "--" ends the options.
A command line pahole refuses is refused in its words, with exit status 64.`,
		Version:       paholeVersion,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPahole(cmd, opts, popts, args)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	opts.register(root)
	popts = registerPrintFlags(root, &opts.verbose)
	polishHelp(root)
	for _, mk := range subcommands {
		sub := mk()
		sub.Args = usageArgs(sub.Args)
		root.AddCommand(sub)
	}
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print gobtf's version and the pahole version it emulates",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "gobtf %s (emulates pahole %s)\n", gobtfVersion, paholeVersion)
			return err
		},
	})
	return root
}

// run runs the command tree on args (the command line without the program
// name), writing to stdout and stderr, and returns the error main reports.
// Tests run gobtf in-process through it, so that they run what main runs.
func run(args []string, stdout, stderr io.Writer) error {
	root := newRootCmd(stdout, stderr)
	if isSubcommand(root, args) {
		root.SetArgs(args)
		return root.Execute()
	}
	return runCommandLine(root, args)
}

func main() {
	stop := startProfiles()
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		reportError(os.Stderr, err)
	}
	os.Exit(exitCode(err))
}
