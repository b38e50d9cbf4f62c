package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// TestPrintModesMatchMaster runs each case of testdata/pahole/modes.sha256
// (pahole master's output for --compile, the per-type facts, the selection
// options and -C filters on the shared vmlinux BTF, xfs.ko's DWARF, xfs's
// split BTF and the vmlinux DWARF, made by testdata/pahole/modes.sh) and
// compares stdout, stderr and the exit status. The vmlinux DWARF cases are
// left out with -short.
func TestPrintModesMatchMaster(t *testing.T) {
	// Each input is named relative to its folder, where gobtf runs, as
	// pahole ran (-u and some errors print the file's name).
	btfPath := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	btfName := filepath.Base(btfPath)
	inputs := map[string]func() (string, []string){
		"btf": func() (string, []string) { return filepath.Dir(btfPath), []string{btfName} },
		"xfs": func() (string, []string) {
			p := testutil.Corpus(t, "modules/xfs.ko")
			return filepath.Dir(p), []string{filepath.Base(p)}
		},
		"xfsbtf": func() (string, []string) {
			testutil.Reference(t, "modules/xfs.btf")
			return filepath.Dir(btfPath), []string{"--btf_base", btfName, "modules/xfs.btf"}
		},
		"dwarf": func() (string, []string) {
			p := testutil.Corpus(t, testutil.VmlinuxName)
			return filepath.Dir(p), []string{filepath.Base(p)}
		},
	}
	sc := bufio.NewScanner(bytes.NewReader(testutil.Testdata(t, "pahole", "modes.sha256")))
	n := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		in, wantOut, wantErr, args := f[0], f[1], f[2], f[4:]
		wantCode, _ := strconv.Atoi(f[3])
		n++
		t.Run(in+" "+strings.Join(args, " "), func(t *testing.T) {
			if in == "dwarf" && testing.Short() {
				t.Skip("skipping the vmlinux DWARF with -short")
			}
			dir, files := inputs[in]()
			t.Chdir(dir)
			var full []string
			if files[0] == "--btf_base" {
				full = append(append(full, files[:2]...), args...)
				full = append(full, files[2])
			} else {
				full = append(append(full, args...), files...)
			}
			out, errOut, code, err := runGobtf(full...)
			var ee *exitError
			if errors.As(err, &ee) {
				errOut += ee.msg // (what main writes)
			}
			if code != wantCode {
				t.Errorf("exit status %d, pahole master's %d (stderr %q)", code, wantCode, trunc(errOut))
			}
			if got := sum(out); got != wantOut {
				t.Errorf("stdout (%d bytes, sha256 %s) differs from pahole master's (%s):\n%s", len(out), got, wantOut, trunc(out))
			}
			if got := sum(errOut); got != wantErr {
				t.Errorf("stderr %q differs from pahole master's (sha256 %s)", trunc(errOut), wantErr)
			}
		})
	}
	if n < 100 {
		t.Fatalf("modes.sha256 has %d cases", n)
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func trunc(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// TestCompileOutputCompiles: gobtf --compile of the shared vmlinux BTF (the
// whole of it, and a -C list), and with -short left out, of its DWARF, is C
// that cc -fsyntax-only takes.
func TestCompileOutputCompiles(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("skipping: no cc")
	}
	btfPath := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	cases := [][]string{{"--compile", btfPath}, {"--compile", "-C", "task_struct,sk_buff,xdp_md", btfPath}}
	if !testing.Short() {
		cases = append(cases, []string{"--compile", testutil.Corpus(t, testutil.VmlinuxName)})
	}
	for _, args := range cases {
		out, errOut, code, err := runGobtf(args...)
		if code != 0 {
			t.Fatalf("gobtf %v: exit %d, %v: %s", args, code, err, errOut)
		}
		h := filepath.Join(t.TempDir(), "vmlinux.h")
		if err := os.WriteFile(h, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(cc, "-fsyntax-only", "-x", "c", h).CombinedOutput(); err != nil {
			t.Errorf("gobtf %v: cc -fsyntax-only: %v\n%.2000s", args, err, msg)
		}
	}
}
