package btf_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// allKinds is a Spec holding every kind with every flag and the odd values
// bpftool has special text for (unknown encodings and linkages, invalid and
// empty names, out-of-range DATASEC entries), with the IDs of its types.
type allKinds struct {
	s   *btf.Spec
	ids map[string]btf.TypeID
}

// buildAllKinds builds the allKinds Spec. Names in ids are test labels, not
// BTF names.
func buildAllKinds() allKinds {
	s := btf.NewSpec(nil)
	ids := map[string]btf.TypeID{}
	add := func(label string, words ...uint32) { ids[label] = s.MustAppend(words...) }
	str := s.AddString

	ids["int"] = s.AddInt("int", 4, btf.IntSigned, 32)
	ids["char"] = s.AddInt("char", 1, btf.IntChar, 8)
	ids["bool"] = s.AddInt("_Bool", 1, btf.IntBool, 8)
	ids["uint"] = s.AddInt("unsigned int", 4, 0, 32)
	// Encoding 3 (SIGNED|CHAR) has no name; bit offset 2 is printed as is.
	add("intodd", str("odd"), btf.Info(btf.KindInt, false, 0), 2, btf.IntWord(3, 2, 5))
	ids["ptr"] = s.AddRef(btf.KindPtr, "", ids["int"])
	ids["array"] = s.AddArray(ids["int"], ids["uint"], 4)
	ids["struct"] = s.AddStruct(false, "s", 8, []btf.MemberSpec{
		{Name: "a", Type: ids["int"]},
		{Name: "b", Type: ids["uint"], BitOffset: 32, BitfieldSize: 4},
		{Name: "", Type: ids["uint"], BitOffset: 36, BitfieldSize: 28},
	})
	// Without kind_flag the whole offset word is the bit offset.
	add("union", 0, btf.Info(btf.KindUnion, false, 2), 4,
		str("x"), ids["int"], 0,
		str("y"), ids["char"], 0x05000020)
	ids["enum"] = s.AddEnum("e", 4, true, false, []btf.EnumValueSpec{{Name: "NEG", Value: -1}, {Name: "MIN", Value: -2147483648}, {Name: "ONE", Value: 1}})
	ids["uenum"] = s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "BIG", Value: 0xffffffff}, {Name: "ZERO", Value: 0}})
	ids["enum64"] = s.AddEnum("e64", 8, true, true, []btf.EnumValueSpec{{Name: "N64", Value: -5}, {Name: "MIN64", Value: -1 << 63}})
	ids["uenum64"] = s.AddEnum("u64", 8, false, true, []btf.EnumValueSpec{{Name: "TOP", Value: -1 << 63}, {Name: "ALL", Value: -1}})
	add("emptyenum", str("empty"), btf.Info(btf.KindEnum, false, 0), 4)
	ids["fwd"] = s.AddFwd("fs", false)
	ids["fwdu"] = s.AddFwd("fu", true)
	ids["typedef"] = s.AddRef(btf.KindTypedef, "td", ids["struct"])
	ids["volatile"] = s.AddRef(btf.KindVolatile, "", ids["int"])
	ids["const"] = s.AddRef(btf.KindConst, "", ids["volatile"])
	ids["restrict"] = s.AddRef(btf.KindRestrict, "", ids["ptr"])
	ids["proto"] = s.AddFuncProto(ids["int"], []btf.ParamSpec{{Name: "p", Type: ids["ptr"]}, {Name: "", Type: ids["char"]}, {}})
	ids["voidproto"] = s.AddFuncProto(0, nil)
	ids["fstatic"] = s.AddFunc("fs0", ids["proto"], btf.LinkageStatic)
	ids["fglobal"] = s.AddFunc("fg", ids["proto"], btf.LinkageGlobal)
	ids["fextern"] = s.AddFunc("fe", ids["voidproto"], btf.LinkageExtern)
	ids["funknown"] = s.AddFunc("fu0", ids["voidproto"], 3)
	ids["vstatic"] = s.AddVar("vs", ids["int"], btf.LinkageStatic)
	ids["vglobal"] = s.AddVar("vg", ids["array"], btf.LinkageGlobal)
	ids["vextern"] = s.AddVar("ve", ids["char"], btf.LinkageExtern)
	ids["vunknown"] = s.AddVar("vu", ids["char"], 7)
	ids["float"] = s.AddFloat("double", 8)
	ids["decltag"] = s.AddDeclTag("tag1", ids["struct"], -1, false)
	ids["decltagm"] = s.AddDeclTag("tag2", ids["struct"], 1, true)
	ids["typetag"] = s.AddTypeTag("user", ids["int"], false)
	ids["typetagattr"] = s.AddTypeTag("attr", ids["int"], true)
	// Name offsets: past the string section, the NUL ending "int" (an
	// empty but valid name) and the middle of "int" (a suffix).
	intOff, _ := s.Strings().Find("int")
	add("badname", 0x7fffff, btf.Info(btf.KindTypedef, false, 0), ids["int"])
	add("emptyname", intOff+3, btf.Info(btf.KindTypedef, false, 0), ids["int"])
	add("suffixname", intOff+1, btf.Info(btf.KindStruct, false, 1), 4, 0x7fffff, ids["int"], 0)
	// DATASEC entries: VARs, a FUNC, void, an ID past the last type (no
	// name printed) and the last type, the DATASEC after this one (named).
	last := s.TypeCount() + 2
	ids["past"] = last + 1
	ids["datasec"] = s.AddDatasec(".data", 64, []btf.SecInfoSpec{
		{Type: ids["vglobal"], Offset: 0, Size: 16},
		{Type: ids["vstatic"], Offset: 16, Size: 4},
		{Type: ids["fglobal"], Offset: 20, Size: 0},
		{Type: 0, Offset: 24, Size: 1},
		{Type: last + 1, Offset: 28, Size: 2},
		{Type: last, Offset: 32, Size: 3},
	})
	ids["emptysec"] = s.AddDatasec(".bss", 0, nil)
	return allKinds{s, ids}
}

