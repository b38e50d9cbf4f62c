package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the profiles that the GOBTF_CPUPROFILE and
// GOBTF_MEMPROFILE environment variables ask for (pprof files, for
// "go tool pprof"), and the execution trace GOBTF_TRACE asks for (for "go
// tool trace"), and returns the function that finishes them. They are
// for profiling gobtf itself and change nothing in its output.
func startProfiles() (stop func()) {
	var stops []func()
	if path := os.Getenv("GOBTF_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gobtf: GOBTF_CPUPROFILE: %v\n", err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("GOBTF_TRACE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gobtf: GOBTF_TRACE: %v\n", err)
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	if path := os.Getenv("GOBTF_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			runtime.GC() // the profile holds allocations up to the last collection
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "gobtf: GOBTF_MEMPROFILE: %v\n", err)
			}
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
