package main

import (
	"debug/elf"
	"os"
	"testing"
)

// TestBuiltBinaryIsStatic checks that the binary `make build` writes (passed
// in GOBTF_BIN by `make test`) is one static executable, as README.md
// promises: no program interpreter and no shared libraries to load. A cgo
// dependency, or a build without CGO_ENABLED=0 (cobra's flag package imports
// net, which links libc through cgo by default), makes it dynamic.
func TestBuiltBinaryIsStatic(t *testing.T) {
	path := os.Getenv("GOBTF_BIN")
	if path == "" {
		t.Skip("GOBTF_BIN is not set: `make test` sets it to the binary `make build` writes")
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a program interpreter (PT_INTERP): it is dynamically linked", path)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", path, libs)
	}
}
