package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// hostileCase is one hostile input and the error it must produce.
type hostileCase struct {
	name  string
	setup func(t *testing.T, dir string) string // returns the input path
	cred  *syscall.Credential                   // run gobtf as this user (nil: as the test)
	want  string                                // regular expression the one-line error must match
	// noDWARF marks a file without DWARF, which pahole 1.31 takes as
	// nothing to encode: exit status 0, a one-line note, nothing written
	// (see TestEncodeNoDWARF).
	noDWARF bool
}

// writeInput writes data to dir/name and returns the path.
func writeInput(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sampleELF is a valid input: a unit with a structure, a typedef, an array,
// a pointer and a variable, in a relocatable ELF file.
func sampleELF() []byte {
	i := intType()
	s := &hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str("node"), data1(dwarf.AttrByteSize, 16)}}
	p := &hDIE{Tag: dwarf.TagPointerType, Attrs: []hAttr{data1(dwarf.AttrByteSize, 8), typeRef(s)}}
	s.Kids = []*hDIE{
		{Tag: dwarf.TagMember, Attrs: []hAttr{str("next"), typeRef(p), data1(dwarf.AttrDataMemberLoc, 0)}},
		{Tag: dwarf.TagMember, Attrs: []hAttr{str("v"), typeRef(i), data1(dwarf.AttrDataMemberLoc, 8)}},
	}
	arr := &hDIE{Tag: dwarf.TagArrayType, Attrs: []hAttr{typeRef(i)}, Kids: []*hDIE{{Tag: dwarf.TagSubrangeType, Attrs: []hAttr{udata(dwarf.AttrUpperBound, 3)}}}}
	td := &hDIE{Tag: dwarf.TagTypedef, Attrs: []hAttr{str("node_t"), typeRef(s)}}
	return dwarfELF(cu(i, s, p, arr, td))
}

// runHostile runs gobtf -J on the case's input with a detached output in an
// empty directory, and checks the failure, that the input is untouched and
// that no output (not even a temporary file) is left.
func runHostile(t *testing.T, exe string, c hostileCase) {
	t.Helper()
	dir := t.TempDir()
	in := c.setup(t, dir)
	outDir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(outDir, 0o777); err != nil {
		t.Fatal(err)
	}
	before := fileState(t, in)
	r := runChild(t, exe, c.cred, "-J", "--btf_encode_detached="+filepath.Join(outDir, "out.btf"), in)
	if c.noDWARF {
		expectNote(t, r, in, c.want)
	} else {
		expectFailure(t, r, in, c.want)
	}
	if after := fileState(t, in); after != before {
		t.Errorf("input changed: %s -> %s", before, after)
	}
	if st := fileState(t, outDir); st != "dir " {
		t.Errorf("output left behind: %s", st)
	}
	t.Logf("%s", strings.TrimSpace(r.stderr))
}

