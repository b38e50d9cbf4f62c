package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// runGobtfPrint runs gobtf's printing mode in dir with args and returns
// stderr then stdout (as pahole's land in one file when the output is
// small: stderr is unbuffered), and the exit status.
func runGobtfPrint(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	out, errOut, code := runGobtfPrint2(t, dir, args...)
	return errOut + out, code
}

// runGobtfPrint2 runs gobtf's printing mode and returns stdout and stderr.
func runGobtfPrint2(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	if !hasFlag(args, "-c") {
		args = append([]string{"-c", "64"}, args...) // the outputs were made on a 64-byte cacheline machine
	}
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	if err != nil {
		reportError(&errOut, err)
	}
	return out.String(), errOut.String(), exitCode(err)
}

func hasFlag(args []string, f string) bool {
	for _, a := range args {
		if a == f {
			return true
		}
	}
	return false
}

// TestPrintFixturesMatchPaholeMaster compares gobtf's layout view of the
// BTF and of the DWARF of testdata/classlayout/layout.c and reorg.c (gcc
// and clang) with pahole master's, stored by gen.sh and gen_reorg.sh, for
// each option set of cases.txt and reorg_cases.txt.
func TestPrintFixturesMatchPaholeMaster(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout")
	for _, sets := range masterSections(t, dir) {
		for _, sec := range sets.sections {
			head, want, _ := strings.Cut(sec, "\n")
			args := strings.Fields(strings.TrimPrefix(head, "pahole "))
			t.Run(sets.name+" "+strings.Join(args[2:len(args)-1], " "), func(t *testing.T) {
				got, code := runGobtfPrint(t, dir, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, got)
				}
				if got != want {
					t.Errorf("output differs from pahole master's:\n%s", testutil.FirstDiff(got, want))
				}
			})
		}
	}
}

// masterOutputs are the sections ("#### pahole ARGS" and the output) of one
// file of pahole master's outputs on a fixture.
type masterOutputs struct {
	name     string // FIXTURE.CC.FORMAT
	sections []string
}

func masterSections(t *testing.T, dir string) []masterOutputs {
	var out []masterOutputs
	for _, fixture := range []string{"layout", "reorg"} {
		for _, cc := range []string{"gcc.btf", "clang.btf", "gcc.dwarf", "clang.dwarf"} {
			data, err := os.ReadFile(filepath.Join(dir, fixture+"."+cc+".master.txt"))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, masterOutputs{fixture + "." + cc, strings.Split(string(data), "#### ")[1:]})
		}
	}
	return out
}

// TestPrintReorganizeEndlessFixture: on reorg_forever.CC (reorg.c with
// -DREORG_FOREVER), pahole master's -R -C reorg_forever and -P never end.
// gobtf says so in one line, prints no -R result for it, and its -P equals
// master's -P on reorg.CC, which lacks only that struct.
func TestPrintReorganizeEndlessFixture(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout")
	for _, sets := range masterSections(t, dir) {
		cc, ok := strings.CutPrefix(sets.name, "reorg.")
		if !ok {
			continue
		}
		for _, sec := range sets.sections {
			head, want, _ := strings.Cut(sec, "\n")
			args := strings.Fields(strings.TrimPrefix(head, "pahole "))
			if strings.Join(args[2:len(args)-1], " ") != "-P" {
				continue
			}
			in := strings.Replace(args[len(args)-1], "reorg.", "reorg_forever.", 1)
			t.Run(cc, func(t *testing.T) {
				out, errOut, code := runGobtfPrint2(t, dir, args[0], args[1], "-P", in)
				if code != 0 || out != want {
					t.Errorf("-P: exit %d, output differs from pahole master's on reorg.%s:\n%s", code, cc, testutil.FirstDiff(out, want))
				}
				if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "struct reorg_forever: not reorganized") {
					t.Errorf("-P: error stream %q; want one line naming reorg_forever", errOut)
				}
				out, errOut, code = runGobtfPrint2(t, dir, args[0], args[1], "-R", "-S", "-C", "reorg_forever", in)
				if code != 0 || out != "" || !strings.Contains(errOut, "reorg_forever") {
					t.Errorf("-R -S -C reorg_forever: exit %d, stderr %q, output %.60q", code, errOut, out)
				}
			})
		}
	}
}

