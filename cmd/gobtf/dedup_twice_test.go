package main

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// TestSplitDedupTwice reproduces, in miniature, the copies of base types
// that one pass of libbpf's deduplication leaves in module BTF (struct
// module in mlx5_ib, rdma_counter in ib_core). The base declares struct F
// only (a FWD, as vmlinux does for types a module defines) and has
// struct B { struct F *f; } and struct A { struct B *b; }. The module
// defines F and has A and B, A first. Comparing the module's A with the
// base's reaches the base FWD F where the module has the definition; a base
// FWD cannot become a module type, so A is kept apart, but the FWD's link to
// the definition is recorded and B, compared next, merges with the base's.
// The module's A then refers to base types only: a copy of the base's A.
// libbpf (btfdedup) leaves it, and so does gobtf -J by default, as pahole
// does; with --merge_base_copies, deduplicating a second time, it must not:
// it writes F and the pointer to it (which B's copy needed) only.
func TestSplitDedupTwice(t *testing.T) {
	base := btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	f := base.AddFwd("F", false)
	pf := base.AddRef(btf.KindPtr, "", f)
	b := base.AddStruct(false, "B", 8, []btf.MemberSpec{{Name: "f", Type: pf}})
	pb := base.AddRef(btf.KindPtr, "", b)
	base.AddStruct(false, "A", 8, []btf.MemberSpec{{Name: "b", Type: pb}})
	_ = i

	in := intType()
	sf := &hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str("F"), data1(dwarf.AttrByteSize, 4)}}
	sf.Kids = []*hDIE{{Tag: dwarf.TagMember, Attrs: []hAttr{str("x"), typeRef(in), data1(dwarf.AttrDataMemberLoc, 0)}}}
	sb := &hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str("B"), data1(dwarf.AttrByteSize, 8)}}
	psb := &hDIE{Tag: dwarf.TagPointerType, Attrs: []hAttr{data1(dwarf.AttrByteSize, 8), typeRef(sb)}}
	sa := &hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str("A"), data1(dwarf.AttrByteSize, 8)},
		Kids: []*hDIE{{Tag: dwarf.TagMember, Attrs: []hAttr{str("b"), typeRef(psb), data1(dwarf.AttrDataMemberLoc, 0)}}}}
	psf := &hDIE{Tag: dwarf.TagPointerType, Attrs: []hAttr{data1(dwarf.AttrByteSize, 8), typeRef(sf)}}
	sb.Kids = []*hDIE{{Tag: dwarf.TagMember, Attrs: []hAttr{str("f"), typeRef(psf), data1(dwarf.AttrDataMemberLoc, 0)}}}

	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.btf")
	if err := os.WriteFile(basePath, base.Marshal(binary.LittleEndian), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := writeInput(t, dir, "mod.o", dwarfELF(cu(in, sf, sa, psb, sb, psf)))
	out := filepath.Join(dir, "split.btf")
	mustGobtf(t, "-J", "--merge_base_copies", "--btf_base", basePath, "--btf_encode_detached="+out, obj)
	got := dumpSplit(t, out, basePath)
	if strings.Join(got, "; ") != "[7] STRUCT 'F' size=4 vlen=1; [8] PTR '(anon)' type_id=7" {
		t.Errorf("split BTF holds %q, want struct F and a pointer to it", got)
	}
	once := filepath.Join(dir, "once.btf")
	mustGobtf(t, "-J", "--btf_base", basePath, "--btf_encode_detached="+once, obj)

	// The oracle: libbpf's one pass leaves A beside F.
	raw := filepath.Join(dir, "raw.btf")
	mustGobtf(t, "-J", "--skip_dedup", "--btf_base", basePath, "--btf_encode_detached="+raw, obj)
	libbpf := filepath.Join(dir, "libbpf.btf")
	if msg, err := exec.Command(testutil.Tool(t, "btfdedup"), raw, libbpf, "--base", basePath).CombinedOutput(); err != nil {
		t.Fatalf("btfdedup: %v\n%s", err, msg)
	}
	want := dumpSplit(t, libbpf, basePath)
	if !strings.Contains(strings.Join(want, "; "), "STRUCT 'A'") {
		t.Errorf("libbpf's one pass gives %q; this test no longer shows why --merge_base_copies deduplicates twice", want)
	}
	if got := dumpSplit(t, once, basePath); strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("without --merge_base_copies, split BTF holds %q, want libbpf's one pass %q", got, want)
	}
}

// dumpSplit returns the first line of each split type's dump.
func dumpSplit(t *testing.T, path, basePath string) []string {
	t.Helper()
	s := parseSplitFile(t, path, basePath)
	var lines []string
	for id := s.FirstID(); id <= s.TypeCount(); id++ {
		line, _, _ := strings.Cut(string(s.AppendDump(nil, id)), "\n")
		lines = append(lines, line)
	}
	return lines
}