// TestHostileFiles: inputs that are not usable ELF files at all.
func TestHostileFiles(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []hostileCase{
		{name: "not an ELF file", want: `not an ELF file`, setup: func(t *testing.T, dir string) string {
			return writeInput(t, dir, "text", []byte("#!/bin/sh\necho hello\n"))
		}},
		{name: "ELF magic only", want: `offset 0x0: truncated ELF header`, setup: func(t *testing.T, dir string) string {
			return writeInput(t, dir, "magic", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
		}},
		{name: "empty file", want: `empty file`, setup: func(t *testing.T, dir string) string {
			return writeInput(t, dir, "empty", nil)
		}},
		{name: "directory", want: `is a directory`, setup: func(t *testing.T, dir string) string {
			return dir
		}},
		{name: "missing", want: `no such file`, setup: func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing.o")
		}},
		{name: "FIFO", want: `not a regular file \(p---------\)`, setup: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("skipping: mkfifo: %v", err)
			}
			return p
		}},
		{name: "character device", want: `not a regular file`, setup: func(t *testing.T, dir string) string {
			return "/dev/zero"
		}},
		{name: "no debug sections", noDWARF: true, want: `no DWARF debug information \(\.debug_info\): nothing encoded`, setup: func(t *testing.T, dir string) string {
			return writeInput(t, dir, "nodebug.o", relocatableELF(elfSection{Name: ".text", Data: []byte{0xc3}}))
		}},
		{name: "empty .debug_info", noDWARF: true, want: `section \.debug_info: empty: .*nothing encoded`, setup: func(t *testing.T, dir string) string {
			_, abbrev := dwarfUnit(cu(intType()))
			return writeInput(t, dir, "emptyinfo.o", relocatableELF(elfSection{Name: ".debug_info", Data: nil}, elfSection{Name: ".debug_abbrev", Data: abbrev}))
		}},
		{name: "missing .debug_abbrev", want: `\.debug_abbrev at offset 0x0`, setup: func(t *testing.T, dir string) string {
			info, _ := dwarfUnit(cu(intType()))
			return writeInput(t, dir, "noabbrev.o", relocatableELF(elfSection{Name: ".debug_info", Data: info}))
		}},
		{name: "empty .debug_abbrev", want: `\.debug_abbrev at offset 0x0`, setup: func(t *testing.T, dir string) string {
			info, _ := dwarfUnit(cu(intType()))
			return writeInput(t, dir, "emptyabbrev.o", relocatableELF(elfSection{Name: ".debug_info", Data: info}, elfSection{Name: ".debug_abbrev", Data: nil}))
		}},
		{name: "symbol name beyond .strtab", want: `section \.symtab: offset 0x[0-9a-f]+: symbol [0-9]+: name offset 0x7fffff beyond the [0-9]+-byte string table \.strtab`,
			setup: func(t *testing.T, dir string) string {
				return writeInput(t, dir, "badsym.o", badSymbolName(t, dir))
			}},
	}
	if os.Geteuid() == 0 {
		// root reads any file whatever its mode, so gobtf runs as nobody
		// from a copy of this binary it can execute.
		cases = append(cases, hostileCase{name: "unreadable file", want: `permission denied`,
			cred: &syscall.Credential{Uid: 65534, Gid: 65534},
			setup: func(t *testing.T, dir string) string {
				os.Chmod(dir, 0o755)
				os.Chmod(filepath.Dir(dir), 0o755)
				p := writeInput(t, dir, "secret.o", sampleELF())
				os.Chmod(p, 0)
				return p
			}})
	} else {
		cases = append(cases, hostileCase{name: "unreadable file", want: `permission denied`,
			setup: func(t *testing.T, dir string) string {
				p := writeInput(t, dir, "secret.o", sampleELF())
				os.Chmod(p, 0)
				return p
			}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := exe
			if c.cred != nil {
				x = executableCopy(t)
			}
			runHostile(t, x, c)
		})
	}
}