// expand replaces each {label} in text by the decimal ID of that type.
func (a allKinds) expand(text string) string {
	for label, id := range a.ids {
		text = strings.ReplaceAll(text, "{"+label+"}", strconv.FormatUint(uint64(id), 10))
	}
	return text
}

// TestDumpFormat checks single types against lines written from the format
// strings of bpftool v7.1.0's dump_btf_type (src/btf.c).
func TestDumpFormat(t *testing.T) {
	a := buildAllKinds()
	cases := []struct {
		label string
		want  string
	}{
		{"int", "INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED"},
		{"char", "INT 'char' size=1 bits_offset=0 nr_bits=8 encoding=CHAR"},
		{"bool", "INT '_Bool' size=1 bits_offset=0 nr_bits=8 encoding=BOOL"},
		{"uint", "INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)"},
		{"intodd", "INT 'odd' size=2 bits_offset=2 nr_bits=5 encoding=UNKN"},
		{"ptr", "PTR '(anon)' type_id={int}"},
		{"array", "ARRAY '(anon)' type_id={int} index_type_id={uint} nr_elems=4"},
		{"struct", "STRUCT 's' size=8 vlen=3\n\t'a' type_id={int} bits_offset=0\n\t'b' type_id={uint} bits_offset=32 bitfield_size=4\n\t'(anon)' type_id={uint} bits_offset=36 bitfield_size=28"},
		{"union", "UNION '(anon)' size=4 vlen=2\n\t'x' type_id={int} bits_offset=0\n\t'y' type_id={char} bits_offset=83886112"},
		{"enum", "ENUM 'e' encoding=SIGNED size=4 vlen=3\n\t'NEG' val=-1\n\t'MIN' val=-2147483648\n\t'ONE' val=1"},
		{"uenum", "ENUM '(anon)' encoding=UNSIGNED size=4 vlen=2\n\t'BIG' val=4294967295\n\t'ZERO' val=0"},
		{"enum64", "ENUM64 'e64' encoding=SIGNED size=8 vlen=2\n\t'N64' val=-5LL\n\t'MIN64' val=-9223372036854775808LL"},
		{"uenum64", "ENUM64 'u64' encoding=UNSIGNED size=8 vlen=2\n\t'TOP' val=9223372036854775808ULL\n\t'ALL' val=18446744073709551615ULL"},
		{"emptyenum", "ENUM 'empty' encoding=UNSIGNED size=4 vlen=0"},
		{"fwd", "FWD 'fs' fwd_kind=struct"},
		{"fwdu", "FWD 'fu' fwd_kind=union"},
		{"typedef", "TYPEDEF 'td' type_id={struct}"},
		{"const", "CONST '(anon)' type_id={volatile}"},
		{"restrict", "RESTRICT '(anon)' type_id={ptr}"},
		{"proto", "FUNC_PROTO '(anon)' ret_type_id={int} vlen=3\n\t'p' type_id={ptr}\n\t'(anon)' type_id={char}\n\t'(anon)' type_id=0"},
		{"voidproto", "FUNC_PROTO '(anon)' ret_type_id=0 vlen=0"},
		{"fstatic", "FUNC 'fs0' type_id={proto} linkage=static"},
		{"fglobal", "FUNC 'fg' type_id={proto} linkage=global"},
		{"fextern", "FUNC 'fe' type_id={voidproto} linkage=extern"},
		{"funknown", "FUNC 'fu0' type_id={voidproto} linkage=(unknown)"},
		{"vstatic", "VAR 'vs' type_id={int}, linkage=static"},
		{"vglobal", "VAR 'vg' type_id={array}, linkage=global"},
		{"vextern", "VAR 've' type_id={char}, linkage=extern"},
		{"vunknown", "VAR 'vu' type_id={char}, linkage=(unknown)"},
		{"float", "FLOAT 'double' size=8"},
		{"decltag", "DECL_TAG 'tag1' type_id={struct} component_idx=-1"},
		{"decltagm", "DECL_TAG 'tag2' type_id={struct} component_idx=1"},
		{"typetag", "TYPE_TAG 'user' type_id={int}"},
		{"typetagattr", "TYPE_TAG 'attr' type_id={int}"},
		{"badname", "TYPEDEF '(invalid)' type_id={int}"},
		{"emptyname", "TYPEDEF '' type_id={int}"},
		{"suffixname", "STRUCT 'nt' size=4 vlen=1\n\t'(invalid)' type_id={int} bits_offset=0"},
		{"datasec", "DATASEC '.data' size=64 vlen=6\n" +
			"\ttype_id={vglobal} offset=0 size=16 (VAR 'vg')\n" +
			"\ttype_id={vstatic} offset=16 size=4 (VAR 'vs')\n" +
			"\ttype_id={fglobal} offset=20 size=0 (FUNC 'fg')\n" +
			"\ttype_id=0 offset=24 size=1 (UNKNOWN '(anon)')\n" +
			"\ttype_id={past} offset=28 size=2\n" +
			"\ttype_id={emptysec} offset=32 size=3 (DATASEC '.bss')"},
		{"emptysec", "DATASEC '.bss' size=0 vlen=0"},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			id, ok := a.ids[c.label]
			if !ok {
				t.Fatalf("no type labelled %q", c.label)
			}
			want := fmt.Sprintf("[%d] %s\n", id, a.expand(c.want))
			if got := string(a.s.AppendDump(nil, id)); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
	if got := a.s.AppendDump([]byte("x"), 0); string(got) != "x" {
		t.Errorf("AppendDump of void appended %q", got[1:])
	}
}

// TestDumpWriteError checks that a failing writer's error is returned.
func TestDumpWriteError(t *testing.T) {
	errBroken := errors.New("broken pipe")
	err := buildAllKinds().s.Dump(failWriter{errBroken})
	if !errors.Is(err, errBroken) {
		t.Fatalf("Dump returned %v, want an error wrapping %v", err, errBroken)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// bpftoolPath returns the installed bpftool, skipping the test without it.
func bpftoolPath(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("skipping: bpftool is not installed")
	}
	return path
}

// lineComparer is an io.Writer that checks what is written against a stream
// (bpftool's output) line by line, so that even a dump of hundreds of
// megabytes is compared without holding it in memory. Its Write fails at
// the first differing line, which stops Dump.
type lineComparer struct {
	want    *bufio.Reader
	line    int
	pending []byte // an unfinished line of the written output
}

func (c *lineComparer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.pending = append(c.pending, p...)
			break
		}
		got := p[:i+1]
		if len(c.pending) > 0 {
			c.pending = append(c.pending, got...)
			got = c.pending
		}
		p = p[i+1:]
		c.line++
		want, err := c.want.ReadSlice('\n')
		if !bytes.Equal(got, want) {
			return 0, fmt.Errorf("line %d differs:\n got: %q\nwant: %q (read error %v)", c.line, got, want, err)
		}
		c.pending = c.pending[:0]
	}
	return n, nil
}

