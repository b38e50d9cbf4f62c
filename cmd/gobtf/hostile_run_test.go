package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The hostile-input tests run gobtf as a separate process (this test binary,
// re-executed with childEnv set), so that they see its exit status, its
// stderr, its time and its peak memory as a user would.

const childEnv = "GOBTF_TEST_RUN_MAIN"

// Bounds every hostile run must stay within.
const (
	childTimeout = 60 * time.Second
	childMaxRSS  = 1 << 30 // bytes of peak resident memory
	childMaxAS   = 8 << 30 // address-space limit set in the child, so a runaway allocation fails instead of swapping
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		lim := syscall.Rlimit{Cur: childMaxAS, Max: childMaxAS}
		syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
		if stage := os.Getenv(writeStageEnv); stage != "" {
			stopAtWriteStage(stage)
		}
		main()
		return
	}
	code := m.Run()
	if processScratch != "" {
		os.RemoveAll(processScratch)
	}
	os.Exit(code)
}

// processScratch holds what the tests of this process build once and share
// (the CO-RE test objects): its own folder, so that test processes run at
// once, from other checkouts too, never read each other's half-built files.
var (
	processScratch   string
	processScratchMu sync.Mutex
)

// scratchDir returns the folder name under processScratch, made on first use.
func scratchDir(t testing.TB, name string) (string, error) {
	t.Helper()
	processScratchMu.Lock()
	defer processScratchMu.Unlock()
	if processScratch == "" {
		d, err := os.MkdirTemp("", "gobtf-test-")
		if err != nil {
			return "", err
		}
		processScratch = d
	}
	dir := filepath.Join(processScratch, name)
	return dir, os.MkdirAll(dir, 0o755)
}

// childResult is what one gobtf run did.
type childResult struct {
	code   int
	stderr string
	wall   time.Duration
	maxRSS int64 // bytes
}

// runChild runs gobtf with args; cred, when not nil, runs it as another user.
func runChild(t *testing.T, exe string, cred *syscall.Credential, args ...string) childResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r := childResult{stderr: stderr.String(), wall: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("gobtf %s: no result within %v (hang)", strings.Join(args, " "), childTimeout)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running gobtf: %v", err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10
	}
	return r
}

// fileState is a file's identity for the "input untouched" check, or a
// directory's sorted listing.
func fileState(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	if fi.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return "unreadable dir"
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return "dir " + strings.Join(names, ",")
	}
	if !fi.Mode().IsRegular() {
		return fi.Mode().String()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(data))
}

// panicRE matches the marks of a Go crash on stderr.
var panicRE = regexp.MustCompile(`panic:|goroutine \d+|runtime error|fatal error:|SIGSEGV`)

// expectFailure checks the outcome every hostile input must have: exit
// status 1 and one line on stderr, "gobtf: " then the message, naming the
// file, and matching want (a regular expression: the section and offset);
// no crash, within the time and memory bounds.
func expectFailure(t *testing.T, r childResult, file, want string) {
	t.Helper()
	msg := strings.TrimSuffix(r.stderr, "\n")
	if panicRE.MatchString(r.stderr) {
		t.Fatalf("gobtf crashed:\n%s", r.stderr)
	}
	if r.code != 1 {
		t.Errorf("exit status %d, want 1; stderr: %q", r.code, r.stderr)
	}
	if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "gobtf: ") {
		t.Errorf("stderr is not one line starting with \"gobtf: \": %q", r.stderr)
	}
	if !strings.Contains(msg, file) {
		t.Errorf("error does not name %s: %q", file, msg)
	}
	if want != "" && !regexp.MustCompile(want).MatchString(msg) {
		t.Errorf("error %q does not match %q", msg, want)
	}
	checkBounds(t, r)
}

// expectNote checks a run that encodes nothing without failing, as pahole
// 1.31 does for a file without DWARF: exit status 0 and one line on stderr
// that names the file and matches want.
func expectNote(t *testing.T, r childResult, file, want string) {
	t.Helper()
	msg := strings.TrimSuffix(r.stderr, "\n")
	if r.code != 0 || panicRE.MatchString(r.stderr) {
		t.Errorf("exit status %d, want 0; stderr: %q", r.code, r.stderr)
	}
	if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "gobtf: ") || !strings.Contains(msg, file) {
		t.Errorf("stderr is not one line naming %s: %q", file, r.stderr)
	}
	if !regexp.MustCompile(want).MatchString(msg) {
		t.Errorf("note %q does not match %q", msg, want)
	}
	checkBounds(t, r)
}

// checkBounds fails when a run took too long or too much memory.
func checkBounds(t *testing.T, r childResult) {
	t.Helper()
	if r.wall > childTimeout/2 {
		t.Errorf("took %v", r.wall)
	}
	if r.maxRSS > childMaxRSS {
		t.Errorf("peak RSS %d MB", r.maxRSS>>20)
	}
}