// TestPrintSharedMatchesPaholeMaster compares the SHA-256 of gobtf's output
// on the shared kernel BTF and its modules' split BTF, and on the DWARF of
// the corpus vmlinux and modules, with pahole master's, recorded by
// testdata/classlayout/gen_shared.sh.
func TestPrintSharedMatchesPaholeMaster(t *testing.T) {
	base := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "shared.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		want, input, opts := f[0], f[1], f[2:]
		for i, o := range opts {
			if o == "@holes" { // gen_shared.sh: every struct with holes but pglist_data
				opts = slices.Clone(opts)
				opts[i] = structsWithHoles(t, base)
			}
		}
		args := append([]string{"-F", "btf"}, opts...)
		if m, ok := strings.CutPrefix(input, "module:"); ok {
			args = append(append([]string{"--btf_base", base}, opts...), testutil.Reference(t, "modules/"+m+".btf"))
		} else if m, ok := strings.CutPrefix(input, "dwarf:"); ok {
			args[1] = "dwarf"
			if m == "vmlinux" {
				args = append(args, testutil.Corpus(t, testutil.VmlinuxName))
			} else {
				args = append(args, testutil.Corpus(t, "modules/"+m+".ko"))
			}
		} else {
			args = append(args, base)
		}
		t.Run(input+" "+strings.Join(f[2:], " "), func(t *testing.T) {
			if testing.Short() && len(opts) > 0 {
				t.Skip("short mode: only the default output")
			}
			out, errOut, code := runGobtfPrint2(t, "", args...)
			got := out + errOut
			sum := sha256.Sum256([]byte(got))
			if code != 0 || hex.EncodeToString(sum[:]) != want {
				t.Errorf("exit %d, output (%d bytes) differs from pahole master's (sha256 %s)", code, len(got), want)
			}
		})
	}
}

// structsWithHoles lists, comma-separated, the structs of a BTF file that
// have holes, but pglist_data (gen_shared.sh's "@holes").
func structsWithHoles(t *testing.T, path string) string {
	out, _, code := runGobtfPrint2(t, "", "-F", "btf", "-H", "1", "-s", "--structs", path)
	if code != 0 {
		t.Fatalf("-H 1 -s: exit %d", code)
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if n, _, _ := strings.Cut(l, "\t"); n != "pglist_data" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ",")
}

// TestPrintMatchesPahole124 runs apt's pahole (1.24) where its output on
// BTF equals pahole master's: the one-line formats, -i and the quiet view.
func TestPrintMatchesPahole124(t *testing.T) {
	pahole, err := exec.LookPath("pahole")
	if err != nil {
		t.Skip("skipping: pahole not installed")
	}
	base := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	fixture := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.btf")
	cases := []struct {
		file string
		opts []string
	}{
		{base, []string{"-s"}}, {base, []string{"-n"}}, {base, []string{"-N"}}, {base, []string{"-z", "8"}},
		{base, []string{"-i", "list_head", "-d"}}, {base, []string{"--unions"}}, {base, []string{"-s", "--sort"}},
		{base, []string{"-y", "tcp", "-q"}}, {fixture, []string{"-q"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.opts, " "), func(t *testing.T) {
			args := append(append([]string{"-F", "btf", "-c", "64"}, c.opts...), c.file)
			want, err := exec.Command(pahole, args...).Output()
			if err != nil {
				t.Fatalf("pahole %v: %v", args, err)
			}
			got, code := runGobtfPrint(t, "", args...)
			if code != 0 || got != string(want) {
				t.Errorf("exit %d; output differs from pahole 1.24's:\n%s", code, testutil.FirstDiff(got, string(want)))
			}
		})
	}
}

