package elfio

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	dwflOnce sync.Once
	dwflTool string
	dwflSkip string
)

// dwflLayout builds testdata/dwfl_layout.c, the libdwfl oracle, once; it
// skips the test when no C compiler or no libdw (libdw-dev) is installed.
func dwflLayout(t *testing.T) string {
	t.Helper()
	dwflOnce.Do(func() {
		cc, err := exec.LookPath("cc")
		if err != nil {
			dwflSkip = "no C compiler (cc)"
			return
		}
		dir, err := os.MkdirTemp("", "dwfl-layout")
		if err != nil {
			dwflSkip = err.Error()
			return
		}
		out := filepath.Join(dir, "dwfl_layout")
		if msg, err := exec.Command(cc, "-O1", "-o", out, filepath.Join("testdata", "dwfl_layout.c"), "-ldw", "-lelf").CombinedOutput(); err != nil {
			dwflSkip = "building the libdwfl oracle needs libdw-dev: " + firstLine(msg)
			return
		}
		dwflTool = out
	})
	if dwflTool == "" {
		t.Skipf("skipping: %s", dwflSkip)
	}
	return dwflTool
}

// TestOfflineLayoutMatchesLibdwfl checks OfflineLayout and
// DWARFSectionsAt against libdwfl, which is how pahole reads a relocatable
// file: every section's address after dwfl_report_offline, and every
// uncompressed debug section as libdw sees it once relocated.
func TestOfflineLayoutMatchesLibdwfl(t *testing.T) {
	tool := dwflLayout(t)
	eachRelocatable(t, func(t *testing.T, in inputFile, f *File) {
		dir := t.TempDir()
		out, err := exec.Command(tool, in.path, dir).Output()
		if err != nil {
			t.Skipf("libdwfl cannot read it: %v", err)
		}
		addrs := f.OfflineLayout()
		sc := bufio.NewScanner(bytes.NewReader(out))
		seen := 0
		for sc.Scan() {
			var idx, addr uint64
			fields := strings.Fields(sc.Text())
			if len(fields) != 3 || fields[0] != "addr" {
				t.Fatalf("unexpected oracle line %q", sc.Text())
			}
			if idx, err = strconv.ParseUint(fields[1], 16, 64); err == nil {
				addr, err = strconv.ParseUint(fields[2], 16, 64)
			}
			if err != nil || idx >= uint64(len(addrs)) {
				t.Fatalf("bad oracle line %q (%d sections)", sc.Text(), len(addrs))
			}
			if addrs[idx] != addr {
				t.Errorf("section %d (%s): address %#x, libdwfl %#x", idx, f.sections[idx].Name, addrs[idx], addr)
			}
			seen++
		}
		if seen != len(addrs)-1 {
			t.Errorf("libdwfl listed %d sections, the file has %d", seen, len(addrs)-1)
		}

		d, err := f.DWARFSectionsAt(addrs)
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, s := range f.Sections() {
			count[s.Name]++
		}
		compared := 0
		for _, name := range DebugSectionNames {
			s := f.Section(name)
			if s == nil || count[name] != 1 || s.Flags&elf.SHF_COMPRESSED != 0 {
				continue
			}
			want, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("libdwfl wrote no %s: %v", name, err)
				continue
			}
			if got := d.ByName(name); !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes differ from libdwfl's %d at offset %#x", name, len(got), len(want), firstDiff(got, want))
			}
			compared++
		}
		t.Logf("%d sections placed, %d debug sections compared", seen, compared)
	})
}
