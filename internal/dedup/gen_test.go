package dedup

import (
	"fmt"
	"math/rand/v2"

	"github.com/gobtf/gobtf/internal/btf"
)

// This file generates random BTF that looks like the per-CU conversion of a
// C program before deduplication: a fixed universe of struct, union, enum
// and typedef definitions (some names with two conflicting definitions), and
// units that each emit the types they use exactly once, in their own order,
// with pointers to structs they do not define emitted as FWDs and enums they
// do not define as enum forward declarations. Pointers create cycles; by-value
// members only point "down" the universe, as C requires.

type memberKind int

const (
	mInt memberKind = iota
	mLong
	mPtrStruct   // pointer to struct target (FWD when not defined here)
	mValueStruct // embedded struct target (target > owner)
	mArray       // array of int
	mTypedef     // typedef of int
	mConstPtr    // pointer to const int
	mEnum        // enum target
	mFuncPtr     // pointer to a function prototype taking a struct pointer
	mTagPtr      // pointer through a type tag to int
	nMemberKinds
)

type genMember struct {
	kind   memberKind
	target int
	n      uint32
}

type genStruct struct {
	name    string
	union   bool
	members []genMember
}

type genEnum struct {
	name   string
	wide   bool
	values []btf.EnumValueSpec
}

type genUniverse struct {
	structs []genStruct
	enums   []genEnum
}

// newUniverse returns a random universe of nStructs structs. A clean
// universe has neither conflicting definitions of one name nor anonymous
// structs: every name stands for one definition.
func newUniverse(r *rand.Rand, nStructs int, clean bool) *genUniverse {
	u := &genUniverse{}
	nEnums := 1 + r.IntN(4)
	for i := range nEnums {
		e := genEnum{name: fmt.Sprintf("e%d", i), wide: r.IntN(4) == 0}
		for j := range 1 + r.IntN(3) {
			e.values = append(e.values, btf.EnumValueSpec{Name: fmt.Sprintf("E%d_%d", i, j), Value: int64(j)})
		}
		u.enums = append(u.enums, e)
	}
	for i := range nStructs {
		name := fmt.Sprintf("s%d", i)
		if i > 0 && r.IntN(6) == 0 {
			name = u.structs[r.IntN(i)].name // a second, conflicting definition
		}
		if r.IntN(10) == 0 {
			name = "" // anonymous
		}
		if clean {
			name = fmt.Sprintf("s%d", i)
		}
		st := genStruct{name: name, union: r.IntN(8) == 0}
		for range r.IntN(5) {
			m := genMember{kind: memberKind(r.IntN(int(nMemberKinds)))}
			switch m.kind {
			case mPtrStruct, mFuncPtr:
				m.target = r.IntN(nStructs)
			case mValueStruct:
				if i+1 >= nStructs {
					m.kind = mInt
				} else {
					m.target = i + 1 + r.IntN(nStructs-i-1)
				}
			case mEnum:
				m.target = r.IntN(nEnums)
			case mArray:
				m.n = uint32(1 + r.IntN(3))
			}
			st.members = append(st.members, m)
		}
		u.structs = append(u.structs, st)
	}
	return u
}

// genUnit emits one unit's types into s.
type genUnit struct {
	u       *genUniverse
	r       *rand.Rand
	s       *btf.Spec
	defined map[int]bool // structs this unit defines
	enumDef map[int]bool
	memo    map[string]btf.TypeID
}

func (g *genUnit) once(key string, mk func() btf.TypeID) btf.TypeID {
	if id, ok := g.memo[key]; ok {
		return id
	}
	id := mk()
	g.memo[key] = id
	return id
}

func (g *genUnit) intType() btf.TypeID {
	return g.once("int", func() btf.TypeID { return g.s.AddInt("int", 4, btf.IntSigned, 32) })
}

func (g *genUnit) longType() btf.TypeID {
	return g.once("long", func() btf.TypeID { return g.s.AddInt("long", 8, btf.IntSigned, 64) })
}

func (g *genUnit) ref(k btf.Kind, name string, to btf.TypeID) btf.TypeID {
	return g.once(fmt.Sprintf("%d:%s:%d", k, name, to), func() btf.TypeID { return g.s.AddRef(k, name, to) })
}

func (g *genUnit) enumType(i int) btf.TypeID {
	e := g.u.enums[i]
	if !g.enumDef[i] {
		return g.once("enumfwd:"+e.name, func() btf.TypeID { return g.s.AddEnum(e.name, 4, false, false, nil) })
	}
	return g.once("enum:"+e.name, func() btf.TypeID {
		size := uint32(4)
		if e.wide {
			size = 8
		}
		return g.s.AddEnum(e.name, size, false, e.wide, e.values)
	})
}

// structPtrTarget is what a pointer to struct i points to in this unit.
func (g *genUnit) structPtrTarget(i int) btf.TypeID {
	st := g.u.structs[i]
	if g.defined[i] {
		return g.structType(i)
	}
	return g.once(fmt.Sprintf("fwd:%s:%v", st.name, st.union), func() btf.TypeID { return g.s.AddFwd(st.name, st.union) })
}

