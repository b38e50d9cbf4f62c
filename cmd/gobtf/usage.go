package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// This file holds the command line's own words where cobra's and pflag's
// defaults say too little: argument-count errors, the help's rendering of
// -j's optional value, and the --version flag's help.

// jobsHint is added to an argument-count error when -j was given: pahole's
// -j takes its count attached, so "-j 2 FILE" reads 2 as a second FILE.
const jobsHint = "; -j takes its count attached, as in -j2 or --jobs=2 (a bare -j means one worker per CPU)"

// argsError rewrites cobra's argument-count error ("accepts 1 arg(s),
// received 0") into one line naming what was given and what cmd expects,
// taken from the operands of its Use line.
func argsError(cmd *cobra.Command, args []string) error {
	want := operands(cmd.Use)
	got := "no argument"
	if len(args) > 0 {
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = strconv.Quote(a)
		}
		got = fmt.Sprintf("%d argument(s): %s", len(args), strings.Join(q, " "))
	}
	var msg string
	switch {
	case !cmd.HasParent():
		msg = fmt.Sprintf("expected one FILE to encode, got %s", got)
	case len(want) == 0:
		msg = fmt.Sprintf("takes no arguments, got %s", got)
	default:
		msg = fmt.Sprintf("expected %s, got %s (usage: %s)", strings.Join(want, " "), got, cmd.UseLine())
	}
	if cmd.HasParent() {
		msg = cmd.Name() + ": " + msg
	}
	if f := cmd.Flags().Lookup("jobs"); f != nil && f.Changed && len(args) > 1 {
		msg += jobsHint
	}
	return fmt.Errorf("%s", msg)
}

// operands lists the operands of a Use line ("gobtf dedup [--base FILE]
// [--stats] IN OUT" gives IN, OUT): the words after the command's name that
// are neither options nor inside brackets.
func operands(use string) []string {
	var out []string
	depth := 0
	for i, w := range strings.Fields(use) {
		opens, closes := strings.Count(w, "["), strings.Count(w, "]")
		inside := depth > 0 || opens > 0
		depth += opens - closes
		if i == 0 || inside || strings.HasPrefix(w, "-") {
			continue
		}
		out = append(out, w)
	}
	return out
}

// polishHelp gives the root command argp's own options (--help and -?,
// --usage, --version, and the hidden --program-name and --HANG, which
// cmdline.go acts on before cobra sees the command line) and a help text
// that shows -j's optional count as [=N] instead of pflag's N[="0"].
func polishHelp(root *cobra.Command) {
	f := root.Flags()
	f.BoolP("help", "?", false, "print this help")
	f.Bool("usage", false, "print a short usage message, as pahole's argp does")
	f.Bool("version", false,
		"print the pahole version gobtf emulates ("+paholeVersion+"), which kernel builds read; \"gobtf version\" prints gobtf's own")
	f.String("program-name", "", "the name argp's messages give the program")
	f.Lookup("program-name").Hidden = true
	f.VarPF(&stringAction{fn: func(string) {}}, "HANG", "", "wait SECS seconds (default 3600), argp's aid for attaching a debugger").NoOptDefVal = "3600"
	f.Lookup("HANG").Hidden = true
	f.BoolP("ctf_encode", "Z", false, "pahole lists it, but its parser refuses it")
	f.Lookup("ctf_encode").Hidden = true
	cobra.AddTemplateFunc("gobtfFlagUsages", flagUsages)
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "gobtfFlagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "gobtfFlagUsages .InheritedFlags")
	root.SetUsageTemplate(t)
}

// flagUsages is pflag's flag table with -j's optional value written as
// pahole writes it; the replacement has the same width, so the columns stay
// aligned.
func flagUsages(fs *pflag.FlagSet) string {
	return strings.ReplaceAll(fs.FlagUsages(), `--jobs N[="0"]`, `--jobs[=N]    `)
}
