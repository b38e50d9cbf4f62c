package funcs

import (
	"debug/elf"
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf/loc"
	"github.com/gobtf/gobtf/internal/elfio"
)

func funcSym(name string, addr uint64) elfio.Symbol {
	return elfio.Symbol{Name: name, Value: addr, Info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_FUNC)}
}

// TestElfFuncsTable checks pahole's symbol-name normalization and merging
// (elf_functions__collect): suffixes cut at the first '.', .cold/.part
// pieces ignored, non-function symbols ignored, names sorted, and a name's
// symbols at different addresses ambiguous, except for the last name, which
// pahole never checks.
func TestElfFuncsTable(t *testing.T) {
	src := &ELF{Order: binary.LittleEndian, Symbols: []elfio.Symbol{
		funcSym("zeta", 0x10),
		funcSym("alpha.isra.0", 0x20),
		funcSym("alpha", 0x20),
		funcSym("beta.cold", 0x30),
		funcSym("beta.part.1", 0x31),
		funcSym("beta", 0x32),
		funcSym("gamma", 0x40),
		funcSym("gamma", 0x44),
		{Name: "obj", Value: 0x50, Info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT)},
		funcSym("omega.constprop.0", 0),
		funcSym("omega", 0x60),
		funcSym("zeta.llvm.123", 0x70),
	}}
	tab, err := NewTable(src, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name      string
		Syms      []string
		Ambiguous bool
	}
	var got []fn
	for i := range tab.funcs {
		f := &tab.funcs[i]
		var syms []string
		for _, s := range tab.symsOf(f) {
			syms = append(syms, s.name)
		}
		got = append(got, fn{f.name, syms, f.ambiguous})
	}
	want := []fn{
		{"alpha", []string{"alpha.isra.0", "alpha"}, false},
		{"beta", []string{"beta"}, false},
		{"gamma", []string{"gamma", "gamma"}, true},
		{"omega", []string{"omega.constprop.0", "omega"}, false}, // address 0 does not count
		{"zeta", []string{"zeta", "zeta.llvm.123"}, false},       // last name: never checked
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("table:\n got %+v\nwant %+v", got, want)
	}
	for _, tc := range []struct {
		name string
		want int32
	}{{"alpha", 0}, {"gamma", 2}, {"zeta", 4}, {"beta.cold", -1}, {"obj", -1}, {"", -1}} {
		if g := tab.find(tc.name); g != tc.want {
			t.Errorf("find(%q) = %d, want %d", tc.name, g, tc.want)
		}
	}
}

// TestElfFuncsOrder checks the table's order, which is the order functions
// are encoded in, against a stable sort of the names by strings.Compare on
// random names that share long prefixes: the sort's keys hold only the
// first 16 bytes of a name. Names are 0 to 24 bytes of a small alphabet
// (with bytes above 0x7f), many of them prefixes of others, with a '.'
// suffix now and then.
func TestElfFuncsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab_\xff"
	for round := range 200 {
		var syms []elfio.Symbol
		var names []string
		for range 1 + rng.IntN(300) {
			var b []byte
			if len(names) > 0 && rng.IntN(3) == 0 {
				b = []byte(names[rng.IntN(len(names))]) // a prefix of it, or it
				b = b[:rng.IntN(len(b)+1)]
			}
			for range rng.IntN(25 - len(b)) {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			}
			if len(b) == 0 {
				continue
			}
			names = append(names, string(b))
			sym := string(b)
			if rng.IntN(4) == 0 {
				sym += ".isra.0"
			}
			syms = append(syms, funcSym(sym, uint64(len(syms))))
		}
		tab, err := NewTable(&ELF{Order: binary.LittleEndian, Symbols: syms}, &Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(syms)
		slices.SortStableFunc(want, func(a, b elfio.Symbol) int {
			an, _, _ := strings.Cut(a.Name, ".")
			bn, _, _ := strings.Cut(b.Name, ".")
			return strings.Compare(an, bn)
		})
		if len(tab.syms) != len(want) {
			t.Fatalf("round %d: %d symbols in the table, want %d", round, len(tab.syms), len(want))
		}
		for i := range want {
			if g, w := tab.syms[i], want[i]; g.name != w.Name || g.addr != w.Value {
				t.Fatalf("round %d: symbol %d is %q at %#x, want %q at %#x", round, i, g.name, g.addr, w.Name, w.Value)
			}
		}
	}
}

