package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// TestPrettifyCommandLines runs gobtf on every command line of
// testdata/prettify/cases.txt (the data pretty-printer on a vmlinux's ELF
// headers, a module's __versions, a perf.data of over 1,000 records and
// gobtf's own fixture, with types from BTF and DWARF; its options, their
// errors, standard input from a file and from a pipe) and compares its
// exit status, standard output and standard error with pahole master's,
// stored in master.txt by gen.sh.
func TestPrettifyCommandLines(t *testing.T) {
	fix := filepath.Join(testutil.RepoRoot(), "testdata", "prettify")
	perf := readFile(t, filepath.Join(fix, "perf.data"))
	pdoff := strconv.FormatUint(binary.LittleEndian.Uint64(perf[40:]), 10)
	pdsize := strconv.FormatUint(binary.LittleEndian.Uint64(perf[48:]), 10)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeInput(t, dir, "records.cut", readFile(t, filepath.Join(fix, "records.bin"))[:300])
	kbtf, vmlinux := "", ""
	answers := readMasterAnswersIn(t, "prettify")
	cases := 0
	for _, line := range strings.Split(string(testutil.Testdata(t, "prettify", "cases.txt")), "\n") {
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
			// The cases on the shared kernel's files skip without them;
			// those on testdata/prettify's own inputs always run.
			if strings.Contains(line, "@KBTF") && kbtf == "" {
				kbtf = testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf")
			}
			if strings.Contains(line, "@VMLINUX") {
				if testing.Short() {
					t.Skip("skipping the cases on the whole vmlinux in -short mode")
				}
				if vmlinux == "" {
					vmlinux = testutil.Corpus(t, testutil.VmlinuxName)
				}
			}
			places := strings.NewReplacer("@KBTF", kbtf, "@VMLINUX", vmlinux, "@FIX", fix, "@D", dir,
				"@PDOFF", pdoff, "@PDSIZE", pdsize)
			stdin, args := "", line
			pipe := strings.HasPrefix(line, "|")
			if pipe || strings.HasPrefix(line, "<") {
				stdin, args, _ = strings.Cut(line[1:], " ")
			}
			for _, v := range []string{"POSIXLY_CORRECT", "LIBBPF_LOG_LEVEL", "PAHOLE_LANG_EXCLUDE"} {
				t.Setenv(v, "")
				os.Unsetenv(v)
			}
			if stdin != "" {
				setStdin(t, places.Replace(stdin), pipe)
			}
			t.Chdir(dir)
			stdout, stderr, code := runAsMain(shellWords(places.Replace(args))...)
			want.check(t, stdout, stderr, code, places)
		})
	}
	if cases != len(answers) {
		t.Errorf("cases.txt has %d command lines, master.txt %d answers; run gen.sh", cases, len(answers))
	}
}

// setStdin makes path the process's standard input for the test: the file
// itself, or, with pipe, a pipe it is written into.
func setStdin(t *testing.T, path string, pipe bool) {
	t.Helper()
	old := os.Stdin
	t.Cleanup(func() { os.Stdin = old })
	if !pipe {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		os.Stdin = f
		return
	}
	data := readFile(t, path)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(data) // the reader may stop early: the error does not matter
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	os.Stdin = r
}
