package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// TestVerboseSkipsKernel runs gobtf -V -J with the kernel-build flags on
// the shared vmlinux (not in -short mode) and modules and compares the
// functions it says it skipped, and why, with pahole master's lines stored
// in testdata/verbose (see the README there), and for three modules all
// the lines of pahole but its type listing. The first lines name the file,
// as pahole's does, and the BTF must be the same as without -V.
func TestVerboseSkipsKernel(t *testing.T) {
	base := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	inputs := append([]string{"vmlinux"}, testutil.ModuleNames...)
	for _, name := range inputs {
		t.Run(name, func(t *testing.T) {
			var in string
			var args []string
			if name == "vmlinux" {
				if testing.Short() {
					t.Skip("skipping the whole-vmlinux encoding in -short mode")
				}
				in = testutil.Corpus(t, testutil.VmlinuxName)
			} else {
				in = testutil.Corpus(t, "modules/"+name+".ko")
				args = []string{"--btf_base", base}
			}
			dir := t.TempDir()
			quiet, loud := filepath.Join(dir, "quiet.btf"), filepath.Join(dir, "verbose.btf")
			mustGobtf(t, append(append([]string{"-J", "-j2", "--btf_encode_detached=" + quiet, in}, args...), kbuildFlags...)...)
			var stdout, stderr bytes.Buffer
			root := newRootCmd(&stdout, &stderr)
			root.SetArgs(spelledOut(t, root, append(append([]string{"-V", "-J", "-j2", "--btf_encode_detached=" + loud, in}, args...), kbuildFlags...)))
			if err := root.Execute(); err != nil {
				t.Fatalf("gobtf -V: %v\n%s", err, stderr.String())
			}
			if !bytes.Equal(readFile(t, quiet), readFile(t, loud)) {
				t.Error("-V changed the BTF")
			}
			want, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "testdata", "verbose", name+".skips"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			// pahole's first lines: the file lacks the per-CPU section
			// (modules), then the file's name.
			head := lines[0]
			if strings.HasPrefix(head, "btf_encoder__new: ") && len(lines) > 1 {
				head = lines[1]
			}
			if head != "File "+in+":" {
				t.Errorf("-V's first lines are %q, want pahole's %q", lines[:min(2, len(lines))], "File "+in+":")
			}
			var got []string
			for _, l := range lines {
				if strings.Contains(l, ": skipping BTF encoding of function") {
					got = append(got, l)
				}
			}
			if want, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "testdata", "verbose", name+".lines")); err == nil {
				all := strings.Split(strings.ReplaceAll(strings.Join(lines, "\n"), in, "FILE"), "\n")
				sort.Strings(all)
				if text := strings.Join(all, "\n") + "\n"; text != string(want) {
					t.Errorf("-V printed %d lines, pahole master %d (its type listing aside); diff:\n%s", len(all),
						strings.Count(string(want), "\n"), lineDiff(strings.Split(string(want), "\n"), all))
				}
			}
			sort.Strings(got)
			gotText := strings.Join(got, "\n")
			if len(got) > 0 {
				gotText += "\n"
			}
			if gotText != string(want) {
				t.Errorf("-V printed %d lines, pahole master %d; diff:\n%s", len(got), strings.Count(string(want), "\n"),
					lineDiff(strings.Split(string(want), "\n"), got))
			}
		})
	}
}

// lineDiff lists the lines of want missing from got ("-") and the lines of
// got not in want ("+").
func lineDiff(want, got []string) string {
	in := func(lines []string) map[string]bool {
		m := make(map[string]bool, len(lines))
		for _, l := range lines {
			if l != "" {
				m[l] = true
			}
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range want {
		if l != "" && !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range got {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// TestVerboseFlag checks that -V and --verbose, as pahole spells them, are
// accepted and set the encoding's verbose option, and that it is off
// without them.
func TestVerboseFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"-J", "-V", "x"}, true},
		{[]string{"-J", "--verbose", "x"}, true},
		{[]string{"--btf_encode_detached=out.btf", "--verbose", "x"}, true},
		{[]string{"-J", "x"}, false},
	} {
		_, eo, err := parseEncode(t, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if eo.verbose != tc.want {
			t.Errorf("%v: verbose %v, want %v", tc.args, eo.verbose, tc.want)
		}
	}
}
