package btfcheck_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfcheck"
	"github.com/gobtf/gobtf/internal/testutil/dwarfgen"
)

// FuzzCheckModule runs gobtf check's whole path on a module built around
// arbitrary .BTF and .BTF.base sections (and, with raw set, on the .BTF
// bytes as a raw file): reading, the module check by the rules of 6.1 (which
// ignores .BTF.base) and 6.18 (which relocates from it), the load check,
// and lint. It must never panic, and must give each file a verdict or an
// error.
func FuzzCheckModule(f *testing.F) {
	base := vmlinuxSpec()
	dir := f.TempDir()
	basePath := filepath.Join(dir, "vmlinux.btf")
	if err := os.WriteFile(basePath, base.Marshal(binary.LittleEndian), 0o644); err != nil {
		f.Fatal(err)
	}
	split := btf.NewSpec(base)
	split.AddStruct(false, "m", 24, []btf.MemberSpec{{Name: "l", Type: 2}, {Name: "p", Type: 3, BitOffset: 128}})
	split.AddRef(btf.KindTypedef, "m_t", 4)
	dist, moved, err := btf.DistillBase(split)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(split.Marshal(binary.LittleEndian), []byte(nil), false)
	f.Add(moved.Marshal(binary.LittleEndian), dist.Marshal(binary.LittleEndian), false)
	f.Add(split.Marshal(binary.LittleEndian), []byte(nil), true)
	k61, _ := btfcheck.ParseKernel("6.1")
	ko := filepath.Join(dir, "m.ko")
	raw := filepath.Join(dir, "m.btf")
	f.Fuzz(func(t *testing.T, data, distData []byte, asRaw bool) {
		secs := []dwarfgen.Section{{Name: ".modinfo", Data: []byte("name=m\x00")}, {Name: ".BTF", Data: data}}
		if distData != nil {
			secs = append(secs, dwarfgen.Section{Name: ".BTF.base", Data: distData})
		}
		path := ko
		if asRaw {
			path = raw
			if err := os.WriteFile(raw, data, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(ko, dwarfgen.RelocatableELF(secs...), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []btfcheck.Options{
			{Base: basePath, Kernel: btfcheck.Newest(), Lint: true, AllFaults: true},
			{Base: basePath, Kernel: k61, Lint: true},
			{Base: basePath, Kernel: btfcheck.Newest(), As: btfcheck.AsLoad},
		} {
			n := 0
			err := btfcheck.Run([]string{path}, opts, func(r btfcheck.Result) {
				n++
				if r.Err == nil && r.Accepted == (len(r.Faults) > 0) {
					t.Fatalf("accepted=%v with %d faults", r.Accepted, len(r.Faults))
				}
				for _, fl := range r.Faults {
					_ = btfcheck.Line(fl.ValidationError)
				}
			})
			if err != nil || n != 1 {
				t.Fatalf("Run: %v, %d results", err, n)
			}
		}
	})
}