// finish checks that both streams ended together.
func (c *lineComparer) finish() error {
	if len(c.pending) > 0 {
		return fmt.Errorf("dump ends with an unterminated line %q", c.pending)
	}
	if extra, err := c.want.ReadSlice('\n'); len(extra) > 0 || err != io.EOF {
		return fmt.Errorf("bpftool printed more after line %d: %q (%v)", c.line, extra, err)
	}
	return nil
}

// compareWithBpftool dumps spec and fails unless the text equals, byte for
// byte, what "bpftool [-B basePath] btf dump file path" prints.
func compareWithBpftool(t *testing.T, spec *btf.Spec, path, basePath string) {
	t.Helper()
	var args []string
	if basePath != "" {
		args = append(args, "-B", basePath)
	}
	args = append(args, "btf", "dump", "file", path)
	cmd := exec.Command(bpftoolPath(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting bpftool: %v", err)
	}
	c := &lineComparer{want: bufio.NewReaderSize(out, 1<<20)}
	dumpErr := spec.Dump(c)
	if dumpErr == nil {
		dumpErr = c.finish()
	} else {
		cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	if dumpErr != nil {
		t.Fatalf("%s: dump differs from bpftool's: %v\nbpftool stderr: %s", path, dumpErr, stderr.Bytes())
	}
	if waitErr != nil {
		t.Fatalf("bpftool %s: %v: %s", strings.Join(args, " "), waitErr, stderr.Bytes())
	}
	t.Logf("%s: %d types, %d lines equal to bpftool's", filepath.Base(path), spec.NumTypes(), c.line)
}

// parseFile decodes a raw BTF file.
func parseFile(t testing.TB, path string, base *btf.Spec) *btf.Spec {
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

// writeTemp writes data to a file in the test's temporary folder.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDumpBpftoolBuilt compares the dump of the hand-built Spec covering
// every kind, in both byte orders, and of a split Spec on it, with bpftool.
func TestDumpBpftoolBuilt(t *testing.T) {
	bpftoolPath(t)
	a := buildAllKinds()
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		t.Run(order.String(), func(t *testing.T) {
			data := a.s.Marshal(order)
			s, err := btf.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			compareWithBpftool(t, s, writeTemp(t, "all.btf", data), "")
		})
	}
	t.Run("split", func(t *testing.T) {
		basePath := writeTemp(t, "base.btf", a.s.Marshal(binary.LittleEndian))
		split := btf.NewSpec(a.s)
		// Base names (reused offsets), new names, references across the
		// split, an invalid name and a DATASEC naming base and split VARs.
		v := split.AddVar("splitvar", a.ids["struct"], btf.LinkageGlobal)
		p := split.AddRef(btf.KindPtr, "", v)
		split.AddStruct(false, "int", 16, []btf.MemberSpec{{Name: "s", Type: a.ids["struct"]}, {Name: "q", Type: p, BitOffset: 64}})
		split.MustAppend(a.s.Strings().Len()+999, btf.Info(btf.KindFwd, true, 0), 0)
		split.AddDatasec(".data..percpu", 32, []btf.SecInfoSpec{
			{Type: a.ids["vstatic"], Offset: 0, Size: 4},
			{Type: v, Offset: 8, Size: 8},
			{Type: split.TypeCount() + 1, Offset: 16, Size: 8},
		})
		data := split.Marshal(binary.LittleEndian)
		base := parseFile(t, basePath, nil)
		s, err := btf.Parse(data, base)
		if err != nil {
			t.Fatal(err)
		}
		compareWithBpftool(t, s, writeTemp(t, "split.btf", data), basePath)
	})
}

// TestDumpBpftoolReference compares the dumps of the reference vmlinux BTF
// files with bpftool's.
func TestDumpBpftoolReference(t *testing.T) {
	bpftoolPath(t)
	files, _ := filepath.Glob(filepath.Join(testutil.SharedDir(t), "reference", "*.btf"))
	if len(files) == 0 {
		t.Skip("skipping: no reference/*.btf files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			compareWithBpftool(t, parseFile(t, path, nil), path, "")
		})
	}
}

// TestDumpBpftoolModules compares the dumps of the reference module BTF,
// split on the kbuild vmlinux BTF, with "bpftool -B".
func TestDumpBpftoolModules(t *testing.T) {
	bpftoolPath(t)
	basePath := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	base := parseFile(t, basePath, nil)
	files, _ := filepath.Glob(filepath.Join(testutil.SharedDir(t), "reference", "modules", "*.btf"))
	if len(files) == 0 {
		t.Skip("skipping: no reference/modules/*.btf files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			compareWithBpftool(t, parseFile(t, path, base), path, basePath)
		})
	}
}