func TestSymbolSuffixes(t *testing.T) {
	for _, tc := range []struct {
		sym             string
		nonFn, optimzed bool
	}{
		{"foo", false, false},
		{"foo.cold", true, false},
		{"foo.part.0", true, false},
		{"foo.isra.0.cold", true, true},
		{"foo.constprop.3", false, true},
		{"foo.isra.1", false, true},
		{"foo.llvm.1234", false, false},
		{"cold", false, false},
		{"foo_part", false, false},
	} {
		if g := hasNonFuncSuffix(tc.sym); g != tc.nonFn {
			t.Errorf("hasNonFuncSuffix(%q) = %v", tc.sym, g)
		}
		if g := hasOptimizedSuffix(tc.sym); g != tc.optimzed {
			t.Errorf("hasOptimizedSuffix(%q) = %v", tc.sym, g)
		}
	}
}

// TestKfuncName follows pahole's get_func_name on BTF_ID symbol names.
func TestKfuncName(t *testing.T) {
	for sym, want := range map[string]string{
		"__BTF_ID__func__vfs_close__1":         "vfs_close",
		"__BTF_ID__func__bpf_obj_new_impl__42": "bpf_obj_new_impl",
		"__BTF_ID__func__a__b__7":              "a__b",
		"__BTF_ID__func__foo_1":                "",
		"__BTF_ID__func___":                    "",
		"__BTF_ID__func__foo__":                "foo",
		"__BTF_ID__struct__task_struct__3":     "",
		"vfs_close":                            "",
	} {
		if g := kfuncName(sym); g != want {
			t.Errorf("kfuncName(%q) = %q, want %q", sym, g, want)
		}
	}
}

