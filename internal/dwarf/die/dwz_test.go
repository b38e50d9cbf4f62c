package die

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// TestDwz runs dwz over two builds of the C fixture so that their common
// types move into a supplementary file, then decodes the results:
// DW_TAG_imported_unit entries reference partial units of the alt file
// through DW_FORM_GNU_ref_alt, and names come through DW_FORM_GNU_strp_alt.
func TestDwz(t *testing.T) {
	dwz, err := exec.LookPath("dwz")
	if err != nil {
		t.Skip("skipping: dwz not installed")
	}
	var exes []string
	for _, opt := range []string{"-O0", "-O2"} {
		fx := fixture{name: "dwz", cc: "gcc", args: []string{"-gdwarf-4", opt}, srcs: cSrcs}
		exes = append(exes, fx.build(t))
	}
	alt := filepath.Join(t.TempDir(), "common.debug")
	if out, err := exec.Command(dwz, append([]string{"-m", alt, "-M", alt}, exes...)...).CombinedOutput(); err != nil {
		t.Fatalf("dwz: %v\n%s", err, out)
	}
	_, altSec := loadSections(t, alt)
	altData, err := New(altSec)
	if err != nil {
		t.Fatalf("alt file: %v", err)
	}
	for _, exe := range exes {
		_, sec := loadSections(t, exe)
		checkTreeWithReadelf(t, mustNew(t, sec, altData), exe, "")

		// Without the alt file the references cannot be resolved.
		sec.Sup = nil
		if err := decodeAll(sec); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s without its alt file: got %v, want ErrUnsupported", exe, err)
		}
		sec.Sup = altData
		d := mustNew(t, sec, altData)

		r, ar := d.NewReader(), altData.NewReader()
		var e, target Entry
		imports, altNames := 0, map[string]bool{}
		for i := range d.Units() {
			r.Seek(&d.Units()[i])
			for {
				ok, err := r.Next(&e)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				for _, f := range e.Fields {
					switch f.Form {
					case dwarf.FormGNUStrpAlt:
						altNames[f.Str()] = true
					case dwarf.FormGNURefAlt:
						if err := ar.EntryAt(SecInfo, f.Val, &target); err != nil {
							t.Fatalf("DIE %#x: alt reference %#x: %v", e.Offset, f.Val, err)
						}
						const tagImportedUnit, atImport = 0x3d, 0x18
						if e.Tag == tagImportedUnit && f.Attr == atImport {
							imports++
							if target.Tag != dwarf.TagPartialUnit || target.Depth != 0 {
								t.Errorf("DW_AT_import %#x: tag %#x depth %d, want a partial unit DIE", f.Val, target.Tag, target.Depth)
							}
						}
					}
				}
			}
		}
		if imports == 0 || len(altNames) == 0 {
			t.Errorf("%s: %d imported units, alt strings %v", exe, imports, altNames)
		}
	}
	partial := 0
	for _, u := range altData.Units() {
		if u.Tag == dwarf.TagPartialUnit {
			partial++
		}
	}
	if partial == 0 {
		t.Error("the alt file has no partial units")
	}
}

func mustNew(t *testing.T, sec *Sections, sup *Data) *Data {
	t.Helper()
	s := *sec
	s.Sup = sup
	d, err := New(&s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
