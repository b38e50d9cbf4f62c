package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// TestEncodeStats checks the rows of "gobtf -J --stats" on a small object,
// standalone and as split BTF: every phase, the counts and the peak memory,
// and the wait for the base only where there is a base.
func TestEncodeStats(t *testing.T) {
	dir := t.TempDir()
	info, abbrev := dwarfUnit(cu(intType()))
	in := writeInput(t, dir, "in.o", relocatableELF(elfSection{Name: ".debug_info", Data: info}, elfSection{Name: ".debug_abbrev", Data: abbrev}))
	base := btf.NewSpec(nil)
	base.AddInt("long", 8, btf.IntSigned, 64)
	basePath := filepath.Join(dir, "base.btf")
	if err := os.WriteFile(basePath, base.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	always := []string{"ELF load", "DWARF decode + convert + join", "dedup: refs", "encode", "write", "total", "types", "string bytes", "peak RSS"}
	// With more than one worker and no base, the struct pass runs in the
	// stream beside the conversion (dedup.Stream).
	const streamed = "dedup: stream: setup, primitives, structs, strings (beside)"
	const wait = "--btf_base: wait for its preparation"
	cpus := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name string
		args []string
		wait bool
		jobs string // the "converters, CPUs" row's value
	}{
		{"standalone", nil, false, fmt.Sprintf("1, %d", cpus)},
		{"split", []string{"--btf_base", basePath}, true, fmt.Sprintf("1, %d", cpus)},
		// -j N caps the CPUs at N, for the run only.
		{"-j1", []string{"--jobs=1"}, false, "1, 1"},
		{"-j2", []string{"--jobs=2"}, false, fmt.Sprintf("2, %d", min(2, cpus))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-J", "--stats", "--btf_encode_detached=" + filepath.Join(dir, tc.name+".btf")}, tc.args...)
			_, stderr, code, err := runGobtf(append(args, in)...)
			if err != nil {
				t.Fatalf("exit %d: %v", code, err)
			}
			for _, row := range always {
				if !strings.Contains(stderr, row) {
					t.Errorf("no %q row:\n%s", row, stderr)
				}
			}
			if !regexp.MustCompile(`(?m)^\s*converters, CPUs\s+` + regexp.QuoteMeta(tc.jobs) + `\s*$`).MatchString(stderr) {
				t.Errorf("no \"converters, CPUs  %s\" row:\n%s", tc.jobs, stderr)
			}
			if got := runtime.GOMAXPROCS(0); got != cpus {
				t.Errorf("GOMAXPROCS is %d after the run, was %d before", got, cpus)
			}
			stream := tc.name == "-j2" && cpus > 1
			if strings.Contains(stderr, streamed) != stream || strings.Contains(stderr, "dedup: structs") == stream {
				t.Errorf("stream rows present: %v, want %v:\n%s", !stream, stream, stderr)
			}
			if strings.Contains(stderr, wait) != tc.wait {
				t.Errorf("%q row present: %v, want %v:\n%s", wait, !tc.wait, tc.wait, stderr)
			}
		})
	}
}
