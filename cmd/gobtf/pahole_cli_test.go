package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/kernelbtf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// masterAnswer is what pahole master answered to one command line of
// testdata/paholecli/cases.txt (gen.sh wrote them to master.txt).
type masterAnswer struct {
	exit           int
	stdout, stderr string // with cases.txt's placeholders
	stdoutSum      string // instead of stdout when that was long: "HEX LENGTH"
}

// check compares what gobtf did with the answer, whose placeholders places
// replaces.
func (want *masterAnswer) check(t *testing.T, stdout, stderr string, code int, places *strings.Replacer) {
	t.Helper()
	if code != want.exit {
		t.Errorf("exit status %d, pahole master's %d", code, want.exit)
	}
	if want.stdoutSum != "" {
		sum := sha256.Sum256([]byte(stdout))
		if got := fmt.Sprintf("%s %d", hex.EncodeToString(sum[:]), len(stdout)); got != want.stdoutSum {
			t.Errorf("standard output (sha256 and length %s) differs from pahole master's (%s)", got, want.stdoutSum)
		}
	} else if w := places.Replace(want.stdout); stdout != w {
		t.Errorf("standard output differs from pahole master's:\n%s", testutil.FirstDiff(stdout, w))
	}
	if w := places.Replace(want.stderr); stderr != w {
		t.Errorf("standard error differs from pahole master's:\ngot:\n%swant:\n%s", stderr, w)
	}
}

// readMasterAnswers parses testdata/paholecli/master.txt.
func readMasterAnswers(t *testing.T) map[string]*masterAnswer {
	t.Helper()
	return readMasterAnswersIn(t, "paholecli")
}

// readMasterAnswersIn parses the master.txt of a folder of testdata.
func readMasterAnswersIn(t *testing.T, dir string) map[string]*masterAnswer {
	t.Helper()
	data := testutil.Testdata(t, dir, "master.txt")
	answers := map[string]*masterAnswer{}
	var cur *masterAnswer
	var text *strings.Builder
	var out, errOut strings.Builder
	finish := func() {
		if cur != nil {
			cur.stdout, cur.stderr = out.String(), errOut.String()
		}
		out.Reset()
		errOut.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== "):
			finish()
			cur = &masterAnswer{}
			answers[strings.TrimPrefix(line, "=== ")] = cur
		case strings.HasPrefix(line, "exit "):
			fmt.Sscan(strings.TrimPrefix(line, "exit "), &cur.exit)
		case strings.HasPrefix(line, "stdout sha256 "):
			cur.stdoutSum, text = strings.TrimPrefix(line, "stdout sha256 "), nil
		case line == "stdout":
			text = &out
		case line == "stderr":
			text = &errOut
		case strings.HasPrefix(line, "|"):
			text.WriteString(line[1:] + "\n")
		case line == `\`: // the last line had no newline
			s := strings.TrimSuffix(text.String(), "\n")
			text.Reset()
			text.WriteString(s)
		default:
			t.Fatalf("master.txt: cannot read %q", line)
		}
	}
	finish()
	return answers
}

// shellWords splits a line as the shell splits words without expansions (as gen.sh's eval
// splits cases.txt's lines):
// on blanks, with '...' and "..." quoting.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, c := range s {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
			}
			inWord = false
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// TestPaholeCommandLines runs gobtf on every command line of
// testdata/paholecli/cases.txt (the everyday commands on the
// running kernel's BTF, PAHOLE_VMLINUX_BTF_FILENAME being the shared
// kernel's; the command line's grammar and its errors; files that are not
// there or not debug information; split BTF with and without its base or
// on the wrong one; --lang) and compares its exit status, standard output
// and standard error with pahole master's, stored in master.txt.
func TestPaholeCommandLines(t *testing.T) {
	if machineCacheline() != 64 {
		t.Skip("skipping: pahole master's answers were recorded on a machine with 64-byte cachelines")
	}
	kbtf := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	dbtf := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.default.btf")
	xfsBTF := testutil.Reference(t, "modules/xfs.btf")
	nlsBTF := testutil.Reference(t, "modules/nls_utf8.btf")
	xfsKO := testutil.Corpus(t, "modules/xfs.ko")
	fix := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout")
	dir := t.TempDir()
	writeInput(t, dir, "text.txt", []byte("hello\n"))
	writeInput(t, dir, "empty", nil)
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeInput(t, dir, "trunc.btf", readFile(t, kbtf)[:100])
	writeInput(t, dir, "cut30.btf", testutil.Testdata(t, "classlayout", "layout.gcc.btf")[:30])
	// In gen.sh's order: a placeholder that starts another comes after it.
	places := strings.NewReplacer("@KBTF", kbtf, "@DBTF", dbtf, "@XFSBTF", xfsBTF, "@NLSBTF", nlsBTF,
		"@XFSKO", xfsKO, "@FIX", fix, "@D", dir)
	fakeRoot(t, t.TempDir()) // no kernel of this machine's: no vmlinux to find
	answers := readMasterAnswers(t)
	cases := 0
	for _, line := range strings.Split(string(testutil.Testdata(t, "paholecli", "cases.txt")), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cases++
		want := answers[line]
		if want == nil {
			t.Errorf("%s: no answer of pahole master's in master.txt; run gen.sh", line)
			continue
		}
		t.Run(line, func(t *testing.T) {
			args := shellWords(places.Replace(line))
			for _, v := range []string{"POSIXLY_CORRECT", "LIBBPF_LOG_LEVEL", "PAHOLE_LANG_EXCLUDE"} {
				t.Setenv(v, "")
				os.Unsetenv(v)
			}
			t.Setenv("PAHOLE_VMLINUX_BTF_FILENAME", kbtf)
			for len(args) > 0 {
				name, value, ok := strings.Cut(args[0], "=")
				if !ok || name == "" || strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
					break
				}
				t.Setenv(name, value)
				args = args[1:]
			}
			t.Chdir(dir)
			stdout, stderr, code := runAsMain(args...)
			want.check(t, stdout, stderr, code, places)
		})
	}
	if cases != len(answers) {
		t.Errorf("cases.txt has %d command lines, master.txt %d answers; run gen.sh", cases, len(answers))
	}
}

// runAsMain runs gobtf in-process and returns what main would write on
// its standard output and error, and its exit status.
func runAsMain(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	if err != nil {
		reportError(&errOut, err)
	}
	return out.String(), errOut.String(), exitCode(err)
}

// fakeRoot makes pahole's defaults look at a machine whose /sys, /boot,
// /lib and /usr are under root; $PAHOLE_VMLINUX_BTF_FILENAME and $HOME
// stay this process's.
func fakeRoot(t *testing.T, root string) {
	t.Helper()
	old := systemFor
	systemFor = func() kernelbtf.System {
		s := kernelbtf.Host()
		s.Root = root
		return s
	}
	t.Cleanup(func() { systemFor = old })
}
