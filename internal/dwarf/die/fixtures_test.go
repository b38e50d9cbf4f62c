package die

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// fixture is one build of the C or C++ sources in testdata.
type fixture struct {
	name  string
	cc    string
	args  []string
	srcs  []string
	types bool // expect type units (ref_sig8 references)
	split bool // -gsplit-dwarf: also check the .dwo files
}

var cSrcs = []string{"fixture_a.c", "fixture_b.c"}

var fixtures = []fixture{
	{name: "gcc-dwarf2", cc: "gcc", args: []string{"-gdwarf-2", "-O0"}, srcs: cSrcs},
	{name: "gcc-dwarf3", cc: "gcc", args: []string{"-gdwarf-3", "-O1"}, srcs: cSrcs},
	{name: "gcc-dwarf4", cc: "gcc", args: []string{"-gdwarf-4", "-O2"}, srcs: cSrcs},
	{name: "gcc-dwarf5", cc: "gcc", args: []string{"-gdwarf-5", "-O2"}, srcs: cSrcs},
	{name: "gcc-dwarf5-64bit", cc: "gcc", args: []string{"-gdwarf-5", "-gdwarf64", "-O2"}, srcs: cSrcs},
	{name: "gcc-dwarf4-types", cc: "gcc", args: []string{"-gdwarf-4", "-fdebug-types-section"}, srcs: cSrcs, types: true},
	{name: "gcc-dwarf5-split", cc: "gcc", args: []string{"-gdwarf-5", "-gsplit-dwarf", "-O2"}, srcs: cSrcs, split: true},
	{name: "gcc-dwarf4-split", cc: "gcc", args: []string{"-gdwarf-4", "-gsplit-dwarf", "-O2"}, srcs: cSrcs, split: true},
	{name: "clang-dwarf4", cc: "clang", args: []string{"-gdwarf-4", "-O2"}, srcs: cSrcs},
	{name: "clang-dwarf5", cc: "clang", args: []string{"-gdwarf-5", "-O2"}, srcs: cSrcs},
	{name: "clang-dwarf5-O0", cc: "clang", args: []string{"-gdwarf-5", "-O0"}, srcs: cSrcs},
	// clang makes type units for C++ only; for C the flag must change nothing.
	{name: "clang-dwarf5-types", cc: "clang", args: []string{"-gdwarf-5", "-fdebug-types-section"}, srcs: cSrcs},
	{name: "g++-dwarf5", cc: "g++", args: []string{"-gdwarf-5", "-O1"}, srcs: []string{"fixture_c.cc"}},
	{name: "clang++-dwarf5", cc: "clang++", args: []string{"-gdwarf-5", "-O1"}, srcs: []string{"fixture_c.cc"}},
	{name: "clang++-dwarf4-types", cc: "clang++", args: []string{"-gdwarf-4", "-fdebug-types-section"}, srcs: []string{"fixture_c.cc"}, types: true},
	{name: "clang++-dwarf5-types", cc: "clang++", args: []string{"-gdwarf-5", "-fdebug-types-section", "-O1"}, srcs: []string{"fixture_c.cc"}, types: true},
	{name: "g++-dwarf4-types", cc: "g++", args: []string{"-gdwarf-4", "-fdebug-types-section"}, srcs: []string{"fixture_c.cc"}, types: true},
}

// build compiles and links the fixture into a temporary folder and returns
// the executable's path; it skips when the compiler is missing.
func (fx *fixture) build(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{}, fx.args...)
	for _, s := range fx.srcs {
		abs, err := filepath.Abs(filepath.Join("testdata", s))
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, abs)
	}
	out := filepath.Join(dir, "fixture")
	args = append(args, "-o", out)
	if err := testutil.Compile(t, dir, fx.cc, args...); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFixtures compiles small programs with gcc and clang at several DWARF
// versions and checks the decoder against debug/dwarf (every attribute
// value) and against readelf (the tree shape, also of .debug_types and
// split .dwo files), then checks SkipChildren, filtered walks and EntryAt on
// them.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			path := fx.build(t)
			f, sec := loadSections(t, path)
			d, err := New(sec)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			std, err := f.DWARF()
			if err != nil {
				t.Fatalf("debug/dwarf: %v", err)
			}
			n := compareWithStd(t, d, std, sec, compareOptions{})
			if n == 0 {
				t.Fatal("no DIEs")
			}
			checkTreeWithReadelf(t, d, path, "")
			checkSkipChildren(t, d, 0)
			checkFilter(t, d)
			checkDeferred(t, d, sec)
			if !fx.split { // skeleton units have no source coordinates
				checkLean(t, d, sec)
			}
			sigs := checkRefs(t, d, 0)
			if fx.types && sigs == 0 {
				t.Error("no DW_FORM_ref_sig8 reference resolved")
			}
			if fx.split {
				checkDWOs(t, f, d, filepath.Dir(path), fx.srcs)
			} else {
				checkUnitNames(t, d, fx.srcs)
			}
		})
	}
}

