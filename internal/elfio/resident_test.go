//go:build linux

package elfio

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/gobtf/gobtf/internal/testutil"
)

// TestCopiedSectionsLeaveResidentMemory checks that DWARFSectionsAt, on a
// mapped module, hands back the pages of what it copied and relocated (the
// section's bytes and its relocation table) while the File still reads the
// same bytes: the mapping's resident size, from /proc/self/smaps, falls by
// at least nine tenths of those sections' whole pages.
func TestCopiedSectionsLeaveResidentMemory(t *testing.T) {
	path := testutil.Corpus(t, "modules/virtio_net.ko")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := openMapped(t, path)
	if !bytes.Equal(f.Bytes(), want) { // touches every page
		t.Fatal("the mapping does not read as the file")
	}
	before := mappingRss(t, f.data)

	info, rela := f.Section(".debug_info"), f.Section(".rela.debug_info")
	if info == nil || rela == nil {
		t.Fatal("no .debug_info or .rela.debug_info")
	}
	if _, err := f.DWARFSectionsAt(f.OfflineLayout(), ".debug_info"); err != nil {
		t.Fatal(err)
	}
	after := mappingRss(t, f.data)
	page := uint64(os.Getpagesize())
	inner := func(s *Section) uint64 {
		start, end := (s.Offset+page-1)&^(page-1), (s.Offset+s.Size)&^(page-1)
		return max(end, start) - start
	}
	dropped := inner(info) + inner(rela)
	t.Logf("mapping resident: %d KiB before, %d KiB after; the two sections' whole pages: %d KiB", before>>10, after>>10, dropped>>10)
	if after+dropped*9/10 > before {
		t.Errorf("resident size fell by %d KiB, want at least %d KiB", (before-min(after, before))>>10, dropped*9/10>>10)
	}
	if !bytes.Equal(f.Bytes(), want) {
		t.Error("after DWARFSectionsAt the mapping no longer reads as the file")
	}
}

// mappingRss returns the resident size, in bytes, of the mapping that
// starts at b's first byte, as /proc/self/smaps gives it.
func mappingRss(t *testing.T, b []byte) uint64 {
	t.Helper()
	smaps, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	defer smaps.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	in := false
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's line starts with its range ("7f12...-7f13... r--s
		// ..."), its fields' lines with a name and a colon.
		if first, _, _ := strings.Cut(line, " "); !strings.HasSuffix(first, ":") {
			in = strings.HasPrefix(line, start)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("smaps: %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping starting at %s in /proc/self/smaps", start)
	return 0
}
