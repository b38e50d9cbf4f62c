package dwarf2btf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/testutil"
)

// digestView is what a digest says about a DIE, whichever way its name was
// read: as a decoded Field or as a strp offset read by a plan.
type digestView struct {
	scalars     digestScalars // without the name's representation
	name        string
	strOff      uint64 // the name's .debug_str offset, when strOK
	strOK       bool
	constString string
	location    []byte
	producer    string
}

func viewOf(d *digest) digestView {
	v := digestView{name: d.nm(), constString: d.constString, location: d.location, producer: d.producer}
	switch {
	case d.strpName:
		v.strOff, v.strOK = d.nameOff, true
	case d.hasNameField:
		v.strOff, v.strOK = d.nameField.StrOffset()
	}
	v.scalars = d.digestScalars
	v.scalars.lazyName, v.scalars.hasNameField, v.scalars.strpName, v.scalars.nameOff = false, false, false, 0
	v.scalars.sink, v.scalars.sinkFlag = 0, false // written only by plans, read by no one
	return v
}

func (v digestView) equal(w digestView) bool {
	return v.scalars == w.scalars && v.name == w.name && v.strOff == w.strOff && v.strOK == w.strOK &&
		v.constString == w.constString && bytes.Equal(v.location, w.location) && v.producer == w.producer
}

// comparePlans walks every unit of d twice side by side, once filling the
// digests by compiled plans and once from decoded Fields, and fails t at the
// first DIE where the two differ, or where only one walk fails or they fail
// differently. It returns how many DIEs the plans filled and how many
// there were.
func comparePlans(t testing.TB, d *die.Data) (planned, total int) {
	var plans fixedPlans
	for i := range d.Units() {
		u := &d.Units()[i]
		a, b := newDecoderStream(d, u), newDecoderStream(d, u)
		a.usePlans(&plans)
		var da, db digest
		for {
			da.reset()
			db.reset()
			depthA, okA, errA := a.next(&da)
			depthB, okB, errB := b.next(&db)
			if fmt.Sprint(errA) != fmt.Sprint(errB) || okA != okB || depthA != depthB {
				t.Fatalf("unit %d: with plans (%d, %v, %v), from Fields (%d, %v, %v)", i, depthA, okA, errA, depthB, okB, errB)
			}
			if !okA || errA != nil {
				break
			}
			total++
			if a.e.AttrPos >= 0 {
				planned++
			}
			if va, vb := viewOf(&da), viewOf(&db); !va.equal(vb) {
				t.Fatalf("unit %d, DIE at %#x:\nwith plans  %+v\nfrom Fields %+v", i, db.off, va, vb)
			}
		}
	}
	return planned, total
}

// TestPlansMatchFields requires the compiled plans to fill every digest as
// fillDigest fills it from the decoded DIE, on the fixtures (both
// compilers, DWARF 4 and 5, objects and linked files, other targets) and,
// unless -short, on the shared kernel and modules. So that the comparison
// is not vacuous, plans must have filled some DIEs of every little-endian
// file (big-endian ones have none: plans read little-endian values), and
// most of the kernel's.
func TestPlansMatchFields(t *testing.T) {
	types, _, linked := buildFixtures(t)
	for _, fx := range append(types, linked...) {
		t.Run(fx.name, func(t *testing.T) { checkPlans(t, fx.obj, 1) })
	}
	for _, name := range append([]string{testutil.VmlinuxName}, testutil.ModuleNames...) {
		t.Run(name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("skipping: kernel files in -short mode")
			}
			minPct := 1
			if name == testutil.VmlinuxName {
				minPct = 50
			} else {
				name = "modules/" + name + ".ko"
			}
			checkPlans(t, testutil.Corpus(t, name), minPct)
		})
	}
}

// checkPlans runs comparePlans on the file at path and requires the plans
// to have filled at least minPercent of its DIEs, if it is little-endian.
func checkPlans(t *testing.T, path string, minPercent int) {
	d := openDWARF(t, path)
	planned, total := comparePlans(t, d)
	t.Logf("%d of %d DIEs filled by plans", planned, total)
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.ByteOrder == binary.LittleEndian && planned*100 < total*minPercent {
		t.Errorf("only %d of %d DIEs were filled by plans, want %d%%", planned, total, minPercent)
	}
}

// openDWARF indexes the DWARF of the ELF file at path as the conversion
// does (lean), or fails t. The file stays mapped until t ends.
func openDWARF(t testing.TB, path string) *die.Data {
	t.Helper()
	d, closeFile, err := tryOpenDWARF(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFile)
	return d
}

// tryOpenDWARF indexes the DWARF of the ELF file at path, relocated as
// the conversion relocates it where the file is relocatable; closeFile
// releases the file, after which d must not be used.
func tryOpenDWARF(path string) (d *die.Data, closeFile func(), err error) {
	secs, closeFile, err := tryOpenSections(path)
	if err != nil {
		return nil, nil, err
	}
	if d, err = die.NewWith(secs, die.Options{Lean: true}); err != nil {
		closeFile()
		return nil, nil, err
	}
	return d, closeFile, nil
}

// tryOpenSections returns the debug sections of the ELF file at path as
// the conversion reads them: relocated where the file is relocatable.
func tryOpenSections(path string) (secs *die.Sections, closeFile func(), err error) {
	ef, err := openELF(path)
	if err != nil {
		return nil, nil, err
	}
	closeFile = func() { ef.Close() }
	if ef.Type == elf.ET_REL {
		secs, _, err = relocatedSections(ef)
	} else {
		secs, err = linkedSections(ef)
	}
	if err != nil {
		closeFile()
		return nil, nil, err
	}
	return secs, closeFile, nil
}

// FuzzPlans compares the two ways of filling digests (comparePlans) on
// mutated DWARF: the plans must fill what the Fields give, and fail where
// decoding fails, with the same error. The seeds are the string, string
// offset, abbreviation and info sections of the fuzz seed objects (as the
// conversion reads them: relocated), mutated in memory, which is hundreds
// of times faster than mutating whole files.
func FuzzPlans(f *testing.F) {
	for _, path := range seedObjects(f) {
		secs, closeFile, err := tryOpenSections(path)
		if err != nil {
			f.Logf("%s: %v", path, err)
			continue
		}
		f.Add(bytes.Clone(secs.Info), bytes.Clone(secs.Abbrev), bytes.Clone(secs.Str), bytes.Clone(secs.StrOffsets))
		closeFile()
	}
	f.Fuzz(func(t *testing.T, info, abbrev, str, strOffsets []byte) {
		secs := &die.Sections{Order: binary.LittleEndian, Info: info, Abbrev: abbrev, Str: str, StrOffsets: strOffsets}
		d, err := die.NewWith(secs, die.Options{Lean: true})
		if err != nil {
			return
		}
		comparePlans(t, d)
	})
}