// TestDumpBpftoolSysfs compares the dump of the running kernel's BTF, and of
// a few of its modules' (bpftool bases those on the sysfs vmlinux itself),
// with bpftool's.
func TestDumpBpftoolSysfs(t *testing.T) {
	bpftoolPath(t)
	const vmlinux = "/sys/kernel/btf/vmlinux"
	if _, err := os.Stat(vmlinux); err != nil {
		t.Skipf("skipping: the running kernel exposes no BTF (%v)", err)
	}
	base := parseFile(t, vmlinux, nil)
	compareWithBpftool(t, base, vmlinux, "")
	mods, _ := filepath.Glob("/sys/kernel/btf/*")
	n := 0
	for _, path := range mods {
		if path == vmlinux || n == 5 {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			compareWithBpftool(t, parseFile(t, path, base), path, "")
		})
	}
}

// TestDumpBpftoolUndeduplicated compares the dump of the 3.4 M-type
// undeduplicated vmlinux BTF with bpftool's (about 40 s, most of it
// bpftool's).
func TestDumpBpftoolUndeduplicated(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the 3.4 M-type dump comparison in -short mode")
	}
	bpftoolPath(t)
	path := testutil.Reference(t, testutil.VmlinuxName+".undeduped.btf.xz")
	compareWithBpftool(t, parseFile(t, path, nil), path, "")
}