// checkUnitNames checks that each source file names a compile unit (the
// name may come through strp, line_strp or strx).
func checkUnitNames(t *testing.T, d *Data, srcs []string) {
	t.Helper()
	for _, s := range srcs {
		found := false
		for i := range d.Units() {
			u := &d.Units()[i]
			if strings.HasSuffix(u.Name, s) && u.Producer != "" && u.Language != 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("no unit named %s with producer and language", s)
		}
	}
}

// checkDWOs decodes the split DWARF files gcc left beside the executable:
// their single split unit must decode (strx through the implicit
// str_offsets_base, addrx through the skeleton's addr_base) and match
// readelf's tree, and main's DW_AT_low_pc must be the symbol's address.
func checkDWOs(t *testing.T, exe *elf.File, skel *Data, dir string, srcs []string) {
	t.Helper()
	syms, err := exe.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var mainAddr uint64
	for _, s := range syms {
		if s.Name == "main" {
			mainAddr = s.Value
		}
	}
	foundMain := false
	dwos, _ := filepath.Glob(filepath.Join(dir, "*.dwo"))
	if len(dwos) != len(srcs) {
		t.Fatalf("found .dwo files %v for sources %v", dwos, srcs)
	}
	for _, path := range dwos {
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		get := func(name string) []byte {
			if s := f.Section(name + ".dwo"); s != nil {
				b, err := s.Data()
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			return nil
		}
		sec := &Sections{Info: get(".debug_info"), Abbrev: get(".debug_abbrev"), Str: get(".debug_str"),
			StrOffsets: get(".debug_str_offsets"), LineStr: get(".debug_line_str"),
			RngLists: get(".debug_rnglists"), LocLists: get(".debug_loclists"), Order: f.ByteOrder,
			Skeleton: skel}
		f.Close()
		d, err := New(sec)
		if err != nil {
			t.Fatalf("%s: New: %v", path, err)
		}
		if len(d.Units()) != 1 || (d.Units()[0].UnitType != dwarf.UTSplitCompile && d.Units()[0].Version >= 5) {
			t.Fatalf("%s: want one split compile unit, got %+v", path, d.Units())
		}
		u := &d.Units()[0]
		if !strings.HasSuffix(u.Name, strings.TrimSuffix(filepath.Base(path), ".dwo")[len("fixture-"):]+".c") {
			t.Errorf("%s: unit name %q", path, u.Name)
		}
		checkTreeWithReadelf(t, d, path, ".dwo")
		r := d.NewReader()
		r.Seek(u)
		var e Entry
		for {
			ok, err := r.Next(&e)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if !ok {
				break
			}
			if f := e.Field(dwarf.AttrName); f != nil && f.Str() == "main" && e.Tag == 0x2e {
				foundMain = true
				if lo, _ := e.Val(0x11); lo != mainAddr {
					t.Errorf("%s: main's low_pc %#x, symbol %#x", path, lo, mainAddr)
				}
			}
		}
	}
	if !foundMain {
		t.Error("no subprogram main in the .dwo files")
	}
}

// readelfDIE is one DIE line of readelf --debug-dump=info.
type readelfDIE struct {
	types bool // in .debug_types
	depth int
	off   uint64
}

var readelfLine = regexp.MustCompile(`^ <(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)`)

// checkTreeWithReadelf compares the depth and offset of every DIE the
// Reader returns with readelf's dump of the same file.
func checkTreeWithReadelf(t *testing.T, d *Data, path, suffix string) {
	t.Helper()
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Log("readelf not installed: tree shape not checked")
		return
	}
	out, err := exec.Command(readelf, "--debug-dump=info", path).Output()
	if err != nil {
		t.Fatalf("readelf %s: %v", path, err)
	}
	var want []readelfDIE
	inTypes, inWanted := false, false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Contents of the ") {
			// readelf also follows split DWARF links into .dwo files and
			// dwz alt links; only the sections of path itself count.
			name, rest, _ := strings.Cut(strings.TrimPrefix(line, "Contents of the "), " ")
			_, from, loaded := strings.Cut(rest, "(loaded from ")
			inTypes = name == ".debug_types"+suffix
			inWanted = (inTypes || name == ".debug_info"+suffix) && (!loaded || from == path+"):")
			continue
		}
		m := readelfLine.FindStringSubmatch(line)
		if m == nil || m[3] == "0" || !inWanted {
			continue
		}
		depth, _ := strconv.Atoi(m[1])
		off, _ := strconv.ParseUint(m[2], 16, 64)
		want = append(want, readelfDIE{inTypes, depth, off})
	}
	var got []readelfDIE
	r := d.NewReader()
	var e Entry
	for _, list := range [][]Unit{d.Units(), d.TypeUnits()} {
		for i := range list {
			r.Seek(&list[i])
			for {
				ok, err := r.Next(&e)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got = append(got, readelfDIE{list[i].Section == SecTypes, e.Depth, e.Offset})
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d DIEs, readelf %d", path, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: DIE %d: got %+v, readelf %+v", path, i, got[i], want[i])
		}
	}
}

