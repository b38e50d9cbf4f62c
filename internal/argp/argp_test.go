package argp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// table is a small option table in the shape of pahole's: short and long
// options, values required and optional, prefixes shared, and one option
// of an extending program.
var table = &Table{
	Options: []Option{
		{Name: "class_name", Short: 'C', Arg: RequiredArg, ArgName: "CLASS_NAME"},
		{Name: "expand_types", Short: 'E'},
		{Name: "hex"},
		{Name: "header_type", Arg: RequiredArg, ArgName: "TYPE"},
		{Name: "jobs", Short: 'j', Arg: OptionalArg, ArgName: "NR_JOBS"},
		{Name: "prefix_filter", Short: 'y', Arg: RequiredArg, ArgName: "PREFIX"},
		{Name: "prettify", Arg: RequiredArg, ArgName: "PATH"},
		{Name: "sizes", Short: 's'},
		{Name: "structs"},
		{Name: "help", Short: '?'},
	},
	Extra: []Option{{Name: "stats"}, {Name: "skip_dedup"}},
}

// opts spells a Result's options as name or name=value, for comparing.
func opts(r Result) []string {
	var out []string
	for _, p := range r.Options {
		s := p.Option.Name
		if p.HasValue {
			s += "=" + p.Value
		}
		out = append(out, s)
	}
	return out
}

// glibcOracle builds testdata/getopt.c, glibc's getopt_long on the
// Options of table, once.
var glibcOracle = sync.OnceValues(func() (string, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "argp-getopt")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "getopt")
	if msg, err := exec.Command(cc, "-o", out, filepath.Join("testdata", "getopt.c")).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, msg)
	}
	return out, nil
})

// glibcReads is how glibc's getopt_long reads args: the options, the
// operands, and its message if it refuses them.
func glibcReads(t *testing.T, args []string, posix bool) string {
	t.Helper()
	prog, err := glibcOracle()
	if err != nil {
		t.Skipf("skipping: building testdata/getopt.c: %v", err)
	}
	cmd := exec.Command(prog, args...)
	cmd.Env = []string{}
	if posix {
		cmd.Env = []string{"POSIXLY_CORRECT=1"}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v", prog, args, err)
	}
	msg := strings.TrimPrefix(stderr.String(), prog+": ")
	return stdout.String() + msg
}

// parseReads is Parse's reading of args in glibcReads' words.
func parseReads(tab *Table, args []string, posix bool) string {
	r, err := Parse(tab, args, posix)
	var b strings.Builder
	for _, o := range opts(r) {
		b.WriteString(o + "\n")
	}
	if err != nil {
		return b.String() + "error\n" + err.Error() + "\n"
	}
	for _, o := range r.Operands {
		b.WriteString("-- " + o + "\n")
	}
	return b.String()
}

// TestParseAsGlibc reads command lines with Parse and with glibc's
// getopt_long (testdata/getopt.c) on the same table and compares what
// they read and the messages they refuse with.
func TestParseAsGlibc(t *testing.T) {
	only := &Table{Options: table.Options}
	for _, c := range []struct {
		args  []string
		posix bool
	}{
		{args: []string{"-C", "x", "f"}}, {args: []string{"-Cx"}}, {args: []string{"-EC", "x"}},
		{args: []string{"-ECx", "-s"}}, {args: []string{"-C", "-s"}}, {args: []string{"-C", "--"}},
		{args: []string{"--class_name", "--hex"}}, {args: []string{"--class_name=", "f"}},
		{args: []string{"--class", "x"}}, {args: []string{"--c=x"}}, {args: []string{"--pref", "rcu"}},
		{args: []string{"--st"}}, {args: []string{"--hex"}}, {args: []string{"-j"}}, {args: []string{"-j4", "f"}},
		{args: []string{"-j", "4"}}, {args: []string{"--jobs", "4"}}, {args: []string{"--jobs=4"}},
		{args: []string{"--jobs="}}, {args: []string{"-sj2E"}},
		{args: []string{"f", "-s", "g", "-E"}}, {args: []string{"f", "-s"}, posix: true},
		{args: []string{"-s", "f", "-E"}, posix: true},
		{args: []string{"-s", "--", "-E", "--hex"}}, {args: []string{"-", "-s", ""}},
		{args: []string{"-s", "-v", "-E"}}, {args: []string{"-sv"}}, {args: []string{"-:"}},
		{args: []string{"-C"}}, {args: []string{"-EC"}}, {args: []string{"--class_name"}}, {args: []string{"--cl"}},
		{args: []string{"--hex=1"}}, {args: []string{"--he=1"}}, {args: []string{"--he"}}, {args: []string{"--pr"}},
		{args: []string{"--s"}}, {args: []string{"--foo"}}, {args: []string{"--foo=bar"}}, {args: []string{"--="}},
		{args: []string{"--", "--"}}, {args: []string{"---"}}, {args: []string{"-s-"}},
	} {
		want := glibcReads(t, c.args, c.posix)
		if got := parseReads(only, c.args, c.posix); got != want {
			t.Errorf("%q (POSIXLY_CORRECT %v):\nParse reads\n%sglibc reads\n%s", c.args, c.posix, got, want)
		}
	}
}