// executableCopy copies this test binary where any user may run it and
// write beside it.
func executableCopy(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	p := filepath.Join(dir, "gobtf.test")
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// sectionBounds returns the start and end file offset of every section of
// an ELF64 little-endian file, the section header table's offset and the end
// of the ELF header.
func sectionBounds(t *testing.T, data []byte) []int {
	t.Helper()
	le := binary.LittleEndian
	shoff := int(le.Uint64(data[40:]))
	n := int(le.Uint16(data[60:]))
	b := []int{0, 16, 63, 64, shoff, shoff + 64}
	for i := 1; i < n; i++ {
		h := data[shoff+64*i:]
		off, size := int(le.Uint64(h[24:])), int(le.Uint64(h[32:]))
		b = append(b, off, off+size, shoff+64*i, shoff+64*i+32)
	}
	return b
}

// TestHostileTruncation cuts a valid input at every section boundary and at
// random points.
func TestHostileTruncation(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	whole := sampleELF()
	cuts := sectionBounds(t, whole)
	rng := rand.New(rand.NewPCG(7, 7))
	for range 16 {
		cuts = append(cuts, rng.IntN(len(whole)))
	}
	seen := map[int]bool{}
	for _, n := range cuts {
		if n <= 0 || n >= len(whole) || seen[n] {
			continue
		}
		seen[n] = true
		want := `offset 0x[0-9a-f]+`
		if n < 16 {
			want = `not an ELF file` // not even the identification bytes
		}
		runHostile(t, exe, hostileCase{want: want, setup: func(t *testing.T, dir string) string {
			return writeInput(t, dir, "cut.o", whole[:n])
		}})
	}
	// A section whose size runs past the end of the file.
	for i, name := range []string{".debug_info", ".debug_abbrev"} {
		data := append([]byte(nil), whole...)
		le := binary.LittleEndian
		h := data[int(le.Uint64(data[40:]))+64*(i+1):]
		le.PutUint64(h[32:], le.Uint64(h[32:])+4096)
		runHostile(t, exe, hostileCase{want: `section ` + name + `: .*beyond the file`, setup: func(t *testing.T, dir string) string {
			return writeInput(t, dir, "long.o", data)
		}})
	}
}

// TestHostileBitFlips flips one bit in every byte of .debug_abbrev and in
// random bytes of .debug_info. gobtf must either fail cleanly, naming the
// DWARF section and offset, or write well-formed BTF (every reference and
// string in range); never crash, hang, touch its input or leave output
// behind on failure. A flip can also yield well-formed DWARF that pahole
// would convert just as faithfully into BTF the kernel refuses (a name with
// a flipped character, a reference to an offset holding no DIE, which
// pahole and gobtf both turn into void): those are counted, not failed.
func TestHostileBitFlips(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	whole := sampleELF()
	le := binary.LittleEndian
	shoff := int(le.Uint64(whole[40:]))
	sec := func(i int) (int, int) {
		h := whole[shoff+64*i:]
		return int(le.Uint64(h[24:])), int(le.Uint64(h[32:]))
	}
	infoOff, infoSize := sec(1)
	abbrevOff, abbrevSize := sec(2)
	var flips []int
	for i := range abbrevSize {
		flips = append(flips, (abbrevOff+i)*8+i%8)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 48
	if testing.Short() {
		n = 8
	}
	for range n {
		flips = append(flips, (infoOff+rng.IntN(infoSize))*8+rng.IntN(8))
	}
	failed, ok, kernelRefuses := 0, 0, 0
	for _, bit := range flips {
		data := append([]byte(nil), whole...)
		data[bit/8] ^= 1 << (bit % 8)
		dir := t.TempDir()
		in := writeInput(t, dir, "flip.o", data)
		out := filepath.Join(dir, "out.btf")
		r := runChild(t, exe, nil, "-J", "--btf_encode_detached="+out, in)
		if st := fileState(t, in); st != fileState(t, writeInput(t, t.TempDir(), "flip.o", data)) {
			t.Errorf("bit %d: input changed", bit)
		}
		if r.code == 0 {
			ok++
			checkBounds(t, r)
			blob, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("bit %d: exit 0 but %v", bit, err)
			}
			if _, err := btf.Parse(blob, nil); err != nil {
				t.Errorf("bit %d (byte %#x): output is not well-formed BTF: %v", bit, bit/8, err)
			}
			if _, err := btf.ValidateBlob(blob, nil, btf.ValidateOptions{}); err != nil {
				kernelRefuses++
			}
			continue
		}
		failed++
		expectFailure(t, r, in, `\.debug_(info|abbrev).* offset 0x[0-9a-f]+`)
		if _, err := os.Stat(out); err == nil {
			t.Errorf("bit %d: output written despite the error", bit)
		}
	}
	t.Logf("%d flips: %d rejected cleanly, %d converted to well-formed BTF (%d of them against the kernel's rules)", len(flips), failed, ok, kernelRefuses)
}

// selfTypedef is "typedef loop loop": a typedef whose DW_AT_type is itself.
func selfTypedef() *hDIE {
	t := &hDIE{Tag: dwarf.TagTypedef, Attrs: []hAttr{str("loop")}}
	t.Attrs = append(t.Attrs, typeRef(t))
	return cu(t)
}

// typeCycle chains DIEs of the given tags into a DW_AT_type cycle.
func typeCycle(tags ...dwarf.Tag) *hDIE {
	ds := make([]*hDIE, len(tags))
	for i, tag := range tags {
		ds[i] = &hDIE{Tag: tag}
		if tag == dwarf.TagTypedef {
			ds[i].Attrs = append(ds[i].Attrs, str("t"+string(rune('a'+i))))
		}
		if tag == dwarf.TagPointerType {
			ds[i].Attrs = append(ds[i].Attrs, data1(dwarf.AttrByteSize, 8))
		}
	}
	for i, d := range ds {
		d.Attrs = append(d.Attrs, typeRef(ds[(i+1)%len(ds)]))
	}
	return cu(ds...)
}

// manyMembers is a structure of n int members.
func manyMembers(n int) *hDIE {
	i := intType()
	s := &hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str("huge"), udata(dwarf.AttrByteSize, uint64(4*n))}}
	for k := range n {
		s.Kids = append(s.Kids, &hDIE{Tag: dwarf.TagMember, Attrs: []hAttr{str("m" + itoa(k)), typeRef(i), udata(dwarf.AttrDataMemberLoc, uint64(4*k))}})
	}
	return cu(i, s)
}

func itoa(k int) string {
	if k == 0 {
		return "0"
	}
	var b []byte
	for ; k > 0; k /= 10 {
		b = append([]byte{byte('0' + k%10)}, b...)
	}
	return string(b)
}

// bigArray is "int a[n]" with the bound given as DW_AT_count (udata).
func bigArray(n uint64) *hDIE {
	i := intType()
	a := &hDIE{Tag: dwarf.TagArrayType, Attrs: []hAttr{typeRef(i)}, Kids: []*hDIE{{Tag: dwarf.TagSubrangeType, Attrs: []hAttr{udata(dwarf.AttrCount, n)}}}}
	td := &hDIE{Tag: dwarf.TagTypedef, Attrs: []hAttr{str("big"), typeRef(a)}}
	return cu(i, a, td)
}