// walkRecord is a DIE as seen by a full walk.
type walkRecord struct {
	off      uint64
	depth    int
	children bool
}

// checkSkipChildren walks each unit twice: fully, and skipping the
// children of every other DIE that has some. The second walk must return
// exactly the full walk's DIEs minus the skipped subtrees.
func checkSkipChildren(t *testing.T, d *Data, maxUnits int) {
	t.Helper()
	r := d.NewReader()
	var e Entry
	for _, list := range [][]Unit{d.Units(), d.TypeUnits()} {
		for i := range list {
			if maxUnits > 0 && i >= maxUnits {
				break
			}
			u := &list[i]
			var full []walkRecord
			r.Seek(u)
			for {
				ok, err := r.Next(&e)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				full = append(full, walkRecord{e.Offset, e.Depth, e.Children})
			}
			var want []walkRecord
			skip := false
			for j := 0; j < len(full); j++ {
				want = append(want, full[j])
				if full[j].children && full[j].depth > 0 {
					if skip {
						k := j + 1
						for k < len(full) && full[k].depth > full[j].depth {
							k++
						}
						j = k - 1
					}
					skip = !skip
				}
			}
			r.Seek(u)
			skip = false
			k := 0
			for {
				ok, err := r.Next(&e)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				if k >= len(want) || (walkRecord{e.Offset, e.Depth, e.Children}) != want[k] {
					t.Fatalf("unit %#x: skipping walk DIE %d at %#x depth %d, want %+v", u.Offset, k, e.Offset, e.Depth, want[min(k, len(want)-1)])
				}
				k++
				if e.Children && e.Depth > 0 {
					if skip {
						if err := r.SkipChildren(); err != nil {
							t.Fatal(err)
						}
					}
					skip = !skip
				}
			}
			if k != len(want) {
				t.Fatalf("unit %#x: skipping walk returned %d DIEs, want %d", u.Offset, k, len(want))
			}
		}
	}
}

// checkRefs decodes the target of every reference attribute with EntryAt
// and compares it with the DIE the walk found at that offset. It returns how
// many ref_sig8 references it resolved.
func checkRefs(t *testing.T, d *Data, maxUnits int) int {
	t.Helper()
	type seen struct {
		tag    dwarf.Tag
		nattrs int
	}
	byOff := map[[2]uint64]seen{}
	var refs [][3]uint64 // section, offset, form
	r := d.NewReader()
	var e Entry
	for _, list := range [][]Unit{d.Units(), d.TypeUnits()} {
		for i := range list {
			if maxUnits > 0 && i >= maxUnits {
				break
			}
			r.Seek(&list[i])
			for {
				ok, err := r.Next(&e)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				sec := uint64(list[i].Section)
				byOff[[2]uint64{sec, e.Offset}] = seen{e.Tag, len(e.Fields)}
				for _, f := range e.Fields {
					switch {
					case f.Form == dwarf.FormRefAddr:
						refs = append(refs, [3]uint64{uint64(SecInfo), f.Val, uint64(f.Form)})
					case f.IsRef():
						refs = append(refs, [3]uint64{sec, f.Val, uint64(f.Form)})
					case f.Form == dwarf.FormRefSig8:
						s, off, ok := d.TypeBySignature(f.Val)
						if !ok {
							t.Fatalf("DIE %#x: signature %#x not found", e.Offset, f.Val)
						}
						refs = append(refs, [3]uint64{uint64(s), off, uint64(f.Form)})
					}
				}
			}
		}
	}
	sigs := 0
	er := d.NewReader()
	for _, ref := range refs {
		if err := er.EntryAt(Section(ref[0]), ref[1], &e); err != nil {
			t.Fatalf("EntryAt(%v, %#x): %v", Section(ref[0]), ref[1], err)
		}
		want, ok := byOff[[2]uint64{ref[0], ref[1]}]
		if !ok && maxUnits > 0 {
			continue // a unit not walked
		}
		if !ok || want.tag != e.Tag || want.nattrs != len(e.Fields) {
			t.Fatalf("EntryAt(%v, %#x): tag %#x with %d attributes, walk saw %+v (found %v)", Section(ref[0]), ref[1], e.Tag, len(e.Fields), want, ok)
		}
		if dwarf.Form(ref[2]) == dwarf.FormRefSig8 {
			sigs++
		}
	}
	return sigs
}