// TestParseExtra: the options of an extending program never change what a
// command line of the program it extends means, and are otherwise read as
// the others.
func TestParseExtra(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--st"}, "structs\n"}, // stats fits too, but structs is the one of Options
		{[]string{"--s"}, "error\noption '--s' is ambiguous; possibilities: '--sizes' '--structs'\n"},
		{[]string{"--sta"}, "stats\n"},
		{[]string{"--sk"}, "skip_dedup\n"},
		{[]string{"--stats", "--skip_dedup=1"}, "stats\nerror\noption '--skip_dedup' doesn't allow an argument\n"},
		{[]string{"-?"}, "help\n"},
	} {
		if got := parseReads(table, c.args, false); got != c.want {
			t.Errorf("%q: read\n%swant\n%s", c.args, got, c.want)
		}
	}
}

// TestUsage checks the shape of argp's --usage on the small table: every
// option once, lines shorter than 79 columns, continuation lines indented
// by 12; cmd/gobtf's TestPaholeUsage compares pahole's whole table's with
// pahole master's output.
func TestUsage(t *testing.T) {
	got := Usage(table, "prog", "FILE")
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "Usage: prog [-Es?] [-C CLASS_NAME] [-j[NR_JOBS]] [-y PREFIX]") || !strings.HasSuffix(got, " FILE\n") {
		t.Errorf("usage:\n%s", got)
	}
	for i, l := range lines {
		if len(l) >= 79 || (i > 0 && !strings.HasPrefix(l, strings.Repeat(" ", 12)+"[")) && !strings.HasSuffix(l, "FILE") {
			t.Errorf("line %d: %q", i+1, l)
		}
	}
	for _, set := range [][]Option{table.Options, table.Extra} {
		for _, o := range set {
			if n := strings.Count(got, "[--"+o.Name+"]") + strings.Count(got, "[--"+o.Name+"=") + strings.Count(got, "[--"+o.Name+"[="); n != 1 {
				t.Errorf("--%s: %d times", o.Name, n)
			}
		}
	}
}

// FuzzParse: any command line reads without a panic, and the options read,
// spelled out in full with the operands after "--", read back the same.
func FuzzParse(f *testing.F) {
	f.Add("-EC\x00x\x00--pre\x00-j2\x00f", false)
	f.Add("--class_name=x\x00--\x00-s", true)
	f.Fuzz(func(t *testing.T, line string, posix bool) {
		args := strings.Split(line, "\x00")
		r, err := Parse(table, args, posix)
		if err != nil {
			return
		}
		var spelled []string
		for _, p := range r.Options {
			a := "--" + p.Option.Name
			if p.HasValue {
				a += "=" + p.Value
			}
			spelled = append(spelled, a)
		}
		spelled = append(append(spelled, "--"), r.Operands...)
		again, err := Parse(table, spelled, false)
		if err != nil || !reflect.DeepEqual(opts(again), opts(r)) || !reflect.DeepEqual(again.Operands, r.Operands) {
			t.Errorf("%q read as %q, %q; spelled out %q, read back as %q, %q (%v)",
				args, opts(r), r.Operands, spelled, opts(again), again.Operands, err)
		}
	})
}
