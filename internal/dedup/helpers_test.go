package dedup

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// dump renders a Spec's own types in bpftool's text format.
func dump(t testing.TB, s *btf.Spec) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// libbpfTool returns the path of btfdedup if the shared tools can be had,
// or "" (without skipping: callers decide whether libbpf is optional).
func libbpfTool(t *testing.T) string {
	t.Helper()
	if len(testutil.SeedFiles("tools/Makefile")) == 0 {
		return ""
	}
	var path string
	ok := t.Run("locate-btfdedup", func(t *testing.T) { path = testutil.Tool(t, "btfdedup") })
	if !ok {
		return ""
	}
	return path
}

// libbpfDedup runs libbpf's btf__dedup (the shared btfdedup tool) on s (split
// on base when base is non-nil) and returns the result parsed on base.
func libbpfDedup(t testing.TB, tool string, s, base *btf.Spec) (*btf.Spec, error) {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.btf"), filepath.Join(dir, "out.btf")
	if err := os.WriteFile(in, s.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{in, out}
	if base != nil {
		bp := filepath.Join(dir, "base.btf")
		if err := os.WriteFile(bp, base.Marshal(binary.LittleEndian), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--base", bp)
	}
	cmd := exec.Command(tool, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, &toolError{err: err, stderr: stderr.String()}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := btf.Parse(data, base)
	if err != nil {
		t.Fatalf("parsing btfdedup output: %v", err)
	}
	return res, nil
}

type toolError struct {
	err    error
	stderr string
}

func (e *toolError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.stderr) }

// reparse round-trips s through its encoding, so that a Spec built in memory
// has the string table layout of a decoded file.
func reparse(t testing.TB, s, base *btf.Spec) *btf.Spec {
	t.Helper()
	r, err := btf.Parse(s.Marshal(binary.LittleEndian), base)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
