package testutil

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Bpftool returns what "bpftool [-B base] ARGS..." prints, skipping the test
// when bpftool is not installed and failing it when bpftool fails.
func Bpftool(t testing.TB, base string, args ...string) []byte {
	t.Helper()
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("skipping: bpftool is not installed (the oracle of gobtf dump)")
	}
	if base != "" {
		args = append([]string{"-B", base}, args...)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bpftool, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bpftool %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}
