package pahole

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// skipLines is a Log that writes the lines of the functions left out only.
type skipLines struct{ *Verbose }

func (skipLines) File(string, string, bool)       {}
func (skipLines) NoSymbol(string)                 {}
func (skipLines) Unit(string)                     {}
func (skipLines) Variable(string, string, uint64) {}

// TestVerboseSkipsMatchPahole builds testdata/funcs/skips_a.c (a function
// for each reason pahole leaves one out) with gcc and clang and compares
// the lines Verbose writes for the functions left out with those pahole master printed for
// the same build, stored in skips.CC.want (the installed pahole 1.24 prints
// none of them). The build must come from the compiler the file names, so
// the test skips under another version. Every -j gives the same lines.
func TestVerboseSkipsMatchPahole(t *testing.T) {
	for _, cc := range []string{"gcc", "clang"} {
		t.Run(cc, func(t *testing.T) {
			sections, compiler := readSkipsWant(t, filepath.Join(testutil.RepoRoot(), "testdata", "funcs", "skips."+cc+".want"))
			bin := filepath.Join(t.TempDir(), "skips_a."+cc)
			src := filepath.Join(testutil.RepoRoot(), "testdata", "funcs", "skips_a.c")
			if err := testutil.BuildFixture(t, src, bin, map[string]string{"CC": cc}); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(cc, "--version").Output()
			if err != nil {
				t.Fatal(err)
			}
			if v, _, _ := strings.Cut(string(out), "\n"); v != compiler {
				t.Skipf("%s is %q; the expected lines are for %q", cc, v, compiler)
			}
			for flags, want := range sections {
				fs := NewFeatureSet()
				if list, ok := strings.CutPrefix(flags, "--btf_features="); ok {
					if err := fs.ApplyList(list, false); err != nil {
						t.Fatal(err)
					}
				} else if flags != "" {
					t.Fatalf("unexpected flags %q", flags)
				}
				var first string
				for _, jobs := range []int{1, 2} {
					var log bytes.Buffer
					v := NewVerbose(&log)
					if _, err := dwarf2btf.Encode(bin, &dwarf2btf.Options{Features: fs.Features, Jobs: jobs, Log: skipLines{v}}, nil); err != nil {
						t.Fatal(err)
					}
					if err := v.Flush(); err != nil {
						t.Fatal(err)
					}
					if jobs == 1 {
						first = log.String()
					} else if log.String() != first {
						t.Errorf("%q: -j2 printed\n%s\n-j1\n%s", flags, log.String(), first)
					}
				}
				got := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
				sort.Strings(got)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%q: printed\n%s\nwant (pahole master)\n%s", flags, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// readSkipsWant reads a skips.CC.want file: '#' comments, one of them
// "# compiler: VERSION LINE", and sections "== FLAGS" of expected lines.
func readSkipsWant(t *testing.T, path string) (map[string][]string, string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sections := make(map[string][]string)
	compiler, flags := "", ""
	for _, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "# compiler: "):
			compiler = strings.TrimPrefix(line, "# compiler: ")
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "=="):
			flags = strings.TrimSpace(strings.TrimPrefix(line, "=="))
			sections[flags] = nil
		default:
			sections[flags] = append(sections[flags], line)
		}
	}
	if compiler == "" || len(sections) == 0 {
		t.Fatalf("%s: no compiler line or no section", path)
	}
	return sections, compiler
}
