package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gobtf/gobtf/internal/argp"
	"github.com/gobtf/gobtf/internal/pahole"
)

// gobtf without a subcommand is pahole, and reads its command line as
// pahole does: through glibc's argp (internal/argp) against pahole's option
// table, with argp's abbreviations, messages and exit status. What argp
// reads is handed to cobra spelled out in full (--name=VALUE, then "--"
// and the operands), so cobra's flags see exactly pahole's options. The
// options argp itself acts on while it reads (--help, --usage, --version,
// --supported_btf_features, a --btf_features_strict naming an unknown
// feature) act at their place on the line, as in pahole: what follows
// them is never read. A command line whose first argument names a
// subcommand goes to cobra as it is.

// exUsage is argp's exit status for a command line it refuses (EX_USAGE).
const exUsage = 64

// progName is the name gobtf gives itself in argp's messages.
const progName = "gobtf"

// exitError is a failure reported in pahole's (or argp's) own words: msg is
// written to stderr as it is, and gobtf exits with code.
type exitError struct {
	msg  string
	code int
}

func (e *exitError) Error() string { return strings.TrimSuffix(e.msg, "\n") }

// reportError writes err to w as main reports it.
func reportError(w io.Writer, err error) {
	var ee *exitError
	if errors.As(err, &ee) {
		fmt.Fprint(w, ee.msg)
		return
	}
	fmt.Fprintf(w, "gobtf: %v\n", err)
}

// isSubcommand says whether args start with the name of a subcommand
// (or cobra's help and completion commands).
func isSubcommand(root *cobra.Command, args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return true
	}
	for _, c := range root.Commands() {
		if c.Name() == args[0] || c.HasAlias(args[0]) {
			return true
		}
	}
	return false
}

// runCommandLine runs the root command on a pahole command line.
func runCommandLine(root *cobra.Command, args []string) error {
	canon, act, err := paholeArgs(root, args)
	switch {
	case err != nil:
		return err
	case act != nil:
		return act()
	}
	root.SetArgs(canon)
	err = root.Execute()
	if errors.As(err, new(usageError)) {
		return paholeUsageError{err}
	}
	return err
}

// paholeUsageError is a usage error on pahole's command line: gobtf exits
// with argp's status for it.
type paholeUsageError struct{ err error }

func (e paholeUsageError) Error() string { return e.err.Error() }
func (e paholeUsageError) Unwrap() error { return e.err }

// paholeTable is pahole's option table with, as argp.Table.Extra, the root
// command's flags pahole does not have (gobtf's own).
func paholeTable(root *cobra.Command) *argp.Table {
	t := &argp.Table{Options: paholeOptions}
	known := map[string]bool{}
	for _, o := range paholeOptions {
		known[o.Name] = true
	}
	root.Flags().VisitAll(func(f *pflag.Flag) {
		if known[f.Name] {
			return
		}
		arg, _ := pflag.UnquoteUsage(f)
		o := argp.Option{Name: f.Name, Arg: argp.RequiredArg, ArgName: strings.ToUpper(arg), Hidden: f.Hidden}
		if f.NoOptDefVal != "" {
			o.Arg = argp.OptionalArg
			if f.Value.Type() == "bool" {
				o.Arg = argp.NoArg
			}
		}
		if f.Shorthand != "" {
			o.Short = f.Shorthand[0]
		}
		t.Extra = append(t.Extra, o)
	})
	return t
}

// paholeArgs reads args as pahole's argp does and returns them spelled
// out for cobra, or, when an option argp acts on comes first, what to do
// instead. A command line argp refuses gives its message, with exit status
// 64.
func paholeArgs(root *cobra.Command, args []string) (canon []string, act func() error, err error) {
	t := paholeTable(root)
	_, posix := os.LookupEnv("POSIXLY_CORRECT")
	res, perr := argp.Parse(t, args, posix)
	name := progName // argp's name for itself, which --program-name sets
	out := root.OutOrStdout()
	for _, p := range res.Options {
		switch p.Option.Name {
		case "help":
			return nil, func() error {
				root.InitDefaultHelpCmd()
				root.InitDefaultCompletionCmd()
				return root.Help()
			}, nil
		case "usage":
			return nil, func() error { _, err := io.WriteString(out, argp.Usage(t, name, "FILE")); return err }, nil
		case "version":
			return nil, func() error { _, err := fmt.Fprintln(out, paholeVersion); return err }, nil
		case "supported_btf_features":
			return nil, func() error { _, err := fmt.Fprintln(out, pahole.SupportedFeatures()); return err }, nil
		case "btf_features_strict":
			if msg := strictFeatureError(p.Value); msg != "" {
				return nil, nil, &exitError{msg, 1}
			}
		case "program-name":
			name = p.Value
			continue
		case "HANG":
			// argp's aid for attaching a debugger: wait SECS seconds
			// (an hour without a value) before going on.
			secs := 3600
			if p.HasValue {
				secs = atoi(p.Value)
			}
			time.Sleep(time.Duration(max(secs, 0)) * time.Second)
			continue
		case "ctf_encode":
			// pahole lists -Z but its parser has it commented out, so
			// argp finds no one to take it.
			opt := p.Spelling
			if strings.HasPrefix(opt, "--") {
				opt = "--" + p.Option.Name
			}
			return nil, nil, &exitError{fmt.Sprintf("%s: %s: (PROGRAM ERROR) Option should have been recognized!?\n%s",
				name, opt, tryHelp(name)), exUsage}
		}
		arg := "--" + p.Option.Name
		if p.HasValue {
			arg += "=" + p.Value
		}
		canon = append(canon, arg)
	}
	if perr != nil {
		return nil, nil, &exitError{fmt.Sprintf("%s: %v\n%s", progName, perr, tryHelp(name)), exUsage}
	}
	return append(append(canon, "--"), res.Operands...), nil, nil
}

// tryHelp is argp's last line after a refused command line.
func tryHelp(name string) string {
	return fmt.Sprintf("Try `%s --help' or `%s --usage' for more information.\n", name, name)
}

// strictFeatureError is pahole's message for a --btf_features_strict list
// naming a feature it does not know, "" when it names none: pahole prints
// it and exits while it reads the command line.
func strictFeatureError(list string) string {
	features := strings.TrimPrefix(list, "+")
	if list == "default" {
		return ""
	}
	supported := map[string]bool{"default": true}
	for _, f := range strings.Split(pahole.SupportedFeatures(), ",") {
		supported[f] = true
	}
	for _, f := range strings.Split(features, ",") {
		if f != "" && !supported[f] {
			return fmt.Sprintf("Feature '%s' in '%s' is not supported.  Supported BTF features are:\n%s\n",
				f, features, pahole.SupportedFeatures())
		}
	}
	return ""
}

// atoi is C's: the number its leading digits (after blanks and a sign)
// spell, cut to an int as C's int is; 0 when there are none.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil && n == 0 {
		return 0 // no digits
	}
	return int(int32(n)) // strtol saturates; the cast to int wraps
}
