package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// layoutPahole reads testdata/pahole/layout.pahole.btf: what dwarves master
// of 2026-07-23 (1436daf, the first pahole with the "layout" feature,
// built with libbpf 1.8.0) writes for testdata/pahole/layout.S with
// `pahole -J --btf_features=layout`. It is the oracle for the kind layout
// section: a 32-byte header, the types, the 20 kinds' layout, the strings.
func layoutPahole(t *testing.T) []byte {
	return testutil.Testdata(t, "pahole", "layout.pahole.btf")
}

// TestLayoutFeature checks --btf_features=layout against pahole: byte for
// byte, detached and in the ELF file.
func TestLayoutFeature(t *testing.T) {
	obj := buildPaholeFixture(t, "gcc", "layout.S")
	want := layoutPahole(t)

	out := filepath.Join(t.TempDir(), "out.btf")
	mustGobtf(t, "-J", "--btf_features=layout", "--btf_encode_detached="+out, obj)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("detached: gobtf wrote %d bytes, pahole %d; they differ:\n% x\nwant\n% x", len(got), len(want), got, want)
	}

	mustGobtf(t, "-J", "--btf_features=layout", obj)
	sec, err := elfio.ReadBTF(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sec, want) {
		t.Errorf("in the ELF file: .BTF differs from pahole's")
	}
}

// TestLayoutBase encodes split BTF on a base with a kind layout section:
// gobtf before the feature refused such a base (a header byte past the
// 24th not zero), which a kernel built with the feature gives every module
// built against it. The split BTF must be the one made on the same base
// without the section, and has no section of its own (a 32-byte header with
// zero layout fields), as with pahole master.
func TestLayoutBase(t *testing.T) {
	obj := buildPaholeFixture(t, "gcc", "layout.S")
	withLayout := layoutPahole(t)
	base, err := btf.Parse(withLayout, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Layout()) == 0 {
		t.Fatal("pahole's base has no layout section")
	}
	base.SetLayout(nil)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.btf")
	if err := os.WriteFile(plain, base.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	layoutBase := filepath.Join(dir, "layout.btf")
	if err := os.WriteFile(layoutBase, withLayout, 0o644); err != nil {
		t.Fatal(err)
	}
	// The object's own types on its own BTF as the base: all of them
	// merge into the base, but the split header and strings remain.
	var outs [2][]byte
	for i, b := range []string{plain, layoutBase} {
		out := filepath.Join(dir, "split.btf")
		mustGobtf(t, "-J", "--btf_features=var,layout", "--btf_base", b, "--btf_encode_detached="+out, obj)
		if outs[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("split BTF on the base with the layout section differs from that on the base without")
	}
	h, _, err := btf.ParseHeader(outs[1])
	if err != nil {
		t.Fatal(err)
	}
	if h.HdrLen != btf.LayoutHeaderLen || h.LayoutLen != 0 {
		t.Errorf("split BTF header: hdr_len %d, layout_len %d; want %d and 0 (pahole master writes libbpf 1.8's header, with no section for split BTF)", h.HdrLen, h.LayoutLen, btf.LayoutHeaderLen)
	}
	// gobtf dump reads the layout base like any other.
	if _, _, code, err := runGobtf("dump", layoutBase); err != nil || code != 0 {
		t.Errorf("gobtf dump of the layout base: exit %d, %v", code, err)
	}
}

// TestLayoutDedup runs gobtf dedup on pahole's output with a kind layout
// section: it is deduplicated already, so the result must be the same
// bytes, the section included, as libbpf 1.8 keeps it through btf__dedup.
func TestLayoutDedup(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.btf")
	if err := os.WriteFile(in, layoutPahole(t), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.btf")
	if _, stderr, code, err := runGobtf("dedup", in, out); err != nil || code != 0 {
		t.Fatalf("gobtf dedup: exit %d, %v\n%s", code, err, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, layoutPahole(t)) {
		t.Errorf("gobtf dedup changed pahole's deduplicated blob:\n% x", got)
	}
}
