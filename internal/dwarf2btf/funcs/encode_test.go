package funcs

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// TestEncodeFuncsMerge runs Encode on hand-made candidates of two
// units and checks which names become FUNCs, in which order and with which
// prototype, under pahole's merge and skip rules, and the lines -V prints
// for the others (btf_encoder.c's reasons; when several hold, the one it
// assigns last: reord is also uncertain and has an unexpected register).
func TestEncodeFuncsMerge(t *testing.T) {
	src := &ELF{Order: binary.LittleEndian, Symbols: []elfio.Symbol{
		funcSym("same", 0x100), funcSym("differ", 0x200), funcSym("unexp", 0x300),
		funcSym("opt.isra.0", 0x400), funcSym("amb", 0x500), funcSym("amb", 0x510),
		funcSym("reord", 0x600), funcSym("optok", 0x700), funcSym("canon", 0x800),
		funcSym("zlast", 0x900),
	}}
	table, err := NewTable(src, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Each unit's Spec: 1 int, 2 long.
	unit := func() *btf.Spec {
		s := btf.NewSpec(nil)
		s.AddInt("int", 4, btf.IntSigned, 32)
		s.AddInt("long", 8, btf.IntSigned, 64)
		return s
	}
	type cand struct {
		name   string
		addr   uint64
		params []btf.TypeID
		flags  funcFlags
	}
	mk := func(cs []cand) []Candidate {
		var out []Candidate
		for _, c := range cs {
			strs := c.name
			fc := Candidate{strs: strs, name: strRef{off: 0, n: uint32(len(c.name))}, addr: c.addr, ret: 1,
				elf: table.find(c.name), sym: -1, flags: c.flags}
			if fc.elf < 0 {
				t.Fatalf("no ELF function %q", c.name)
			}
			for k, s := range table.symsOf(&table.funcs[fc.elf]) {
				if s.addr == c.addr && strings.Contains(s.name, ".") {
					fc.sym = table.funcs[fc.elf].first + int32(k)
				}
			}
			for _, p := range c.params {
				fc.params = append(fc.params, funcParam{typ: p})
			}
			out = append(out, fc)
		}
		return out
	}
	unitA := mk([]cand{
		{"zlast", 0x900, []btf.TypeID{1}, 0},
		{"same", 0x100, []btf.TypeID{1}, 0},
		{"differ", 0, []btf.TypeID{1}, 0},
		{"unexp", 0x300, []btf.TypeID{1}, 0},
		{"opt", 0x400, []btf.TypeID{1}, flagOptimizedParms | flagOptimizedSymbol},
		{"amb", 0x500, nil, 0},
		{"reord", 0x600, []btf.TypeID{2}, flagReordered | flagUncertainLoc | flagUnexpectedReg},
		{"optok", 0x700, []btf.TypeID{1}, flagOptimizedParms},
		{"canon", 0, []btf.TypeID{1}, 0},
	})
	unitB := mk([]cand{
		{"same", 0, []btf.TypeID{1}, 0},
		{"differ", 0x200, []btf.TypeID{2, 2}, 0},
		{"unexp", 0, []btf.TypeID{1}, flagUnexpectedReg},
		{"canon", 0x800, []btf.TypeID{1, 1}, 0},
	})
	type logged struct {
		name string
		why  Skip
	}
	count12 := Skip{Reason: CountMismatch, Counts: [2]int{1, 2}}
	for _, tc := range []struct {
		name  string
		feats Options
		want  []string // FUNC name(parameter count), in order
		log   []logged // what Log is told, in order
	}{
		{"default", Options{}, []string{"canon(2)", "differ(2)", "optok(1)", "same(1)", "zlast(1)"},
			[]logged{{"amb", Skip{Reason: AmbiguousAddress}}, {"canon", count12}, {"differ", count12},
				{"opt", Skip{Reason: OptimizedParameters}}, {"reord", Skip{Reason: ReorderedParameters}},
				{"unexp", Skip{Reason: UnexpectedRegister}}}},
		{"consistent_func", Options{ConsistentFunc: true}, []string{"optok(1)", "same(1)", "zlast(1)"},
			[]logged{{"amb", Skip{Reason: AmbiguousAddress}}, {"canon", count12}, {"canon", Skip{Reason: InconsistentPrototype}},
				{"differ", count12}, {"differ", Skip{Reason: InconsistentPrototype}}, {"opt", Skip{Reason: OptimizedParameters}},
				{"reord", Skip{Reason: ReorderedParameters}}, {"unexp", Skip{Reason: UnexpectedRegister}}}},
		{"true_signature", Options{TrueSignature: true}, []string{"canon(2)", "differ(2)", "opt.isra.0(1)", "optok(1)", "same(1)", "zlast(1)"},
			[]logged{{"amb", Skip{Reason: AmbiguousAddress}}, {"canon", count12}, {"differ", count12},
				{"reord", Skip{Reason: ReorderedParameters}}, {"unexp", Skip{Reason: UnexpectedRegister}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := unit()
			shiftB, _ := dst.AppendSpec(unit())
			before := dst.NumTypes()
			var log skipLog
			opts := tc.feats
			opts.Log = &log
			if err := Encode(dst, [][]Candidate{unitA, unitB}, []btf.TypeID{0, shiftB}, table, &opts, nil); err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := before; i < dst.NumTypes(); i++ {
				ty := dst.Own(i)
				if ty.Kind() != btf.KindFunc {
					continue
				}
				proto := dst.Type(ty.Ref())
				got = append(got, dst.Name(ty)+"("+string(rune('0'+proto.Vlen()))+")")
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FUNCs %v, want %v", got, tc.want)
			}
			var got2 []logged
			for _, l := range log {
				got2 = append(got2, logged{l.name, l.why})
			}
			if !reflect.DeepEqual(got2, tc.log) {
				t.Errorf("Log told\n%+v\nwant\n%+v", got2, tc.log)
			}
		})
	}
}

// skipLog records what a Log is told.
type skipLog []struct {
	name string
	why  Skip
}

func (l *skipLog) Skipped(name string, why Skip) {
	*l = append(*l, struct {
		name string
		why  Skip
	}{name, why})
}
