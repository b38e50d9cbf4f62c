package dwarf2btf

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
	"github.com/gobtf/gobtf/internal/dwarf2btf/funcs"
)

// convertWithFuncs converts a linked ELF file's types unit by unit, as the
// converter does, collects each unit's function candidates, joins the units
// and encodes the functions: the whole function path, until the walker
// calls it itself. It returns the joined, not deduplicated Spec.
func convertWithFuncs(t testing.TB, path string, opts *Options) *btf.Spec {
	t.Helper()
	ef, err := openELF(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ef.Close() })
	secs, err := linkedSections(ef)
	if err != nil {
		t.Fatal(err)
	}
	d, err := die.New(secs)
	if err != nil {
		t.Fatal(err)
	}
	table, err := funcTableStd(ef, opts)
	if err != nil {
		t.Fatal(err)
	}
	le := ef.ByteOrder == binary.LittleEndian
	addrSize := uint32(8)
	if ef.Class == elf.ELFCLASS32 {
		addrSize = 4
	}
	units := d.Units()
	out := btf.NewSpec(nil)
	perCU := make([][]funcs.Candidate, len(units))
	shift := make([]btf.TypeID, len(units))
	c := newCUTypes(opts, &target{littleEndian: le, addrSize: addrSize, debugAddr: secs.Addr}, nil)
	collector := funcs.NewCollector(table, funcOptions(opts))
	var collect time.Duration
	var ms runtime.MemStats
	var mallocs uint64
	nCands := 0
	for i := range units {
		c.reset()
		lang, clang, err := c.walk(newDecoderStream(d, &units[i]))
		if err != nil {
			t.Fatalf("unit %d: %v", i, err)
		}
		if opts.Languages.Skips(dwarf.Lang(lang)) || units[i].Tag != dwarf.TagCompileUnit {
			continue
		}
		c.enumSignedness()
		c.emit()
		t0 := time.Now()
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		cands, err := collector.Collect(funcs.Unit{Units: units[i : i+1], Data: d, Types: c, Clang: clang, Machine: ef.Machine})
		if err != nil {
			t.Fatalf("unit %d: %v", i, err)
		}
		collect += time.Since(t0)
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs - m0
		nCands += len(cands)
		perCU[i] = cands
		shift[i], _ = out.AppendSpec(c.spec)
	}
	t0 := time.Now()
	before := out.NumTypes()
	if err := funcs.Encode(out, perCU, shift, table, funcOptions(opts), nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d units, %d ELF functions; collect %v (%d candidates, %d allocations), encode %v (%d types)", filepath.Base(path),
		len(units), table.Len(), collect, nCands, mallocs, time.Since(t0), out.NumTypes()-before)
	return out
}

// funcSig is what the tests compare of a FUNC: its parameter names and the
// kinds and names along its parameter and return types, which survive
// deduplication.
type funcSig struct {
	params []string
	tags   []string // DECL_TAGs on the FUNC: "value@component", sorted
}

// funcSigs returns every FUNC of s by name.
func funcSigs(s *btf.Spec) map[string]funcSig {
	out := make(map[string]funcSig)
	tags := make(map[btf.TypeID][]string)
	for i := 0; i < s.NumTypes(); i++ {
		if t := s.Own(i); t.Kind() == btf.KindDeclTag {
			tags[t.Ref()] = append(tags[t.Ref()], fmt.Sprintf("%s@%d", s.Name(t), int32(t[3])))
		}
	}
	for i := 0; i < s.NumTypes(); i++ {
		t := s.Own(i)
		if t.Kind() != btf.KindFunc {
			continue
		}
		p := s.Type(t.Ref())
		var sig funcSig
		if p != nil {
			for k := 0; k < p.Vlen(); k++ {
				n, typ := p.Param(k)
				sig.params = append(sig.params, s.Strings().String(n)+":"+typeShape(s, typ))
			}
		}
		sig.tags = tags[s.FirstID()+btf.TypeID(i)]
		sort.Strings(sig.tags)
		out[s.Name(t)] = sig
	}
	return out
}

// typeShape names a type by its chain of kinds down to a named type.
func typeShape(s *btf.Spec, id btf.TypeID) string {
	shape := ""
	for hops := 0; hops < 16; hops++ {
		t := s.Type(id)
		if t == nil {
			return shape + "void"
		}
		switch t.Kind() {
		case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			shape += t.Kind().String() + " "
			id = t.Ref()
			continue
		case btf.KindFwd, btf.KindStruct, btf.KindUnion:
			// Deduplication resolves forward declarations.
			if t.Kind() == btf.KindUnion || t.Kind() == btf.KindFwd && t.KindFlag() {
				return shape + "union " + s.Name(t)
			}
			return shape + "struct " + s.Name(t)
		}
		return shape + t.Kind().String() + " " + s.Name(t)
	}
	return shape
}

func sortedKeys(m map[string]funcSig) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
