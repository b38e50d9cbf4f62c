package main

import (
	"fmt"
	"io"
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
	// stream starts, when the environment variable env names a file, a
	// recording into it that end finishes.
	stream := func(env string, start func(io.Writer) error, end func()) {
		path := os.Getenv(env)
		if path == "" {
			return
		}
		f, err := os.Create(path)
		if err == nil {
			err = start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gobtf: %s: %v\n", env, err)
			return
		}
		stops = append(stops, func() { end(); f.Close() })
	}
	stream("GOBTF_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)
	stream("GOBTF_TRACE", trace.Start, trace.Stop)
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
