package testutil

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// ParseFile reads and parses the raw BTF file at path, split BTF on base
// when base is not nil, and fails t on error.
func ParseFile(t testing.TB, path string, base *btf.Spec) *btf.Spec {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(data, base)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// DumpFile returns the bpftool-style dump of the raw BTF file at path, in
// which types appear with their IDs, so that two dumps are equal only when
// the same types have the same IDs.
func DumpFile(t testing.TB, path string) string {
	t.Helper()
	return DumpSplitFile(t, path, nil)
}

// DumpSplitFile is DumpFile for split BTF on base (nil: none); only the
// split part's types are dumped.
func DumpSplitFile(t testing.TB, path string, base *btf.Spec) string {
	t.Helper()
	s := ParseFile(t, path, base)
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// FirstDiff describes where two multi-line texts first differ, or returns
// "" when they are equal.
func FirstDiff(got, want string) string {
	if got == want {
		return ""
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("first difference at line %d:\n  got:  %s\n  want: %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(g), len(w))
}

// RefsInRange fails t if a type of s references an ID beyond its last type.
func RefsInRange(t testing.TB, s *btf.Spec) {
	t.Helper()
	for i := range s.NumTypes() {
		s.Own(i).ForEachTypeRef(func(p *uint32) {
			if *p > uint32(s.TypeCount()) {
				t.Fatalf("type %d references %d of %d", int(s.FirstID())+i, *p, s.TypeCount())
			}
		})
	}
}
