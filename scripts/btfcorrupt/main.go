// Command btfcorrupt breaks the BTF of a file on purpose for the negative
// case of the kernel-build test (scripts/kbuild-boot.sh --corrupt): it
// shrinks one named struct (list_head by default) by N bytes (1 by default)
// in place, so that the kernel's BTF checks must reject it.
//
// Usage: btfcorrupt [-struct NAME] [-by N] FILE (raw BTF or ELF with .BTF)
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
	name := flag.String("struct", "list_head", "name of the struct whose size to decrease")
	by := flag.Uint("by", 1, "bytes to take off the struct's size")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: btfcorrupt [-struct NAME] [-by N] FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := corrupt(flag.Arg(0), *name, uint32(*by)); err != nil {
		fmt.Fprintln(os.Stderr, "btfcorrupt:", err)
		os.Exit(1)
	}
}

// corrupt takes by bytes off the size of the first STRUCT called name in
// path's BTF.
func corrupt(path, name string, by uint32) error {
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
		old := t.Size()
		if by == 0 || by > old {
			return fmt.Errorf("%s: cannot take %d bytes off struct %s of size %d", path, by, name, old)
		}
		t[2] = old - by // Type aliases the Spec's words
		out := spec.Marshal(spec.ByteOrder())
		if len(out) != len(data) {
			return fmt.Errorf("%s: re-encoded BTF is %d bytes, was %d", path, len(out), len(data))
		}
		if err := write(path, out); err != nil {
			return err
		}
		fmt.Printf("btfcorrupt: %s: struct %s (id %d) size %d -> %d\n", path, name, spec.FirstID()+btf.TypeID(i), old, old-by)
		return nil
	}
	return fmt.Errorf("%s: no struct named %s in the BTF", path, name)
}

// write puts the BTF back: into the .BTF section of an ELF file, or over a
// raw BTF file.
func write(path string, data []byte) error {
	f, err := elfio.Open(path)
	if errors.Is(err, elfio.ErrNotELF) {
		return elfio.WriteFile(path, data)
	}
	if err != nil {
		return err
	}
	f.Close()
	return elfio.WriteSections(path, []elfio.NewSection{{Name: ".BTF", Data: data}})
}
