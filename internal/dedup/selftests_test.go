package dedup

import (
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
)

// The cases below retell, in our own words and builders, the scenarios of
// libbpf's dedup selftests (tools/testing/selftests/bpf/prog_tests/btf.c,
// the "dedup:" cases, and prog_tests/btf_dedup_split.c). Each has an input
// and the expected output, both built with package btf's helpers; IDs in the
// comments are input IDs. The expected outputs follow from the algorithm as
// libbpf documents it; when the shared btfdedup tool is available, every case
// is also run through libbpf and the two outputs must be identical.

type dedupCase struct {
	name string
	base func(s *btf.Spec) // builds an already deduplicated base; nil: standalone
	in   func(s *btf.Spec)
	want func(s *btf.Spec)
	// libbpf112Fails marks inputs that libbpf 1.1.2 rejects but current
	// libbpf (and we) handle; they are not run through the installed tool.
	libbpf112Fails bool
}

func mem(name string, typ btf.TypeID, bitOff uint32) btf.MemberSpec {
	return btf.MemberSpec{Name: name, Type: typ, BitOffset: bitOff}
}

func addInt(s *btf.Spec) btf.TypeID { return s.AddInt("int", 4, btf.IntSigned, 32) }

var dedupCases = []dedupCase{
	{
		name: "identical primitives merge, different ones stay",
		in: func(s *btf.Spec) {
			addInt(s)                                                                                               // 1
			s.AddInt("int", 4, btf.IntSigned, 32)                                                                   // 2 = 1
			s.AddInt("int", 4, 0, 32)                                                                               // 3 other encoding
			s.AddInt("int", 8, btf.IntSigned, 32)                                                                   // 4 other size
			s.AddInt("int", 4, btf.IntSigned, 31)                                                                   // 5 other bits
			s.MustAppend(s.AddString("int"), btf.Info(btf.KindInt, false, 0), 4, btf.IntWord(btf.IntSigned, 1, 31)) // 6 other offset
			s.AddFloat("float", 4)                                                                                  // 7
			s.AddFloat("float", 8)                                                                                  // 8 other size
			s.AddFloat("float", 4)                                                                                  // 9 = 7
			s.AddFwd("f", false)                                                                                    // 10
			s.AddFwd("f", true)                                                                                     // 11 union: different
			s.AddFwd("f", false)                                                                                    // 12 = 10
			s.AddInt("long", 8, btf.IntSigned, 64)                                                                  // 13
		},
		want: func(s *btf.Spec) {
			addInt(s)
			s.AddInt("int", 4, 0, 32)
			s.AddInt("int", 8, btf.IntSigned, 32)
			s.AddInt("int", 4, btf.IntSigned, 31)
			s.MustAppend(s.AddString("int"), btf.Info(btf.KindInt, false, 0), 4, btf.IntWord(btf.IntSigned, 1, 31))
			s.AddFloat("float", 4)
			s.AddFloat("float", 8)
			s.AddFwd("f", false)
			s.AddFwd("f", true)
			s.AddInt("long", 8, btf.IntSigned, 64)
		},
	},
	{
		name: "enum forward declarations resolve to full enums",
		in: func(s *btf.Spec) {
			s.AddEnum("e1", 4, false, false, nil)                                             // 1 fwd before full
			s.AddEnum("e1", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 1}})      // 2
			s.AddEnum("e2", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}})      // 3
			s.AddEnum("e2", 4, false, false, nil)                                             // 4 fwd after full
			s.AddEnum("e3", 8, false, true, []btf.EnumValueSpec{{Name: "C", Value: 1 << 40}}) // 5 enum64
			s.AddEnum("e3", 4, false, false, nil)                                             // 6 enum fwd of an enum64
			s.AddRef(btf.KindPtr, "", 1)                                                      // 7
			s.AddRef(btf.KindPtr, "", 4)                                                      // 8
			s.AddRef(btf.KindPtr, "", 6)                                                      // 9
		},
		want: func(s *btf.Spec) {
			s.AddEnum("e1", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 1}})
			s.AddEnum("e2", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}})
			s.AddEnum("e3", 8, false, true, []btf.EnumValueSpec{{Name: "C", Value: 1 << 40}})
			s.AddRef(btf.KindPtr, "", 1)
			s.AddRef(btf.KindPtr, "", 2)
			s.AddRef(btf.KindPtr, "", 3)
		},
	},
	{
		name: "enum forward declaration taken over by a later full enum",
		in: func(s *btf.Spec) {
			s.AddEnum("x", 4, false, false, nil)                                        // 1
			s.AddEnum("x", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 1}}) // 2
			s.AddEnum("x", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 2}}) // 3 same name, other value
			s.AddRef(btf.KindPtr, "", 1)                                                // 4: fwd ends at the last full enum seen
		},
		want: func(s *btf.Spec) {
			s.AddEnum("x", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 1}})
			s.AddEnum("x", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 2}})
			s.AddRef(btf.KindPtr, "", 2)
		},
	},
	{
		name: "enum and enum64 of one name, both full, stay apart",
		in: func(s *btf.Spec) {
			s.AddEnum("e", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 1}})
			s.AddEnum("e", 8, false, true, []btf.EnumValueSpec{{Name: "A", Value: 1}})
			s.AddEnum("e", 8, true, true, []btf.EnumValueSpec{{Name: "A", Value: 1}})  // signed: different
			s.AddEnum("e", 8, false, true, []btf.EnumValueSpec{{Name: "A", Value: 1}}) // = 2
		},
		want: func(s *btf.Spec) {
			s.AddEnum("e", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 1}})
			s.AddEnum("e", 8, false, true, []btf.EnumValueSpec{{Name: "A", Value: 1}})
			s.AddEnum("e", 8, true, true, []btf.EnumValueSpec{{Name: "A", Value: 1}})
		},
	},
	{
		// All anonymous enums share one candidate list, which anonEnums
		// answers for without walking it.
		name: "anonymous enums: identical ones merge, others stay apart",
		in: func(s *btf.Spec) {
			a := []btf.EnumValueSpec{{Name: "A", Value: 1}}
			s.AddEnum("", 4, false, false, a)                                          // 1
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}}) // 2
			s.AddEnum("", 4, false, false, a)                                          // 3 = 1
			s.AddRef(btf.KindPtr, "", 3)                                               // 4
			s.AddEnum("", 8, false, true, a)                                           // 5 enum64
			s.AddEnum("", 4, true, false, a)                                           // 6 signed
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}}) // 7 = 2
			s.AddEnum("", 8, false, true, a)                                           // 8 = 5
			s.AddRef(btf.KindPtr, "", 8)                                               // 9
		},
		want: func(s *btf.Spec) {
			a := []btf.EnumValueSpec{{Name: "A", Value: 1}}
			s.AddEnum("", 4, false, false, a)
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}})
			s.AddRef(btf.KindPtr, "", 1)
			s.AddEnum("", 8, false, true, a)
			s.AddEnum("", 4, true, false, a)
			s.AddRef(btf.KindPtr, "", 4)
		},
	},
	{
		name: "anonymous enum forward declaration taken over by full enums",
		in: func(s *btf.Spec) {
			a := []btf.EnumValueSpec{{Name: "A", Value: 1}}
			s.AddEnum("", 4, false, false, nil)                                        // 1 fwd: a candidate
			s.AddEnum("", 4, false, false, a)                                          // 2: takes 1 over
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}}) // 3: takes 1 over
			s.AddEnum("", 4, false, false, a)                                          // 4 = 2, found first
			s.AddRef(btf.KindPtr, "", 1)                                               // 5
		},
		want: func(s *btf.Spec) {
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "A", Value: 1}})
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}})
			s.AddRef(btf.KindPtr, "", 2)
		},
	},
	{
		name: "self-referencing struct in two units",
		in: func(s *btf.Spec) {
			for u := btf.TypeID(0); u < 2; u++ {
				o := 3 * u
				s.AddInt("int", 4, btf.IntSigned, 32)                                                    // 1, 4
				s.AddStruct(false, "list", 16, []btf.MemberSpec{mem("v", o+1, 0), mem("next", o+3, 64)}) // 2, 5
				s.AddRef(btf.KindPtr, "", o+2)                                                           // 3, 6
			}
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "list", 16, []btf.MemberSpec{mem("v", 1, 0), mem("next", 3, 64)})
			s.AddRef(btf.KindPtr, "", 2)
		},
	},
	{
		name: "mutually recursive structs, typedefs and arrays in three units",
		in: func(s *btf.Spec) {
			for u := btf.TypeID(0); u < 3; u++ {
				o := 8 * u
				s.AddInt("int", 4, btf.IntSigned, 32)                                              // 1
				s.AddStruct(false, "a", 16, []btf.MemberSpec{mem("b", o+4, 0), mem("n", o+6, 64)}) // 2
				s.AddStruct(false, "b", 8, []btf.MemberSpec{mem("a", o+5, 0)})                     // 3
				s.AddRef(btf.KindPtr, "", o+3)                                                     // 4
				s.AddRef(btf.KindPtr, "", o+2)                                                     // 5
				s.AddRef(btf.KindTypedef, "arr_t", o+7)                                            // 6
				s.AddArray(o+1, o+1, 2)                                                            // 7
				s.AddRef(btf.KindConst, "", o+6)                                                   // 8
			}
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "a", 16, []btf.MemberSpec{mem("b", 4, 0), mem("n", 6, 64)})
			s.AddStruct(false, "b", 8, []btf.MemberSpec{mem("a", 5, 0)})
			s.AddRef(btf.KindPtr, "", 3)
			s.AddRef(btf.KindPtr, "", 2)
			s.AddRef(btf.KindTypedef, "arr_t", 7)
			s.AddArray(1, 1, 2)
			s.AddRef(btf.KindConst, "", 6)
		},
	},
	{
		name: "struct graphs that differ deep inside stay apart",
		in: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                          // 1
			s.AddInt("long", 8, btf.IntSigned, 64)                         // 2
			s.AddStruct(false, "in", 8, []btf.MemberSpec{mem("x", 1, 0)})  // 3
			s.AddRef(btf.KindPtr, "", 3)                                   // 4
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("p", 4, 0)}) // 5
			s.AddStruct(false, "in", 8, []btf.MemberSpec{mem("x", 2, 0)})  // 6 other member type
			s.AddRef(btf.KindPtr, "", 6)                                   // 7
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("p", 7, 0)}) // 8
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddInt("long", 8, btf.IntSigned, 64)
			s.AddStruct(false, "in", 8, []btf.MemberSpec{mem("x", 1, 0)})
			s.AddRef(btf.KindPtr, "", 3)
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("p", 4, 0)})
			s.AddStruct(false, "in", 8, []btf.MemberSpec{mem("x", 2, 0)})
			s.AddRef(btf.KindPtr, "", 6)
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("p", 7, 0)})
		},
	},
	{
		name: "FWD resolved while comparing graphs",
		in: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                            // 1
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 3, 0)}) // 2
			s.AddRef(btf.KindPtr, "", 4)                                     // 3
			s.AddFwd("inner", false)                                         // 4
			s.AddInt("int", 4, btf.IntSigned, 32)                            // 5
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 7, 0)}) // 6
			s.AddRef(btf.KindPtr, "", 8)                                     // 7
			s.AddStruct(false, "inner", 4, []btf.MemberSpec{mem("x", 5, 0)}) // 8
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 3, 0)})
			s.AddRef(btf.KindPtr, "", 4)
			s.AddStruct(false, "inner", 4, []btf.MemberSpec{mem("x", 1, 0)})
		},
	},
	{
		name: "FWD in the later unit resolved while comparing graphs",
		in: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                            // 1
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 3, 0)}) // 2
			s.AddRef(btf.KindPtr, "", 4)                                     // 3
			s.AddStruct(false, "inner", 4, []btf.MemberSpec{mem("x", 1, 0)}) // 4
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 6, 0)}) // 5
			s.AddRef(btf.KindPtr, "", 7)                                     // 6
			s.AddFwd("inner", false)                                         // 7
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 3, 0)})
			s.AddRef(btf.KindPtr, "", 4)
			s.AddStruct(false, "inner", 4, []btf.MemberSpec{mem("x", 1, 0)})
		},
	},
	{
		name: "standalone FWD resolved by its unique name",
		in: func(s *btf.Spec) {
			s.AddFwd("s", false)                                         // 1
			s.AddRef(btf.KindPtr, "", 1)                                 // 2
			s.AddInt("int", 4, btf.IntSigned, 32)                        // 3
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", 3, 0)}) // 4
			s.AddRef(btf.KindPtr, "", 4)                                 // 5
		},
		want: func(s *btf.Spec) {
			s.AddRef(btf.KindPtr, "", 3)
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", 2, 0)})
		},
	},
	{
		name: "standalone FWD with an ambiguous name stays",
		in: func(s *btf.Spec) {
			s.AddFwd("s", false)                                         // 1
			s.AddRef(btf.KindPtr, "", 1)                                 // 2
			s.AddInt("int", 4, btf.IntSigned, 32)                        // 3
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", 3, 0)}) // 4
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("y", 3, 0)}) // 5
		},
		want: func(s *btf.Spec) {
			s.AddFwd("s", false)
			s.AddRef(btf.KindPtr, "", 1)
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", 3, 0)})
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("y", 3, 0)})
		},
	},
	{
		name: "FWD of the other kind stays",
		in: func(s *btf.Spec) {
			s.AddFwd("u", true)                                          // 1 union fwd
			s.AddInt("int", 4, btf.IntSigned, 32)                        // 2
			s.AddStruct(false, "u", 4, []btf.MemberSpec{mem("x", 2, 0)}) // 3 a struct
			s.AddFwd("v", true)                                          // 4
			s.AddStruct(true, "v", 4, []btf.MemberSpec{mem("x", 2, 0)})  // 5 a union
		},
		want: func(s *btf.Spec) {
			s.AddFwd("u", true)
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "u", 4, []btf.MemberSpec{mem("x", 2, 0)})
			s.AddStruct(true, "v", 4, []btf.MemberSpec{mem("x", 2, 0)})
		},
	},
	{
		name: "pointer to void is not a pointer to a struct",
		in: func(s *btf.Spec) {
			s.AddRef(btf.KindPtr, "", 0)                                 // 1
			s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("p", 1, 0)}) // 2
			s.AddStruct(false, "", 0, nil)                               // 3
			s.AddRef(btf.KindPtr, "", 3)                                 // 4
			s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("p", 4, 0)}) // 5
		},
		want: func(s *btf.Spec) {
			s.AddRef(btf.KindPtr, "", 0)
			s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("p", 1, 0)})
			s.AddStruct(false, "", 0, nil)
			s.AddRef(btf.KindPtr, "", 3)
			s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("p", 4, 0)})
		},
	},
	{
		name: "identical arrays duplicated inside one unit",
		in: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                                           // 1
			s.AddArray(1, 1, 4)                                                             // 2
			s.AddStruct(false, "s", 32, []btf.MemberSpec{mem("a", 2, 0), mem("b", 2, 128)}) // 3
			s.AddInt("int", 4, btf.IntSigned, 32)                                           // 4
			s.AddArray(4, 4, 4)                                                             // 5
			s.AddArray(4, 4, 4)                                                             // 6 compiler duplicate
			s.AddStruct(false, "s", 32, []btf.MemberSpec{mem("a", 5, 0), mem("b", 6, 128)}) // 7
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddArray(1, 1, 4)
			s.AddStruct(false, "s", 32, []btf.MemberSpec{mem("a", 2, 0), mem("b", 2, 128)})
		},
	},
	{
		name: "identical structs duplicated inside one unit",
		in: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                                           // 1
			s.AddStruct(false, "in", 4, []btf.MemberSpec{mem("x", 1, 0)})                   // 2
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("a", 2, 0), mem("b", 2, 32)}) // 3
			s.AddInt("int", 4, btf.IntSigned, 32)                                           // 4
			s.AddStruct(false, "in", 4, []btf.MemberSpec{mem("x", 4, 0)})                   // 5
			s.AddStruct(false, "in", 4, []btf.MemberSpec{mem("x", 4, 0)})                   // 6 duplicate
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("a", 5, 0), mem("b", 6, 32)}) // 7
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "in", 4, []btf.MemberSpec{mem("x", 1, 0)})
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("a", 2, 0), mem("b", 2, 32)})
		},
	},
	{
		name: "VAR and DATASEC are never merged",
		in: func(s *btf.Spec) {
			for u := btf.TypeID(0); u < 2; u++ {
				o := 3 * u
				s.AddInt("int", 4, btf.IntSigned, 32)                                          // 1, 4
				s.AddVar("v", o+1, btf.LinkageGlobal)                                          // 2, 5
				s.AddDatasec(".data", 4, []btf.SecInfoSpec{{Type: o + 2, Offset: 0, Size: 4}}) // 3, 6
			}
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddVar("v", 1, btf.LinkageGlobal)
			s.AddDatasec(".data", 4, []btf.SecInfoSpec{{Type: 2, Offset: 0, Size: 4}})
			s.AddVar("v", 1, btf.LinkageGlobal)
			s.AddDatasec(".data", 4, []btf.SecInfoSpec{{Type: 4, Offset: 0, Size: 4}})
		},
	},
	{
		name: "functions, prototypes and their decl tags",
		in: func(s *btf.Spec) {
			for u := btf.TypeID(0); u < 2; u++ {
				o := 6 * u
				s.AddInt("int", 4, btf.IntSigned, 32)                                                    // 1
				s.AddFuncProto(o+1, []btf.ParamSpec{{Name: "a", Type: o + 1}, {Name: "b", Type: o + 1}}) // 2
				s.AddFunc("f", o+2, btf.LinkageGlobal)                                                   // 3
				s.AddDeclTag("tag1", o+3, -1, false)                                                     // 4
				s.AddDeclTag("tag2", o+3, 1, false)                                                      // 5
				s.AddVar("v", o+1, btf.LinkageGlobal)                                                    // 6 (kept twice)
			}
			s.AddDeclTag("tag3", 3, 0, false)  // 13 a different tag stays
			s.AddDeclTag("tag1", 6, -1, false) // 14 tags the first VAR: new
			s.AddDeclTag("tag1", 6, -1, false) // 15 = 14
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddFuncProto(1, []btf.ParamSpec{{Name: "a", Type: 1}, {Name: "b", Type: 1}})
			s.AddFunc("f", 2, btf.LinkageGlobal)
			s.AddDeclTag("tag1", 3, -1, false)
			s.AddDeclTag("tag2", 3, 1, false)
			s.AddVar("v", 1, btf.LinkageGlobal)
			s.AddVar("v", 1, btf.LinkageGlobal)
			s.AddDeclTag("tag3", 3, 0, false)
			s.AddDeclTag("tag1", 6, -1, false)
		},
	},
	{
		name: "struct member and typedef decl tags",
		in: func(s *btf.Spec) {
			for u := btf.TypeID(0); u < 2; u++ {
				o := 5 * u
				s.AddInt("int", 4, btf.IntSigned, 32)                                               // 1
				s.AddStruct(false, "t", 8, []btf.MemberSpec{mem("m1", o+1, 0), mem("m2", o+1, 32)}) // 2
				s.AddDeclTag("tag1", o+2, 0, false)                                                 // 3
				s.AddRef(btf.KindTypedef, "td", o+1)                                                // 4
				s.AddDeclTag("tag2", o+4, -1, true)                                                 // 5 attribute flavour
			}
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "t", 8, []btf.MemberSpec{mem("m1", 1, 0), mem("m2", 1, 32)})
			s.AddDeclTag("tag1", 2, 0, false)
			s.AddRef(btf.KindTypedef, "td", 1)
			s.AddDeclTag("tag2", 4, -1, true)
		},
	},
	{
		name: "type tags",
		in: func(s *btf.Spec) {
			for u := btf.TypeID(0); u < 2; u++ {
				o := 5 * u
				s.AddInt("int", 4, btf.IntSigned, 32)                          // 1
				s.AddTypeTag("tag1", o+1, false)                               // 2
				s.AddTypeTag("tag2", o+2, false)                               // 3
				s.AddRef(btf.KindPtr, "", o+3)                                 // 4
				s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("p", o+4, 0)}) // 5
			}
			s.AddTypeTag("tag2", 1, false) // 11: other chain
			s.AddTypeTag("tag1", 1, true)  // 12: attribute flavour differs
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddTypeTag("tag1", 1, false)
			s.AddTypeTag("tag2", 2, false)
			s.AddRef(btf.KindPtr, "", 3)
			s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("p", 4, 0)})
			s.AddTypeTag("tag2", 1, false)
			s.AddTypeTag("tag1", 1, true)
		},
	},
	{
		name: "every kind once stays as it is",
		in:   allKinds,
		want: allKinds,
	},
	{
		name: "recursive typedef through a pointer",
		in: func(s *btf.Spec) {
			s.AddRef(btf.KindTypedef, "t", 2) // 1
			s.AddRef(btf.KindPtr, "", 1)      // 2
			s.AddRef(btf.KindTypedef, "t", 4) // 3
			s.AddRef(btf.KindPtr, "", 3)      // 4
		},
		want: func(s *btf.Spec) {
			s.AddRef(btf.KindTypedef, "t", 2)
			s.AddRef(btf.KindPtr, "", 1)
		},
		libbpf112Fails: true,
	},

	// Split BTF, after prog_tests/btf_dedup_split.c.
	{
		name: "split: copies of base types map onto the base",
		base: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                         // 1
			s.AddRef(btf.KindPtr, "", 1)                                  // 2
			s.AddStruct(false, "s1", 8, []btf.MemberSpec{mem("f", 2, 0)}) // 3
		},
		in: func(s *btf.Spec) {
			s.AddRef(btf.KindPtr, "", 5)                                  // 4
			s.AddInt("int", 4, btf.IntSigned, 32)                         // 5
			s.AddStruct(false, "s1", 8, []btf.MemberSpec{mem("f", 4, 0)}) // 6
			s.AddStruct(false, "s2", 4, []btf.MemberSpec{mem("x", 5, 0)}) // 7
			s.AddRef(btf.KindConst, "", 6)                                // 8
		},
		want: func(s *btf.Spec) {
			s.AddStruct(false, "s2", 4, []btf.MemberSpec{mem("x", 1, 0)})
			s.AddRef(btf.KindConst, "", 3)
		},
	},
	{
		// Two identical anonymous base enums: anonEnums leaves the
		// choice to the candidate walk, which takes the later one.
		name: "split: anonymous enum with two identical base copies",
		base: func(s *btf.Spec) {
			a := []btf.EnumValueSpec{{Name: "A", Value: 1}}
			s.AddEnum("", 4, false, false, a)                                          // 1
			s.AddEnum("", 4, false, false, a)                                          // 2
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}}) // 3
		},
		in: func(s *btf.Spec) {
			a := []btf.EnumValueSpec{{Name: "A", Value: 1}}
			s.AddEnum("", 4, false, false, a)                                          // 4 = 2
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "B", Value: 2}}) // 5 = 3
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "C", Value: 3}}) // 6
			s.AddRef(btf.KindPtr, "", 4)                                               // 7
			s.AddRef(btf.KindPtr, "", 5)                                               // 8
		},
		want: func(s *btf.Spec) {
			s.AddEnum("", 4, false, false, []btf.EnumValueSpec{{Name: "C", Value: 3}})
			s.AddRef(btf.KindPtr, "", 2)
			s.AddRef(btf.KindPtr, "", 3)
		},
	},
	{
		name: "split: FWD resolved to a base struct",
		base: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                        // 1
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", 1, 0)}) // 2
			s.AddRef(btf.KindPtr, "", 2)                                 // 3
			s.AddStruct(false, "o", 8, []btf.MemberSpec{mem("p", 3, 0)}) // 4
		},
		in: func(s *btf.Spec) {
			s.AddFwd("s", false)                                         // 5
			s.AddRef(btf.KindPtr, "", 5)                                 // 6
			s.AddStruct(false, "o", 8, []btf.MemberSpec{mem("p", 6, 0)}) // 7 = base 4
			s.AddFwd("s", false)                                         // 8 = 5
			s.AddRef(btf.KindVolatile, "", 8)                            // 9
		},
		want: func(s *btf.Spec) {
			s.AddRef(btf.KindVolatile, "", 2)
		},
	},
	{
		name: "split: base FWD meets a split definition",
		base: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                            // 1
			s.AddFwd("s", false)                                             // 2
			s.AddRef(btf.KindPtr, "", 2)                                     // 3
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 3, 0)}) // 4
		},
		in: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                            // 5
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", 5, 0)})     // 6
			s.AddRef(btf.KindPtr, "", 6)                                     // 7
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 7, 0)}) // 8: kept, base cannot change
			s.AddRef(btf.KindPtr, "", 2)                                     // 9: base FWD now means split s
		},
		want: func(s *btf.Spec) {
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("x", 1, 0)})
			s.AddRef(btf.KindPtr, "", 5)
			s.AddStruct(false, "outer", 8, []btf.MemberSpec{mem("p", 6, 0)})
		},
	},
	{
		name: "split: struct duplicated inside the split unit",
		base: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)                                           // 1
			s.AddStruct(false, "in", 4, []btf.MemberSpec{mem("x", 1, 0)})                   // 2
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("a", 2, 0), mem("b", 2, 32)}) // 3
		},
		in: func(s *btf.Spec) {
			s.AddStruct(false, "in", 4, []btf.MemberSpec{mem("x", 1, 0)})                   // 4
			s.AddStruct(false, "in", 4, []btf.MemberSpec{mem("x", 1, 0)})                   // 5
			s.AddStruct(false, "out", 8, []btf.MemberSpec{mem("a", 4, 0), mem("b", 5, 32)}) // 6
			s.AddRef(btf.KindPtr, "", 6)                                                    // 7
		},
		want: func(s *btf.Spec) {
			s.AddRef(btf.KindPtr, "", 3)
		},
	},
	{
		name: "split: strings already in the base take the base offsets",
		base: func(s *btf.Spec) {
			s.AddInt("int", 4, btf.IntSigned, 32)
		},
		in: func(s *btf.Spec) {
			s.AddInt("int", 4, 0, 32) // other encoding, same name
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("int", 2, 0)})
		},
		want: func(s *btf.Spec) {
			s.AddInt("int", 4, 0, 32)
			s.AddStruct(false, "s", 4, []btf.MemberSpec{mem("int", 2, 0)})
		},
	},
}

