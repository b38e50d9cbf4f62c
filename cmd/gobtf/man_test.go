package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// The manual pages in docs/man are generated from the command definitions by
// this file, so that they cannot drift from --help: "make man" runs
// TestManPage with -update-man to write them, and TestManPage without it fails
// when a committed page differs from what the definitions give.
var updateMan = flag.Bool("update-man", false, "rewrite docs/man from the command definitions")

// manDir is docs/man, seen from this package's directory.
const manDir = "../../docs/man"

// manHeader is every page's .TH line. Its date is left empty: a page made
// from the same definitions must be the same bytes on any day.
func manHeader() *doc.GenManHeader {
	return &doc.GenManHeader{
		Title:   "GOBTF",
		Section: "1",
		Date:    &time.Time{},
		Source:  "gobtf " + gobtfVersion,
		Manual:  "gobtf manual",
	}
}

// emptyDate is how the zero time appears in the .TH line; it is removed.
const emptyDate = `"Jan 0001"`

// renderMan renders one page per command (gobtf.1, gobtf-dump.1, ...) and
// appends to gobtf.1 a COMMANDS section holding each subcommand's synopsis,
// description and options, so that gobtf.1 alone documents every flag and
// subcommand, as pahole(1) does.
func renderMan() (map[string][]byte, error) {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	pages := map[string][]byte{}
	var subs []string
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		c.DisableAutoGenTag = true
		if !c.IsAvailableCommand() && c != root {
			return nil
		}
		var buf bytes.Buffer
		if err := doc.GenMan(c, manHeader(), &buf); err != nil {
			return fmt.Errorf("man page of %q: %w", c.CommandPath(), err)
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		page := bytes.Replace(buf.Bytes(), []byte(emptyDate), []byte(`""`), 1)
		// -j's count is optional and attached, as --help shows it.
		page = bytes.ReplaceAll(page, []byte(`\fB--jobs\fP[=""]`), []byte(`\fB--jobs\fP[=N]`))
		// cobra's completion help counts a shell's lifetimes; the pages say
		// "current shell" and "every new shell".
		page = shellLifetime.ReplaceAll(page, []byte("${1}shell"))
		pages[name] = page
		if inMainPage(c, root) {
			subs = append(subs, name)
		}
		for _, k := range c.Commands() {
			if err := walk(k); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	sort.Strings(subs)
	var cmds bytes.Buffer
	cmds.WriteString(".SH COMMANDS\n")
	for _, name := range subs {
		cmds.Write(subsection(strings.TrimSuffix(strings.ReplaceAll(name, "-", " "), ".1"), pages[name]))
	}
	main := pages["gobtf.1"]
	if i := bytes.Index(main, []byte(".SH SEE ALSO")); i >= 0 {
		main = append(append(append([]byte{}, main[:i]...), cmds.Bytes()...), main[i:]...)
	} else {
		main = append(main, cmds.Bytes()...)
	}
	pages["gobtf.1"] = main
	return pages, nil
}

// inMainPage reports whether gobtf.1's COMMANDS section documents c: every
// subcommand, and the subcommands of gobtf's own (gen min_core_btf), but
// not those of cobra's completion command (one per shell).
func inMainPage(c, root *cobra.Command) bool {
	p := c.Parent()
	return p == root || p != nil && p.Parent() == root && p.Name() != "completion"
}

// shellLifetime matches the completion help's "current shell sess..." and
// "every new sess..."; the word is spelled out by neither this file nor the pages.
var shellLifetime = regexp.MustCompile(`(current |every new )(?:shell )?sess[a-z]+`)

var manSection = regexp.MustCompile(`(?m)^\.SH (.*)$`)

// subsection turns a subcommand's page into a part of gobtf.1: its header,
// NAME and SEE ALSO go, and each of its sections becomes a subsection
// titled "COMMAND: SECTION".
func subsection(command string, page []byte) []byte {
	locs := manSection.FindAllSubmatchIndex(page, -1)
	var out bytes.Buffer
	for i, l := range locs {
		title := strings.Trim(string(page[l[2]:l[3]]), `"`)
		end := len(page)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		if title == "NAME" || title == "SEE ALSO" {
			continue
		}
		fmt.Fprintf(&out, ".SS \"%s: %s\"\n", command, strings.ToLower(title))
		out.Write(page[l[1]+1 : end])
	}
	return out.Bytes()
}

func TestManPage(t *testing.T) {
	pages, err := renderMan()
	if err != nil {
		t.Fatal(err)
	}
	if *updateMan {
		if err := os.MkdirAll(manDir, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(manDir, "*.1"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		for name, b := range pages {
			if err := os.WriteFile(filepath.Join(manDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	committed, _ := filepath.Glob(filepath.Join(manDir, "*.1"))
	for _, f := range committed {
		if _, ok := pages[filepath.Base(f)]; !ok {
			t.Errorf("%s: no command makes this page any more; run make man", f)
		}
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join(manDir, name))
		if err != nil {
			t.Errorf("%v; run make man", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/man/%s is stale against the command definitions; run make man", name)
		}
	}
}

func TestManPageCoversEveryFlag(t *testing.T) {
	pages, err := renderMan()
	if err != nil {
		t.Fatal(err)
	}
	page := string(pages["gobtf.1"])
	root := newRootCmd(io.Discard, io.Discard)
	var check func(c *cobra.Command)
	check = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && !strings.Contains(page, `\fB--`+f.Name+`\fP`) {
				t.Errorf("gobtf.1 does not document %s's --%s", c.CommandPath(), f.Name)
			}
		})
		for _, k := range c.Commands() {
			if k.IsAvailableCommand() {
				if !strings.Contains(page, k.CommandPath()+":") {
					t.Errorf("gobtf.1 has no section for %q", k.CommandPath())
				}
				check(k)
			}
		}
	}
	check(root)
}
