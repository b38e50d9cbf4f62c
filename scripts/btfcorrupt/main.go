// Command btfcorrupt deliberately breaks the BTF of a file for the negative
// case of the kernel-build test (scripts/kbuild-boot.sh --corrupt): it
// shrinks one named struct by one byte, so that its last member no longer
// fits, which the kernel's BTF verifier must reject ("Member exceeds
// struct_size"). Every other byte of the BTF stays as it was.
//
// Usage: btfcorrupt [-struct NAME] FILE
//
// FILE is raw BTF or an ELF file with a .BTF section; the section (or the
// file) is rewritten in place with the same size.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

func main() {
	name := flag.String("struct", "list_head", "name of the struct whose size to decrement")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: btfcorrupt [-struct NAME] FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := corrupt(flag.Arg(0), *name); err != nil {
		fmt.Fprintln(os.Stderr, "btfcorrupt:", err)
		os.Exit(1)
	}
}

// corrupt decrements the size of the first STRUCT called name in path's BTF.
func corrupt(path, name string) error {
	data, err := elfio.ReadBTF(path)
	if err != nil {
		return err
	}
	spec, err := btf.Parse(data, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i := 0; i < spec.NumTypes(); i++ {
		t := spec.Own(i)
		if t.Kind() != btf.KindStruct || spec.Name(t) != name {
			continue
		}
		if t.Size() == 0 {
			return fmt.Errorf("%s: struct %s has size 0", path, name)
		}
		old := t.Size()
		t[2] = old - 1 // Type aliases the Spec's words
		out := spec.Marshal(spec.ByteOrder())
		if len(out) != len(data) {
			return fmt.Errorf("%s: re-encoded BTF is %d bytes, was %d", path, len(out), len(data))
		}
		if err := write(path, out); err != nil {
			return err
		}
		fmt.Printf("btfcorrupt: %s: struct %s (id %d) size %d -> %d\n", path, name, spec.FirstID()+btf.TypeID(i), old, old-1)
		return nil
	}
	return fmt.Errorf("%s: no struct named %s in the BTF", path, name)
}

// write puts the BTF back: into the .BTF section of an ELF file, or over a
// raw BTF file.
func write(path string, data []byte) error {
	f, err := elfio.Open(path)
	if errors.Is(err, elfio.ErrNotELF) {
		return os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		return err
	}
	f.Close()
	return elfio.WriteSections(path, []elfio.NewSection{{Name: ".BTF", Data: data}})
}