// allKinds adds one type of every kind, none equal to another.
func allKinds(s *btf.Spec) {
	s.AddInt("int", 4, btf.IntSigned, 32)                                                                              // 1
	s.AddRef(btf.KindPtr, "", 1)                                                                                       // 2
	s.AddArray(1, 1, 4)                                                                                                // 3
	s.AddStruct(false, "s", 8, []btf.MemberSpec{mem("a", 1, 0), {Name: "b", Type: 1, BitOffset: 32, BitfieldSize: 3}}) // 4
	s.AddStruct(true, "u", 4, []btf.MemberSpec{mem("a", 1, 0)})                                                        // 5
	s.AddEnum("e", 4, false, false, []btf.EnumValueSpec{{Name: "E", Value: 1}})                                        // 6
	s.AddFwd("f", false)                                                                                               // 7
	s.AddRef(btf.KindTypedef, "t", 1)                                                                                  // 8
	s.AddRef(btf.KindVolatile, "", 1)                                                                                  // 9
	s.AddRef(btf.KindConst, "", 1)                                                                                     // 10
	s.AddRef(btf.KindRestrict, "", 2)                                                                                  // 11
	s.AddFuncProto(1, []btf.ParamSpec{{Name: "x", Type: 1}, {Name: "", Type: 0}})                                      // 12
	s.AddFunc("fn", 12, btf.LinkageStatic)                                                                             // 13
	s.AddVar("v", 1, btf.LinkageGlobal)                                                                                // 14
	s.AddDatasec(".data", 4, []btf.SecInfoSpec{{Type: 14, Offset: 0, Size: 4}})                                        // 15
	s.AddFloat("float", 4)                                                                                             // 16
	s.AddDeclTag("dt", 13, -1, false)                                                                                  // 17
	s.AddTypeTag("tt", 1, false)                                                                                       // 18
	s.AddEnum("e64", 8, true, true, []btf.EnumValueSpec{{Name: "F", Value: -1}})                                       // 19
}