func (g *genUnit) structType(i int) btf.TypeID {
	key := fmt.Sprintf("struct:%d", i)
	if id, ok := g.memo[key]; ok {
		return id
	}
	st := g.u.structs[i]
	ms := make([]btf.MemberSpec, len(st.members))
	for j := range ms {
		ms[j] = btf.MemberSpec{Name: fmt.Sprintf("m%d", j), BitOffset: uint32(64 * j)}
		if st.union {
			ms[j].BitOffset = 0
		}
	}
	size := uint32(8 * len(ms))
	id := g.s.AddStruct(st.union, st.name, size, ms)
	g.memo[key] = id
	for j, m := range st.members {
		var typ btf.TypeID
		switch m.kind {
		case mInt:
			typ = g.intType()
		case mLong:
			typ = g.longType()
		case mPtrStruct:
			typ = g.ref(btf.KindPtr, "", g.structPtrTarget(m.target))
		case mValueStruct:
			g.defined[m.target] = true
			typ = g.structType(m.target)
		case mArray:
			elem := g.intType()
			typ = g.once(fmt.Sprintf("arr:%d:%d", elem, m.n), func() btf.TypeID { return g.s.AddArray(elem, elem, m.n) })
		case mTypedef:
			typ = g.ref(btf.KindTypedef, "int_t", g.intType())
		case mConstPtr:
			typ = g.ref(btf.KindPtr, "", g.ref(btf.KindConst, "", g.intType()))
		case mEnum:
			typ = g.enumType(m.target)
		case mFuncPtr:
			arg := g.ref(btf.KindPtr, "", g.structPtrTarget(m.target))
			ret := g.intType()
			proto := g.once(fmt.Sprintf("proto:%d:%d", ret, arg), func() btf.TypeID {
				return g.s.AddFuncProto(ret, []btf.ParamSpec{{Name: "p", Type: arg}})
			})
			typ = g.ref(btf.KindPtr, "", proto)
		case mTagPtr:
			tag := g.once("tag", func() btf.TypeID { return g.s.AddTypeTag("user", g.intType(), false) })
			typ = g.ref(btf.KindPtr, "", tag)
		}
		g.s.Type(id)[3+3*j+1] = typ
	}
	return id
}

// genInput returns a standalone Spec of nUnits random units over one random
// universe.
func genInput(seed uint64, nUnits, nStructs int) *btf.Spec {
	return genInputIn(seed, nUnits, nStructs, false)
}

// genInputIn is genInput over a clean universe (see newUniverse) in which
// every unit defines every struct and enum, so that there are no forward
// declarations, when clean is set: the setting in which libbpf's
// deduplication is exact (see properties_test.go).
func genInputIn(seed uint64, nUnits, nStructs int, clean bool) *btf.Spec {
	return concat(genUnits(seed, nUnits, nStructs, clean))
}

// genUnits returns the units genInputIn concatenates, each a standalone Spec.
func genUnits(seed uint64, nUnits, nStructs int, clean bool) []*btf.Spec {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	u := newUniverse(r, nStructs, clean)
	parts := make([]*btf.Spec, nUnits)
	for p := range parts {
		g := &genUnit{u: u, r: r, s: btf.NewSpec(nil), defined: map[int]bool{}, enumDef: map[int]bool{}, memo: map[string]btf.TypeID{}}
		for i := range u.structs {
			// An anonymous struct cannot be declared without being
			// defined in C, so every unit that uses one defines it.
			if r.IntN(2) == 0 || clean || u.structs[i].name == "" {
				g.defined[i] = true
			}
		}
		for i := range u.enums {
			g.enumDef[i] = r.IntN(3) != 0 || clean
		}
		// Roots in a unit-specific order: functions and variables that use
		// struct pointers, plus some structs directly.
		for _, i := range r.Perm(len(u.structs)) {
			switch r.IntN(4) {
			case 0:
				if g.defined[i] {
					g.structType(i)
				}
			case 1:
				arg := g.ref(btf.KindPtr, "", g.structPtrTarget(i))
				proto := g.s.AddFuncProto(g.intType(), []btf.ParamSpec{{Name: "x", Type: arg}})
				fn := g.s.AddFunc(fmt.Sprintf("f%d", i), proto, btf.LinkageGlobal)
				if r.IntN(3) == 0 {
					g.s.AddDeclTag("kfunc", fn, -1, false)
				}
			case 2:
				if g.defined[i] {
					v := g.s.AddVar(fmt.Sprintf("v%d_%d", i, p), g.structType(i), btf.LinkageGlobal)
					g.s.AddDatasec(".data", 8, []btf.SecInfoSpec{{Type: v, Offset: 0, Size: 8}})
				}
			case 3:
				g.ref(btf.KindTypedef, fmt.Sprintf("t%d", i), g.ref(btf.KindPtr, "", g.structPtrTarget(i)))
			}
		}
		parts[p] = g.s
	}
	return parts
}

// concat is btf.Concat on standalone Specs, which cannot fail.
func concat(parts []*btf.Spec) *btf.Spec {
	s, err := btf.Concat(parts)
	if err != nil {
		panic(err)
	}
	return s
}

// rebase is btf.Rebase of a standalone Spec, which cannot fail.
func rebase(s, base *btf.Spec) *btf.Spec {
	out, err := btf.Rebase(s, base)
	if err != nil {
		panic(err)
	}
	return out
}
