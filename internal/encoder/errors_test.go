package encoder

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil/dwarfgen"
)

// TestSentinelErrors checks, through the pipelines a user runs, that the
// errors the packages document as wrapping a sentinel do wrap it, so that
// errors.Is finds it behind every layer of context.
func TestSentinelErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badMagic := make([]byte, btf.HeaderLen+16)
	binary.LittleEndian.PutUint16(badMagic, 0x1234)
	notBTF := file("notbtf", badMagic)
	// A valid ELF file without DWARF, symbols or BTF.
	noSections := file("empty.o", dwarfgen.RelocatableELF())
	out := filepath.Join(dir, "out.btf")
	encode := func(path string, o Options) func() error {
		return func() error { _, err := Encode(context.Background(), path, o); return err }
	}
	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"Encode: input without DWARF", encode(noSections, Options{Detached: out}), dwarf2btf.ErrNoDWARF},
		{"Encode: base with bad magic", encode(noSections, Options{Detached: out, Base: notBTF}), btf.ErrNotBTF},
		{"Encode: base ELF without .BTF", encode(noSections, Options{Detached: out, Base: noSections}), elfio.ErrNoBTF},
		{"DedupFile: input with bad magic", func() error { _, err := DedupFile(context.Background(), notBTF, out, DedupOptions{}); return err }, btf.ErrNotBTF},
		{"DedupFile: base with bad magic", func() error {
			_, err := DedupFile(context.Background(), notBTF, out, DedupOptions{Base: notBTF})
			return err
		}, btf.ErrNotBTF},
		{"DedupFile: ELF input without .BTF", func() error { _, err := DedupFile(context.Background(), noSections, out, DedupOptions{}); return err }, elfio.ErrNoBTF},
		{"elfio.Open: not ELF", func() error { _, err := elfio.Open(notBTF); return err }, elfio.ErrNotELF},
		{"elfio.File.Symbols: no symbol table", func() error {
			f, err := elfio.Open(noSections)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Symbols()
			return err
		}, elfio.ErrNoSymbols},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v does not wrap %q", err, tc.want)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("%s was written", out)
				os.Remove(out)
			}
		})
	}
}