// longName is a structure whose name has n characters.
func longName(n int) *hDIE {
	return cu(&hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str(strings.Repeat("x", n)), data1(dwarf.AttrByteSize, 0)}})
}

// pointerChain is n pointers deep: int *****...
func pointerChain(n int) *hDIE {
	i := intType()
	kids := []*hDIE{i}
	prev := i
	for range n {
		p := &hDIE{Tag: dwarf.TagPointerType, Attrs: []hAttr{data1(dwarf.AttrByteSize, 8), typeRef(prev)}}
		kids = append(kids, p)
		prev = p
	}
	return cu(kids...)
}

// nestedStructs is n structures, each defined inside the previous one and
// used as its only member: DIE nesting n levels deep.
func nestedStructs(n int) *hDIE {
	i := intType()
	inner := &hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str("s" + itoa(n)), data1(dwarf.AttrByteSize, 4)},
		Kids: []*hDIE{{Tag: dwarf.TagMember, Attrs: []hAttr{str("v"), typeRef(i), data1(dwarf.AttrDataMemberLoc, 0)}}}}
	for k := n - 1; k >= 0; k-- {
		outer := &hDIE{Tag: dwarf.TagStructType, Attrs: []hAttr{str("s" + itoa(k)), data1(dwarf.AttrByteSize, 4)}}
		outer.Kids = []*hDIE{inner, {Tag: dwarf.TagMember, Attrs: []hAttr{str("v"), typeRef(inner), data1(dwarf.AttrDataMemberLoc, 0)}}}
		inner = outer
	}
	return cu(i, inner)
}

// TestHostileDWARF: well-formed DWARF describing types that BTF cannot
// hold or that never end fails cleanly, naming the DIE; deep but finite
// nesting converts within the time and memory bounds (the result holds every
// type; the kernel's 32-level resolve limit may still refuse such BTF, as it
// would pahole's).
func TestHostileDWARF(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const at = `\.debug_info at offset 0x[0-9a-f]+: `
	cases := []struct {
		name  string
		root  *hDIE
		want  string // the error, or "" for success
		types int    // on success, the number of types written
	}{
		{name: "self-referencing typedef", root: selfTypedef(), want: at + `DW_AT_type chain of 1 type DIEs loops back`},
		{name: "typedef cycle", root: typeCycle(dwarf.TagTypedef, dwarf.TagTypedef), want: at + `DW_AT_type chain of 2 type DIEs loops back`},
		{name: "const volatile cycle", root: typeCycle(dwarf.TagConstType, dwarf.TagVolatileType), want: at + `DW_AT_type chain of 2 type DIEs loops back`},
		{name: "pointer to itself", root: typeCycle(dwarf.TagPointerType), want: at + `DW_AT_type chain of 1 type DIEs loops back`},
		{name: "array of itself", root: typeCycle(dwarf.TagArrayType), want: at + `DW_AT_type chain of 1 type DIEs loops back`},
		{name: "70000 members", root: manyMembers(70000), want: at + `STRUCT with 70000 members, more than BTF's limit of 65535`},
		{name: "array of 2^32 elements", root: bigArray(1 << 32), want: at + `array dimension of 4294967296 elements`},
		{name: "array of 2^40 elements", root: bigArray(1 << 40), want: at + `array dimension of 1099511627776 elements`},
		{name: "name of 513 characters", root: longName(513), want: at + `name of 513 bytes, longer than the kernel's BTF limit of 512`},
		{name: "name of 70000 characters", root: longName(70000), want: at + `name of 70000 bytes`},
		{name: "name of 512 characters", root: longName(512), types: 1},
		{name: "65535 members", root: manyMembers(65535), types: 2},
		{name: "pointer chain 100000 deep", root: pointerChain(100000), types: 100001},
		{name: "structures nested 10000 deep", root: nestedStructs(10000), types: 10002},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := dwarfELF(c.root)
			if c.want != "" {
				runHostile(t, exe, hostileCase{want: c.want, setup: func(t *testing.T, dir string) string {
					return writeInput(t, dir, "hostile.o", data)
				}})
				return
			}
			dir := t.TempDir()
			in := writeInput(t, dir, "deep.o", data)
			out := filepath.Join(dir, "out.btf")
			r := runChild(t, exe, nil, "-J", "--btf_encode_detached="+out, in)
			if r.code != 0 {
				t.Fatalf("exit status %d: %s", r.code, r.stderr)
			}
			checkBounds(t, r)
			blob, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			s, err := btf.Parse(blob, nil)
			if err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			if n := s.NumTypes(); n != c.types {
				t.Errorf("%d types written, want %d", n, c.types)
			}
			t.Logf("%d types in %v, peak RSS %d MB", s.NumTypes(), r.wall, r.maxRSS>>20)
		})
	}
}

