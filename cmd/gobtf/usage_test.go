package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// TestUsageMessages runs the command line in process, as main does, on the
// mistakes a new user makes, and checks that each answer is one line naming
// what is wrong and what is expected, with the exit status: 64 for the
// pahole command line (argp's), 2 for a subcommand's.
func TestUsageMessages(t *testing.T) {
	dir := t.TempDir()
	obj := testutil.CompileC(t, dir, "struct s { int a; } v;\n")
	missing := filepath.Join(dir, "no-such-folder", "out.btf")
	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of the one line on stderr
		not  []string // substrings it must not have
	}{
		{"-j with a word", []string{"-J", "-j", "abc", obj}, 64,
			[]string{`expected one FILE to encode, got 2 argument(s): "abc"`, "-j2 or --jobs=2"},
			[]string{"accepts at most"}},
		{"-j with a separate count", []string{"-J", "-j", "2", obj}, 64,
			[]string{`got 2 argument(s): "2"`, "-j takes its count attached"},
			[]string{"accepts at most"}},
		{"two files", []string{"-J", obj, obj}, 64,
			[]string{"expected one FILE to encode, got 2 argument(s)"},
			[]string{"-j takes", "accepts at most"}},
		{"dump without a file", []string{"dump"}, 2,
			[]string{"dump: expected FILE, got no argument", "usage: gobtf dump [--base FILE] [--format raw|c] FILE"},
			[]string{"accepts 1 arg(s)", "Flags:"}},
		{"dedup with one file", []string{"dedup", "in.btf"}, 2,
			[]string{`dedup: expected IN OUT, got 1 argument(s): "in.btf"`},
			[]string{"accepts 2 arg(s)"}},
		{"version with an argument", []string{"version", "x"}, 2,
			[]string{`version: takes no arguments, got 1 argument(s): "x"`},
			[]string{"unknown command"}},
		{"missing output folder", []string{"-J", "--btf_encode_detached=" + missing, obj}, 1,
			[]string{missing + ": cannot write: folder " + filepath.Dir(missing) + " does not exist"},
			[]string{".gobtf-", ".tmp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code, err := runGobtf(c.args...)
			if code != c.code {
				t.Fatalf("exit status %d, want %d (err %v)", code, c.code, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || stderr != "" {
				t.Errorf("want one line and nothing else on stderr; got %q and stderr %q", msg, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(msg, n) {
					t.Errorf("message %q has %q", msg, n)
				}
			}
		})
	}
}

// TestHelpWords checks the help's own words: -j's optional count shown as
// pahole writes it, --version saying what it prints, --kabi_prefix saying
// what it does.
func TestHelpWords(t *testing.T) {
	help, _, _, err := runGobtf("--help")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ want, not string }{
		{"-j, --jobs[=N]", `N[="0"]`},
		{"print the pahole version gobtf emulates (" + paholeVersion + ")", "version for gobtf"},
		{"shorten every name that starts with PREFIX to PREFIX", "by the prefix"},
	}
	for _, c := range cases {
		if !strings.Contains(help, c.want) {
			t.Errorf("help lacks %q", c.want)
		}
		if strings.Contains(help, c.not) {
			t.Errorf("help still has %q", c.not)
		}
	}
	if out, _, _, err := runGobtf("--version"); err != nil || out != paholeVersion+"\n" {
		t.Errorf("--version printed %q (err %v), want %q", out, err, paholeVersion+"\n")
	}
}
