package tuning

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGCForInput checks the collector settings gcForInput makes for each
// size of input, before the conversion and once it has started (merged or
// not), and that its restore function puts back what was there.
func TestGCForInput(t *testing.T) {
	const unset = math.MaxInt64 // the runtime's "no limit"
	for _, tc := range []struct {
		name      string
		size      uint64
		memLimit  string // GOMEMLIMIT in the environment
		merged    bool   // the units are converted as one
		wantPct   int    // before the conversion starts
		convPct   int    // once it has
		wantLimit int64
	}{
		{"module", 11 << 20, "", false, -1, -1, smallHeapLimit},
		{"just below a kernel", bigInfo - 1, "", false, -1, -1, smallHeapLimit},
		{"kernel", bigInfo, "", false, -1, 5, unset},
		{"module with GOMEMLIMIT", 11 << 20, "100MiB", false, -1, -1, unset},
		{"small LTO file", 32 << 20, "", true, -1, 100, smallHeapLimit},
		{"LTO kernel", bigInfo, "", true, -1, 5, unset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", tc.memLimit)
			pct0 := debug.SetGCPercent(100)
			defer debug.SetGCPercent(pct0)
			limit0 := debug.SetMemoryLimit(unset)
			defer debug.SetMemoryLimit(limit0)

			restore, converting := gcForInput(tc.size)
			pct := debug.SetGCPercent(-1)
			debug.SetGCPercent(pct)
			converting(tc.merged)
			convPct := debug.SetGCPercent(-1)
			debug.SetGCPercent(convPct)
			limit := debug.SetMemoryLimit(-1)
			restore()
			if pct != tc.wantPct || convPct != tc.convPct || limit != tc.wantLimit {
				t.Errorf("GC percent %d, then %d, memory limit %d; want %d, %d, %d", pct, convPct, limit, tc.wantPct, tc.convPct, tc.wantLimit)
			}
			if pct := debug.SetGCPercent(100); pct != 100 {
				t.Errorf("GC percent after restore: %d, want 100", pct)
			}
			if limit := debug.SetMemoryLimit(-1); limit != unset {
				t.Errorf("memory limit after restore: %d, want %d", limit, int64(unset))
			}
		})
	}
}

// TestEncodingRestores: an encoding's limit on CPUs and its collector
// settings are undone by Restore, last first.
func TestEncodingRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	procs := runtime.GOMAXPROCS(0)
	pct0 := debug.SetGCPercent(100)
	defer debug.SetGCPercent(pct0)
	e := ForEncoding(1, true)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS %d with -j1, want 1", got)
	}
	e.Opened(0, bigInfo)
	e.Converting(false)
	if pct := debug.SetGCPercent(5); pct != 5 {
		t.Errorf("GC percent %d while converting a kernel, want 5", pct)
	}
	e.Restore()
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after Restore, want %d", got, procs)
	}
	if pct := debug.SetGCPercent(100); pct != 100 {
		t.Errorf("GC percent %d after Restore, want 100", pct)
	}
	var d Dedup
	d.Deduplicated()
	if pct := debug.SetGCPercent(-1); pct != -1 {
		t.Errorf("GC percent %d after Deduplicated, want -1", pct)
	}
	d.Restore()
	if pct := debug.SetGCPercent(100); pct != 100 {
		t.Errorf("GC percent %d after Dedup.Restore, want what it found (100)", pct)
	}
}