// TestPrintUsageErrors: options gobtf does not implement are usage errors
// naming the option, never ignored.
func TestPrintUsageErrors(t *testing.T) {
	fixture := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.btf")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--show_private_classes", fixture}, "--show_private_classes"},
		{[]string{"-l", fixture}, "--show_first_biggest_size_base_type_member"},
		{[]string{"--ptr_table_stats", fixture}, "--ptr_table_stats"},
	} {
		got, code := runGobtfPrint(t, "", c.args...)
		if code != exUsage || !strings.Contains(got, c.want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit %d and one line naming %q", c.args, code, got, exUsage, c.want)
		}
	}
}

// TestPrintClassArgsDWARF: from DWARF, a -C argument that does not apply
// to its type ends pahole with an error (EINVAL from its loader) after the
// names before it were printed; gobtf's error names the file.
func TestPrintClassArgsDWARF(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout")
	out, errOut, code := runGobtfPrint2(t, dir, "-F", "dwarf", "-C", "bits,holes(sizeof=zz),uses", "layout.gcc.o")
	if code != 1 || !strings.HasPrefix(out, "struct bits {") || strings.Contains(out, "struct uses") ||
		!strings.Contains(errOut, "pahole: the sizeof member 'zz' wasn't found in the 'holes' type\n") ||
		!strings.Contains(errOut, "layout.gcc.o") {
		t.Errorf("exit %d, stderr %q, output starts %.30q", code, errOut, out)
	}
}

// TestPrintBadInput: corrupt BTF is refused as pahole refuses it, exit 1:
// what libbpf logs, then pahole's line naming the file (TestPaholeCommandLines
// holds pahole master's words for some of these).
func TestPrintBadInput(t *testing.T) {
	data := testutil.Testdata(t, "classlayout", "layout.gcc.btf")
	dir := t.TempDir()
	for i, cut := range []int{0, 10, 30, len(data) / 2, len(data) - 1} {
		path := filepath.Join(dir, "bad"+string(rune('a'+i))+".btf")
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runGobtfPrint2(t, "", "-F", "btf", path)
		want := "pahole: file '" + path + "' has no btf type information.\n"
		if code != 1 || !strings.HasSuffix(errOut, want) || strings.Count(errOut, "\n") > 2 {
			t.Errorf("truncated at %d: exit %d, %q; want exit 1 ending in %q", cut, code, errOut, want)
		}
	}
}

// TestPrintReorganizeEndless: pahole master never returns from reorganizing
// the shared kernel's pglist_data (its moves go on as the struct's size
// wraps past zero). gobtf says so in one line on the error stream, prints
// nothing for it, and goes on: -P lists exactly what pahole master lists
// with pglist_data excluded (its stored sum), -R the other names.
func TestPrintReorganizeEndless(t *testing.T) {
	base := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
	const masterPx = "4d25c64a98e23962e9bdfe0e843ffe7a8e48d823f28a9d231a62a0812f6a0274" // -P -x pglist_data, in shared.sha256
	out, errOut, code := runGobtfPrint2(t, "", "-F", "btf", "-P", base)
	sum := sha256.Sum256([]byte(out))
	if code != 0 || hex.EncodeToString(sum[:]) != masterPx {
		t.Errorf("-P: exit %d, output differs from pahole master's -P -x pglist_data", code)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "struct pglist_data: not reorganized") {
		t.Errorf("-P: error stream %q; want one line naming pglist_data", errOut)
	}
	for _, opt := range []string{"-R", "-S"} {
		out, errOut, code = runGobtfPrint2(t, "", "-F", "btf", "-R", opt, "-C", "pglist_data,list_head", base)
		if code != 0 || !strings.HasPrefix(out, "struct list_head {") || strings.Count(errOut, "\n") != 1 ||
			!strings.Contains(errOut, "pglist_data") {
			t.Errorf("-R %s -C pglist_data,list_head: exit %d, stderr %q, output starts %.40q", opt, code, errOut, out)
		}
	}
}
