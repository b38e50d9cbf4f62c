package die

import (
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// vmlinuxData decodes the shared kernel's DWARF, skipping in -short mode.
func vmlinuxData(t testing.TB) (*Data, *Sections, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: whole-vmlinux test in -short mode")
	}
	path := testutil.Corpus(t, testutil.VmlinuxName)
	_, sec := loadSections(t, path)
	d, err := New(sec)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return d, sec, path
}

// walkAll visits every DIE of every unit of d and returns how many there are.
func walkAll(tb testing.TB, d *Data, r *Reader, e *Entry) int {
	n := 0
	for i := range d.Units() {
		r.Seek(&d.Units()[i])
		for {
			ok, err := r.Next(e)
			if err != nil {
				tb.Fatalf("unit %d: %v", i, err)
			}
			if !ok {
				break
			}
			n++
		}
	}
	return n
}

// TestVmlinuxMatchesStd compares every DIE of the kernel, attribute by
// attribute, with debug/dwarf's decoding of it.
func TestVmlinuxMatchesStd(t *testing.T) {
	d, sec, path := vmlinuxData(t)
	f, _ := loadSections(t, path)
	std, err := f.DWARF()
	if err != nil {
		t.Fatalf("debug/dwarf: %v", err)
	}
	start := time.Now()
	n := compareWithStd(t, d, std, sec, compareOptions{})
	t.Logf("%d units, %d DIEs identical to debug/dwarf (%v)", len(d.Units()), n, time.Since(start))
}

// TestVmlinuxCounts checks the unit and DIE totals against readelf
// --debug-dump=info on the same file (2,172 units, 14,259,548 DIEs without
// the 2,518,074 null entries), that every unit DIE was read, and
// SkipChildren and EntryAt on the first units, lean decoding and deferred
// decoding.
func TestVmlinuxCounts(t *testing.T) {
	d, sec, _ := vmlinuxData(t)
	r := d.NewReader()
	var e Entry
	n := walkAll(t, d, r, &e)
	t.Logf("%d units, %d DIEs", len(d.Units()), n)
	if len(d.Units()) != 2172 || n != 14259548 {
		t.Errorf("got %d units and %d DIEs, readelf 2172 and 14259548", len(d.Units()), n)
	}
	checkSkipChildren(t, d, 200)
	checkRefs(t, d, 200)
	checkLean(t, d, sec)
	checkDeferred(t, d, sec)
	for i := range d.Units() {
		u := &d.Units()[i]
		if u.Tag != dwarf.TagCompileUnit || u.Version != 5 || u.Name == "" || u.Producer == "" {
			t.Fatalf("unit %#x: tag %#x version %d name %q producer %q", u.Offset, u.Tag, u.Version, u.Name, u.Producer)
		}
	}
}

// BenchmarkWalkVmlinux decodes every DIE of the kernel with all attribute
// values, single-threaded.
func BenchmarkWalkVmlinux(b *testing.B) {
	d, _, _ := vmlinuxData(b)
	r := d.NewReader()
	var e Entry
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n = walkAll(b, d, r, &e)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "DIEs/s")
	b.ReportMetric(float64(n), "DIEs")
}

// BenchmarkNewVmlinux indexes the kernel's units and abbreviation tables.
func BenchmarkNewVmlinux(b *testing.B) {
	_, sec, _ := vmlinuxData(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(sec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWalkVmlinuxStd is the baseline: the same walk with debug/dwarf's
// Reader.
func BenchmarkWalkVmlinuxStd(b *testing.B) {
	_, _, path := vmlinuxData(b)
	f, _ := loadSections(b, path)
	std, err := f.DWARF()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = 0
		r := std.Reader()
		for {
			e, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			if e == nil {
				break
			}
			if e.Tag != 0 {
				n++
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "DIEs/s")
	b.ReportMetric(float64(n), "DIEs")
}
