package elfio

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzOpen parses mutated ELF files and exercises every reader on them:
// none may panic, whatever the input. Seeds are the small fixtures (all
// classes, byte orders, compressions and relocation kinds) small enough
// for the mutator to work quickly.
func FuzzOpen(f *testing.F) {
	for _, fx := range buildFixtures(f) {
		if fx.path == "" {
			continue
		}
		if b, err := os.ReadFile(fx.path); err == nil && len(b) < 16<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := NewFile("fuzz", data)
		if err != nil {
			return
		}
		for i := range ef.Sections() {
			ef.SectionData(&ef.Sections()[i])
		}
		ef.Symbols()
		ef.DWARFSections()
		ef.Close()
	})
}

// fuzzBTF is a small valid BTF blob (one INT "int") for FuzzWriteSections.
var fuzzBTF = []byte{
	0x9f, 0xeb, 1, 0, 24, 0, 0, 0, // magic, version, flags, header length
	0, 0, 0, 0, 16, 0, 0, 0, // type section at 0, 16 bytes
	16, 0, 0, 0, 5, 0, 0, 0, // string section at 16, 5 bytes
	1, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0x20, 0, 0, 1, // [1] INT 'int' size=4 bits=32 signed
	0, 'i', 'n', 't', 0,
}

// FuzzWriteSections writes .BTF (and .BTF.base) into mutated ELF files, as
// gobtf -J does. Each run must end in an error that leaves the file and its
// directory as they were, or in a file that gobtf's reader opens with the
// new sections' exact contents. When readelf reads the input without a
// complaint, it must read the output without one too, and bpftool must
// read the .BTF in it.
func FuzzWriteSections(f *testing.F) {
	for _, fx := range buildFixtures(f) {
		if fx.path == "" {
			continue
		}
		if b, err := os.ReadFile(fx.path); err == nil && len(b) < 16<<10 {
			f.Add(b, false)
		}
	}
	readelf, _ := exec.LookPath("readelf")
	bpftool, _ := exec.LookPath("bpftool")
	f.Fuzz(func(t *testing.T, data []byte, withBase bool) {
		dir := t.TempDir()
		path := filepath.Join(dir, "in.o")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		secs := []NewSection{{Name: ".BTF", Data: fuzzBTF, MayMove: true}}
		if withBase {
			secs = append(secs, NewSection{Name: ".BTF.base", Data: fuzzBTF, MayMove: true})
		}
		err := WriteSections(path, secs)
		got, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if !bytes.Equal(got, data) {
				t.Fatalf("failed write changed the file: %v", err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Fatalf("failed write left %d files behind: %v", len(ents)-1, err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if _, err := NewFile("in", data); err == nil {
			out, err := NewFile("out", got)
			if err != nil {
				t.Fatalf("the input opens, the written file does not: %v", err)
			}
			for _, s := range secs {
				sec := out.Section(s.Name)
				if sec == nil {
					t.Fatalf("written file has no %s", s.Name)
				}
				b, err := out.SectionData(sec)
				if err != nil || !bytes.Equal(b, s.Data) {
					t.Fatalf("%s of the written file: %d bytes, %v", s.Name, len(b), err)
				}
			}
			out.Close()
		}
		if readelf == "" || !readsCleanly(readelf, filepath.Join(t.TempDir(), "orig.o"), data) {
			return
		}
		if msg, err := exec.Command(readelf, "-hlSW", path).CombinedOutput(); err != nil || bytes.Contains(msg, []byte("Warning")) || bytes.Contains(msg, []byte("Error")) {
			t.Fatalf("readelf reads the input cleanly, not the output: %v\n%s", err, msg)
		}
		if bpftool != "" {
			if msg, err := exec.Command(bpftool, "btf", "dump", "file", path).CombinedOutput(); err != nil {
				t.Fatalf("bpftool does not read the written .BTF: %v\n%s", err, msg)
			}
		}
	})
}

// readsCleanly reports whether readelf shows data's headers without an
// error or a warning.
func readsCleanly(readelf, path string, data []byte) bool {
	if os.WriteFile(path, data, 0o644) != nil {
		return false
	}
	msg, err := exec.Command(readelf, "-hlSW", path).CombinedOutput()
	return err == nil && !bytes.Contains(msg, []byte("Warning")) && !bytes.Contains(msg, []byte("Error"))
}
