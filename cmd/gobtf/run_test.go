package main

import (
	"bytes"
	"strings"
	"testing"
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