// fillUp writes a filler file into dir until the file system is full.
func fillUp(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// TestHostileOutput: an output that cannot be written (read-only file
// system, full disk, a directory in the way) fails with one line naming the
// path and the cause, leaves the input as it was and no partial or
// temporary file behind, both for a detached output and for .BTF written
// into the input itself.
func TestHostileOutput(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		detached bool
		prepare  func(t *testing.T, dir string) // runs after the input is in dir
		want     string
	}{
		{"read-only file system, detached", true, remountRO, `read-only file system`},
		{"read-only file system, in place", false, remountRO, `read-only file system`},
		{"full disk, detached", true, fillUp, `no space left on device`},
		{"full disk, in place", false, fillUp, `no space left on device`},
		{"output is a directory", true, func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "out.btf"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, `out\.btf: is a directory`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testutil.MountTmpfs(t, "1m")
			in := writeInput(t, dir, "in.o", sampleELF())
			c.prepare(t, dir)
			inBefore, dirBefore := fileState(t, in), fileState(t, dir)
			args := []string{"-J", in}
			named := in
			if c.detached {
				named = filepath.Join(dir, "out.btf")
				args = []string{"-J", "--btf_encode_detached=" + named, in}
			}
			r := runChild(t, exe, nil, args...)
			expectFailure(t, r, named, c.want)
			if st := fileState(t, in); st != inBefore {
				t.Errorf("input changed: %s -> %s", inBefore, st)
			}
			if st := fileState(t, dir); st != dirBefore {
				t.Errorf("directory changed: %s -> %s", dirBefore, st)
			}
			t.Logf("%s", strings.TrimSpace(r.stderr))
		})
	}
}

// remountRO makes the tmpfs at dir read-only.
func remountRO(t *testing.T, dir string) {
	t.Helper()
	if msg, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Skipf("skipping: cannot remount read-only: %v %s", err, msg)
	}
}

// TestHostileModuleSections takes a real kernel module and, one section at
// a time, makes the section run past the end of the file (its header and
// every other section intact). The error must name the section; a section
// beyond the end of the file means a truncated or corrupt file even when
// gobtf would not read it. (It also caught a fault: a read error returned
// while goroutines still copied other sections from the file's mapping,
// which the caller then unmapped.)
func TestHostileModuleSections(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(testutil.Corpus(t, "modules/nls_utf8.ko"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(whole))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	shoff := int(le.Uint64(whole[40:]))
	named := 0
	for i, s := range f.Sections {
		if s.Type == elf.SHT_NULL || s.Type == elf.SHT_NOBITS || s.Size == 0 {
			continue
		}
		data := append([]byte(nil), whole...)
		le.PutUint64(data[shoff+64*i+32:], uint64(len(data))) // sh_size: past EOF from sh_offset on
		dir := t.TempDir()
		in := writeInput(t, dir, "cut.ko", data)
		out := filepath.Join(t.TempDir(), "out.btf")
		r := runChild(t, exe, nil, "-J", "--btf_encode_detached="+out, in)
		named++
		// The section name table cannot name itself when it is cut.
		expectFailure(t, r, in, fmt.Sprintf(`section (%s|#%d): .*beyond the file`, regexp.QuoteMeta(s.Name), i))
		if _, err := os.Stat(out); err == nil {
			t.Errorf("section %s: output written despite the error", s.Name)
		}
	}
	t.Logf("%d sections, each named in its error", named)
}

// badSymbolName compiles a small C file with DWARF and points the name of
// its last symbol past the end of .strtab. debug/elf reads such a name as
// empty and pahole 1.24 crashes on it; gobtf must name the entry.
func badSymbolName(t *testing.T, dir string) []byte {
	t.Helper()
	obj := testutil.CompileC(t, dir, "struct s { int a; };\nstruct s g;\nint f(struct s *p) { return p->a; }\n", "-O1")
	data, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	symtab := f.SectionByType(elf.SHT_SYMTAB)
	if symtab == nil || symtab.Entsize != 24 || symtab.Size < 48 {
		t.Fatalf("%s: no usable 64-bit .symtab", obj)
	}
	last := symtab.Offset + symtab.Size - symtab.Entsize
	f.ByteOrder.PutUint32(data[last:], 0x7fffff)
	return data
}
