package elfio

import (
	"os"
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