// FuzzDump dumps whatever the decoder accepts: Dump must not fail or panic
// and must print exactly the concatenated AppendDump text of every type,
// each starting with its "[ID] " and ending with a newline.
func FuzzDump(f *testing.F) {
	f.Add(buildAllKinds().s.Marshal(binary.LittleEndian))
	f.Add(buildAllKinds().s.Marshal(binary.BigEndian))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.Parse(data, nil)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := s.Dump(&out); err != nil {
			t.Fatal(err)
		}
		var each []byte
		for id := s.FirstID(); id <= s.TypeCount(); id++ {
			start := len(each)
			each = s.AppendDump(each, id)
			one := each[start:]
			if !bytes.HasPrefix(one, fmt.Appendf(nil, "[%d] ", id)) || !bytes.HasSuffix(one, []byte("\n")) {
				t.Fatalf("type %d dumps as %q", id, one)
			}
		}
		if !bytes.Equal(out.Bytes(), each) {
			t.Fatal("Dump differs from the AppendDump of every type")
		}
	})
}

// BenchmarkDumpVmlinux dumps the deduplicated reference vmlinux BTF.
func BenchmarkDumpVmlinux(b *testing.B) {
	s := parseFile(b, testutil.Reference(b, testutil.VmlinuxName+".kbuild.btf"), nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Dump(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