func TestDedupCases(t *testing.T) {
	tool := libbpfTool(t)
	for _, tc := range dedupCases {
		t.Run(tc.name, func(t *testing.T) {
			var base *btf.Spec
			if tc.base != nil {
				b := btf.NewSpec(nil)
				tc.base(b)
				base = reparse(t, b, nil)
			}
			in := btf.NewSpec(base)
			tc.in(in)
			in = reparse(t, in, base)
			want := btf.NewSpec(base)
			tc.want(want)

			got, _, err := Dedup(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			g, w := dump(t, got), dump(t, want)
			if g != w {
				t.Errorf("output differs from the expected one, %s\ngot:\n%s\nwant:\n%s", testutil.FirstDiff(g, w), g, w)
			}
			legacy, _, err := Dedup(in, Options{Libbpf112: true})
			if tc.libbpf112Fails {
				if err == nil {
					t.Errorf("Libbpf112 mode accepted the input, libbpf 1.1.2 rejects it")
				}
				return
			}
			if err != nil {
				t.Fatalf("Libbpf112 mode: %v", err)
			}
			if l := dump(t, legacy); l != w {
				t.Errorf("Libbpf112 mode differs from the expected output, %s", testutil.FirstDiff(l, w))
			}
			if tool == "" || tc.libbpf112Fails {
				return
			}
			lib, err := libbpfDedup(t, tool, in, base)
			if err != nil {
				t.Fatalf("btfdedup: %v", err)
			}
			if l := dump(t, lib); g != l {
				t.Errorf("output differs from libbpf's, %s\ngot:\n%s\nlibbpf:\n%s", testutil.FirstDiff(g, l), g, l)
			}
		})
	}
}
