package elfio

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/testutil"
)

// TestDWARFSectionsReadErrorNoFault: when one debug section cannot be read,
// DWARFSectionsAt must not return while other sections are still being
// copied from the file's mapping, since the caller then unmaps it. Before
// the fix, closing the File right after the error faulted (SIGSEGV in
// memmove) in some of the runs; the test repeats the pattern to catch it.
func TestDWARFSectionsReadErrorNoFault(t *testing.T) {
	whole, err := os.ReadFile(testutil.Corpus(t, "modules/xfs.ko"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFile("xfs.ko", whole)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".debug_str")
	if s == nil {
		t.Fatal("no .debug_str")
	}
	data := append([]byte(nil), whole...)
	le := binary.LittleEndian
	shoff := le.Uint64(data[40:])
	le.PutUint64(data[shoff+64*uint64(s.Index)+32:], uint64(len(data))) // past the end of the file
	path := filepath.Join(t.TempDir(), "cut.ko")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.DWARFSectionsAt(f.OfflineLayout())
		f.Close()
		if err == nil || !strings.Contains(err.Error(), "section .debug_str: contents at file offset") {
			t.Fatalf("error %v, want one naming .debug_str", err)
		}
	}
}