// TestParamLocations decodes location expressions as pahole's
// parameter__decode_location does.
func TestParamLocations(t *testing.T) {
	const (
		rdi = dwarf.OpReg0 + 5
		rsi = dwarf.OpReg0 + 4
	)
	r := &locReader{u: loc.Unit{Order: binary.LittleEndian, AddrSize: 8, OffSize: 4, Version: 5}}
	for _, tc := range []struct {
		name     string
		entries  [][]byte // location list entries
		typeSize int
		want     paramLoc
	}{
		{"register", [][]byte{{byte(rdi)}}, 8, paramLoc{reg: int16(rdi)}},
		{"register later entry ignored", [][]byte{{0x91, 0x10}, {byte(rdi)}}, 8, paramLoc{reg: regUnknown, stack: true}},
		{"breg needs stack_value", [][]byte{{byte(dwarf.OpBreg0 + 5), 0}}, 8, paramLoc{reg: regUnknown}},
		{"breg computed value", [][]byte{{byte(dwarf.OpBreg0 + 5), 0, byte(dwarf.OpStackValue)}}, 8, paramLoc{reg: int16(rdi)}},
		{"breg with ops and stack_value", [][]byte{{byte(dwarf.OpBreg0 + 4), 1, 0x1a, byte(dwarf.OpStackValue)}}, 8, paramLoc{reg: int16(rsi)}},
		{"constant", [][]byte{{byte(dwarf.OpLit0 + 3), byte(dwarf.OpStackValue)}}, 4, paramLoc{reg: regUnknown, constVal: true}},
		{"constu then more", [][]byte{{byte(dwarf.OpConstu), 0x80, 0x01, byte(dwarf.OpLit0), 0x22, byte(dwarf.OpStackValue)}}, 4, paramLoc{reg: regUnknown, constVal: true}},
		{"entry value in a later entry", [][]byte{{0x91, 8}, {byte(dwarf.OpEntryValue), 1, byte(rsi), byte(dwarf.OpStackValue)}}, 8, paramLoc{reg: int16(rsi), stack: true}},
		{"GNU entry value", [][]byte{{byte(dwarf.OpGNUEntryValue), 1, byte(rdi), byte(dwarf.OpStackValue)}}, 8, paramLoc{reg: int16(rdi)}},
		{"empty first entry counts", [][]byte{{}, {byte(rdi)}}, 8, paramLoc{reg: regUnknown}},
		{"small piece", [][]byte{{byte(rdi), byte(dwarf.OpPiece), 4}}, 4, paramLoc{reg: int16(rdi)}},
		{"two-register aggregate", [][]byte{{byte(rdi), byte(dwarf.OpPiece), 8, byte(rsi), byte(dwarf.OpPiece), 8}}, 16, paramLoc{reg: int16(rdi), first: 1, second: 1}},
		{"second half only", [][]byte{{byte(dwarf.OpPiece), 8, byte(rsi), byte(dwarf.OpPiece), 4}}, 16, paramLoc{reg: int16(rsi), second: 1}},
		{"unknown op ends the list", [][]byte{{0xee}, {byte(rdi)}}, 8, paramLoc{reg: regUnknown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := paramLoc{reg: regUnknown}
			for n, e := range tc.entries {
				ops, ok := r.u.Parse(e, nil)
				if !ok {
					break
				}
				r.apply(&got, n, ops, tc.typeSize, true)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestTypesMatch checks pahole's loose prototype comparison.
func TestTypesMatch(t *testing.T) {
	s := btf.NewSpec(nil)
	i32 := s.AddInt("int", 4, btf.IntSigned, 32)
	i32b := s.AddInt("int", 4, btf.IntSigned, 32)
	u32 := s.AddInt("unsigned int", 4, 0, 32)
	long := s.AddInt("long", 8, btf.IntSigned, 64)
	cInt := s.AddRef(btf.KindConst, "", i32b)
	st := s.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "a", Type: i32}})
	fwd := s.AddFwd("s", false)
	ufwd := s.AddFwd("s", true)
	pst := s.AddRef(btf.KindPtr, "", st)
	pfwd := s.AddRef(btf.KindPtr, "", fwd)
	pcInt := s.AddRef(btf.KindPtr, "", cInt)
	pInt := s.AddRef(btf.KindPtr, "", i32)
	td1 := s.AddRef(btf.KindTypedef, "t", i32)
	td2 := s.AddRef(btf.KindTypedef, "t", long)
	a4 := s.AddArray(i32, i32, 4)
	a5 := s.AddArray(i32, i32, 5)
	a4b := s.AddArray(i32b, i32, 4)
	fp1 := s.AddFuncProto(i32, []btf.ParamSpec{{Name: "x", Type: pInt}})
	fp2 := s.AddFuncProto(i32b, []btf.ParamSpec{{Name: "y", Type: pcInt}})
	fp3 := s.AddFuncProto(i32, []btf.ParamSpec{{Name: "x", Type: long}})
	for _, tc := range []struct {
		a, b btf.TypeID
		want bool
	}{
		{0, 0, true}, {i32, 0, false}, {i32, i32b, true}, {i32, u32, false}, {i32, long, false},
		{cInt, i32, true}, {i32, cInt, true}, {pcInt, pInt, true},
		{pst, pfwd, true}, {st, ufwd, false}, {td1, td2, true}, {td1, i32, false},
		{a4, a4b, true}, {a4, a5, false}, {fp1, fp2, true}, {fp1, fp3, false},
	} {
		if g := typesMatch(s, tc.a, tc.b); g != tc.want {
			t.Errorf("typesMatch(%d, %d) = %v, want %v", tc.a, tc.b, g, tc.want)
		}
	}
}
