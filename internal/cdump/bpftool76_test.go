package cdump_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/cdump"
	"github.com/gobtf/gobtf/internal/testutil"
)

// bpftool76Dir (under testdata) holds bpftool 7.6's headers (see its README.md).
var bpftool76Dir = filepath.Join("cdump", "bpftool76")

// headerWith returns the header WriteOptions prints for s.
func headerWith(t *testing.T, s *btf.Spec, opts cdump.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := cdump.WriteOptions(&buf, s, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBpftool76Fixture compares the bpftool 7.6 headers of kfuncs.btf
// (sorted, unsorted, and two roots) with the ones bpftool 7.6 printed.
func TestBpftool76Fixture(t *testing.T) {
	s, err := btf.Parse(testutil.Testdata(t, bpftool76Dir, "kfuncs.btf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		opts cdump.Options
	}{
		{"sorted.h", cdump.Options{Bpftool76: true}},
		{"unsorted.h", cdump.Options{Bpftool76: true, Unsorted: true}},
		{"root_id.h", cdump.Options{Bpftool76: true, RootIDs: []btf.TypeID{3, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := string(headerWith(t, s, tc.opts))
			want := string(testutil.Testdata(t, bpftool76Dir, tc.file))
			if got != want {
				t.Errorf("differs from bpftool 7.6's: %s", testutil.FirstDiff(got, want))
			}
		})
	}
}

// TestBpftool76Reference compares the SHA-256 of the bpftool 7.6 headers of
// the shared reference BTF with those of bpftool 7.6's.
func TestBpftool76Reference(t *testing.T) {
	sc := bufio.NewScanner(bytes.NewReader(testutil.Testdata(t, bpftool76Dir, "reference.sha256")))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("bad line %q", sc.Text())
		}
		sum, name, mode := f[0], f[1], f[2]
		t.Run(name+"/"+mode, func(t *testing.T) {
			var base *btf.Spec
			if strings.HasPrefix(name, "modules/") {
				base = parseFile(t, testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf"), nil)
			}
			s := parseFile(t, testutil.Reference(t, name), base)
			h := sha256.Sum256(headerWith(t, s, cdump.Options{Bpftool76: true, Unsorted: mode == "unsorted"}))
			if got := hex.EncodeToString(h[:]); got != sum {
				t.Errorf("SHA-256 %s, bpftool 7.6's %s", got, sum)
			}
		})
	}
}

// TestRootErrors checks the roots bpftool refuses: one past the last type,
// one given twice, more than 16.
func TestRootErrors(t *testing.T) {
	s := btf.NewSpec(nil)
	s.AddInt("int", 4, btf.IntSigned, 32)
	tests := []struct {
		roots []btf.TypeID
		want  string
	}{
		{[]btf.TypeID{2}, "out of range"},
		{[]btf.TypeID{1, 1}, "twice"},
		{make([]btf.TypeID, 17), "at most 16"},
	}
	for _, tc := range tests {
		err := cdump.WriteOptions(&bytes.Buffer{}, s, cdump.Options{RootIDs: tc.roots})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("roots %v: got %v, want an error containing %q", tc.roots, err, tc.want)
		}
	}
	if err := cdump.WriteOptions(&bytes.Buffer{}, s, cdump.Options{RootIDs: []btf.TypeID{0}}); err != nil {
		t.Errorf("root 0 (void, which bpftool accepts): %v", err)
	}
}
