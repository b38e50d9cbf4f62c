package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/kernelbtf"
)

// runGobtf runs gobtf in-process exactly as main does (run: the command
// tree with main's argument normalisation) and returns what it wrote, the
// exit status main would give and the error main would print.
func runGobtf(args ...string) (stdout, stderr string, code int, err error) {
	var out, errOut bytes.Buffer
	err = run(args, &out, &errOut)
	return out.String(), errOut.String(), exitCode(err), err
}

// mustGobtf runs gobtf in-process (runGobtf) and fails the test on error.
func mustGobtf(t *testing.T, args ...string) {
	t.Helper()
	if _, stderr, _, err := runGobtf(args...); err != nil {
		t.Fatalf("gobtf %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
}

// spelledOut is args as runCommandLine hands them to cobra: read as
// pahole's argp reads them and spelled out in full.
func spelledOut(t *testing.T, root *cobra.Command, args []string) []string {
	t.Helper()
	canon, act, err := paholeArgs(root, args)
	if err != nil || act != nil {
		t.Fatalf("%v: not a command line to run (error %v)", args, err)
	}
	return canon
}

// fakeSystem makes pahole's defaults look at a machine whose files are
// under root: its /sys/kernel/btf, /sys/kernel/notes, /boot, ...; with
// btfEnv (unless nil) as $PAHOLE_VMLINUX_BTF_FILENAME.
func fakeSystem(t *testing.T, root string, btfEnv *string) {
	t.Helper()
	old := systemFor
	systemFor = func() kernelbtf.System {
		s := kernelbtf.System{Root: root, Release: "6.1.0-test"}
		if btfEnv != nil {
			s.BTFEnv, s.HasBTFEnv = *btfEnv, true
		}
		return s
	}
	t.Cleanup(func() { systemFor = old })
}

// noKernel makes pahole's defaults find no kernel: no BTF under
// /sys/kernel/btf, no vmlinux.
func noKernel(t *testing.T) { fakeSystem(t, t.TempDir(), nil) }
