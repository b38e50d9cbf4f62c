// Command gobtf converts DWARF debug information into deduplicated BTF, as a
// drop-in replacement for "pahole -J", and offers BTF tools (dump, dedup).
//
// Exit status: 0 on success, 1 when the input is bad or the work fails, 2 on
// bad usage. Every failure is reported as one line on stderr.
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

// usageError marks an error caused by the command line rather than the input;
// it makes gobtf exit with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode maps an error returned by the command tree to the process status.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
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
		Use:   "gobtf -J [flags] FILE",
		Short: "Convert DWARF to deduplicated BTF, like pahole -J",
		Long: `gobtf reads the DWARF debug information of an ELF file (a vmlinux, a kernel
module, any C program), converts it to BTF, deduplicates it and writes it as a
.BTF section into the file or, with --btf_encode_detached, to a separate file.
It accepts pahole's encoding flags.

Without -J, gobtf prints the layout of the structs and unions of FILE as
pahole does, from its DWARF or, with -F btf, its BTF (pahole's printing
options).`,
		Version:       paholeVersion,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.encode && !opts.showSupported && len(args) == 1 {
				return runPrint(cmd, popts, opts.base, opts.verbose, args[0]) // pahole's printing mode
			}
			return runEncode(cmd, opts, args)
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
	root.SetArgs(normalizeArgs(args))
	return root.Execute()
}

func main() {
	stop := startProfiles()
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gobtf: %v\n", err)
	}
	os.Exit(exitCode(err))
}
