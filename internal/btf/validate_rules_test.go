package btf_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
)

// Small hand-built Specs on the edges of the kernel's rules: the corner
// cases real files do not reach (ID-order-dependent resolution depth,
// modifier chains, Latin-1 names, kind_flag bitfields of enums, ...). Each
// case's verdict (and, for rejections, the kernel's phrase) was read from
// the running kernel, and TestValidateRulesKernel checks it again there.

type ruleCase struct {
	name   string
	build  func(s *btf.Spec)
	ok     bool   // the kernel accepts it
	want   string // for a rejection: part of the validator's error
	kernel string // for a rejection: part of the kernel's log
}

func addInt(s *btf.Spec) btf.TypeID { return s.AddInt("int", 4, btf.IntSigned, 32) }

// chain adds n types of kind k (each referring to the next when forward,
// else to the previous) ending at target, and returns the first one's ID.
func chain(s *btf.Spec, k btf.Kind, n int, forward bool, target btf.TypeID) btf.TypeID {
	first := s.TypeCount() + 1
	for i := range n {
		name := ""
		if k == btf.KindTypedef {
			name = "t" + strings.Repeat("x", i)
		}
		var ref btf.TypeID
		switch {
		case forward && i == n-1, !forward && i == 0:
			ref = target
		case forward:
			ref = first + btf.TypeID(i) + 1
		default:
			ref = first + btf.TypeID(i) - 1
		}
		s.AddRef(k, name, ref)
	}
	return first
}

// nested adds n structs, each holding the next (forward) or the previous
// one, the innermost holding an int.
func nested(s *btf.Spec, n int, forward bool) {
	in := addInt(s)
	first := s.TypeCount() + 1
	for i := range n {
		var ref btf.TypeID
		switch {
		case forward && i == n-1, !forward && i == 0:
			ref = in
		case forward:
			ref = first + btf.TypeID(i) + 1
		default:
			ref = first + btf.TypeID(i) - 1
		}
		s.AddStruct(false, "", 4, []btf.MemberSpec{{Name: "m", Type: ref}})
	}
}

var ruleCases = []ruleCase{
	{name: "INT of size 3", ok: true, build: func(s *btf.Spec) { s.AddInt("i24", 3, 0, 24) }},
	{name: "INT of 128 bits", ok: true, build: func(s *btf.Spec) { s.AddInt("__int128", 16, btf.IntSigned, 128) }},
	{name: "INT named with a space", ok: true, build: func(s *btf.Spec) { s.AddInt("long int", 8, btf.IntSigned, 64) }},
	{name: "Latin-1 letter in a name", ok: true, build: func(s *btf.Spec) {
		s.AddStruct(false, "\xc0b\xffc", 4, []btf.MemberSpec{{Name: "m", Type: addInt(s)}})
	}},
	{name: "Latin-1 multiplication sign in a name", build: func(s *btf.Spec) {
		s.AddStruct(false, "a\xd7b", 4, []btf.MemberSpec{{Name: "m", Type: addInt(s)}})
	}, want: "not a valid C identifier", kernel: "Invalid name"},
	{name: "name of 512 bytes", ok: true, build: func(s *btf.Spec) {
		s.AddStruct(false, strings.Repeat("a", 512), 4, []btf.MemberSpec{{Name: "m", Type: addInt(s)}})
	}},
	{name: "name of 513 bytes", build: func(s *btf.Spec) {
		s.AddStruct(false, strings.Repeat("a", 513), 4, []btf.MemberSpec{{Name: "m", Type: addInt(s)}})
	}, want: "not a valid C identifier", kernel: "Invalid name"},
	{name: "name starting with a digit", build: func(s *btf.Spec) { s.AddRef(btf.KindTypedef, "9lives", addInt(s)) },
		want: "a TYPEDEF needs a valid C identifier", kernel: "Invalid name"},
	{name: "DATASEC name with a space", ok: true, build: func(s *btf.Spec) {
		v := s.AddVar("v", addInt(s), btf.LinkageGlobal)
		s.AddDatasec(".data foo", 4, []btf.SecInfoSpec{{Type: v, Size: 4}})
	}},
	{name: "DATASEC name with a control byte", build: func(s *btf.Spec) {
		v := s.AddVar("v", addInt(s), btf.LinkageGlobal)
		s.AddDatasec(".data\x01", 4, []btf.SecInfoSpec{{Type: v, Size: 4}})
	}, want: "a DATASEC needs a non-empty printable name", kernel: "Invalid name"},
	{name: "DATASEC with a FUNC entry", build: func(s *btf.Spec) {
		f := s.AddFunc("f", s.AddFuncProto(0, nil), btf.LinkageGlobal)
		s.AddDatasec(".text", 4, []btf.SecInfoSpec{{Type: f, Size: 4}})
	}, want: "not a VAR", kernel: "Not a VAR kind member"},
	{name: "DATASEC without entries", ok: true, build: func(s *btf.Spec) { addInt(s); s.AddDatasec(".bss", 4, nil) }},

	{name: "TYPE_TAG before modifiers", ok: true, build: func(s *btf.Spec) {
		c := s.AddRef(btf.KindConst, "", addInt(s))
		s.AddRef(btf.KindPtr, "", s.AddTypeTag("user", c, false))
	}},
	{name: "TYPE_TAG after a modifier", build: func(s *btf.Spec) {
		tag := s.AddTypeTag("user", addInt(s), false)
		s.AddRef(btf.KindPtr, "", s.AddRef(btf.KindConst, "", tag))
	}, want: "follows a non-tag modifier", kernel: "Type tags don't precede modifiers"},
	{name: "TYPE_TAG with kind_flag", ok: true, build: func(s *btf.Spec) { s.AddTypeTag("attr", addInt(s), true) }},
	{name: "TYPE_TAG value with spaces", ok: true, build: func(s *btf.Spec) { s.AddTypeTag("a b", addInt(s), false) }},
	{name: "CONST with kind_flag", build: func(s *btf.Spec) {
		s.MustAppend(0, btf.Info(btf.KindConst, true, 0), addInt(s))
	}, want: "kind_flag must be 0 for CONST", kernel: "Invalid btf_info kind_flag"},
	{name: "DECL_TAG with kind_flag on a member", ok: true, build: func(s *btf.Spec) {
		st := s.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "m", Type: addInt(s)}})
		s.AddDeclTag("attr", st, 0, true)
	}},
	{name: "DECL_TAG on the member past the last", build: func(s *btf.Spec) {
		st := s.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "m", Type: addInt(s)}})
		s.AddDeclTag("tag", st, 1, false)
	}, want: "component index 1 is beyond the 1 members", kernel: "Invalid component_idx"},
	{name: "DECL_TAG component on a TYPEDEF", build: func(s *btf.Spec) {
		s.AddDeclTag("tag", s.AddRef(btf.KindTypedef, "td", addInt(s)), 0, false)
	}, want: "on a TYPEDEF, which has no components", kernel: "Invalid component_idx"},

	{name: "32 chained modifiers", ok: true, build: func(s *btf.Spec) { chain(s, btf.KindConst, 32, false, addInt(s)) }},
	{name: "33 chained modifiers, inner first", ok: true, build: func(s *btf.Spec) { chain(s, btf.KindConst, 33, false, addInt(s)) }},
	{name: "33 chained modifiers, outer first", build: func(s *btf.Spec) { chain(s, btf.KindConst, 33, true, 34); addInt(s) },
		want: "more than 32 nested types", kernel: "Exceeded max resolving depth:32"},
	{name: "40 chained modifiers resolved in two walks", build: func(s *btf.Spec) {
		// A pointer first resolves the chain's second half, then the
		// first half resolves within the depth limit; only the chain
		// check sees all 40.
		s.AddRef(btf.KindPtr, "", 22)
		chain(s, btf.KindConst, 40, true, 42)
		addInt(s)
	}, want: "modifier chain longer than 32", kernel: "Max chain length or cycle detected"},
	{name: "31 typedefs resolved forward", ok: true, build: func(s *btf.Spec) { chain(s, btf.KindTypedef, 31, true, 32); addInt(s) }},
	{name: "33 typedefs resolved forward", build: func(s *btf.Spec) { chain(s, btf.KindTypedef, 33, true, 34); addInt(s) },
		want: "more than 32 nested types", kernel: "Exceeded max resolving depth:32"},
	{name: "40 nested structs, inner first", ok: true, build: func(s *btf.Spec) { nested(s, 40, false) }},
	{name: "40 nested structs, outer first", build: func(s *btf.Spec) { nested(s, 40, true) },
		want: "more than 32 nested types", kernel: "Exceeded max resolving depth:32"},
	{name: "pointer loop", build: func(s *btf.Spec) {
		s.AddRef(btf.KindPtr, "", 2)
		s.AddRef(btf.KindConst, "", 1)
	}, want: "reference loop", kernel: "Loop detected"},
	{name: "self-referencing list", ok: true, build: func(s *btf.Spec) {
		s.AddStruct(false, "node", 8, []btf.MemberSpec{{Name: "next", Type: 2}})
		s.AddRef(btf.KindPtr, "", 1)
	}},
	{name: "TYPEDEF of void", ok: true, build: func(s *btf.Spec) { s.AddRef(btf.KindTypedef, "v", 0) }},
	{name: "VAR of a TYPEDEF of void", build: func(s *btf.Spec) {
		s.AddVar("x", s.AddRef(btf.KindTypedef, "v", 0), btf.LinkageStatic)
	}, want: "has no size", kernel: "Invalid type_id"},
	{name: "CONST of a FUNC", ok: true, build: func(s *btf.Spec) {
		s.AddRef(btf.KindConst, "", s.AddFunc("f", s.AddFuncProto(0, nil), btf.LinkageStatic))
	}},
	{name: "PTR to an earlier FUNC", ok: true, build: func(s *btf.Spec) {
		s.AddRef(btf.KindPtr, "", s.AddFunc("f", s.AddFuncProto(0, nil), btf.LinkageStatic))
	}},
	{name: "PTR to a later FUNC", build: func(s *btf.Spec) {
		s.AddRef(btf.KindPtr, "", 3)
		s.AddFuncProto(0, nil)
		s.AddFunc("f", 2, btf.LinkageStatic)
	}, want: "neither sized nor void, FWD or FUNC_PROTO", kernel: "Invalid type_id"},
	{name: "FUNC_PROTO returning a FWD", build: func(s *btf.Spec) { s.AddFuncProto(s.AddFwd("s", false), nil) },
		want: "return type ID 1 (a FWD) has no size", kernel: "Invalid return type"},
	{name: "FUNC_PROTO of only a vararg", ok: true, build: func(s *btf.Spec) {
		s.AddFuncProto(0, []btf.ParamSpec{{}})
	}},
	{name: "FWD of a union", ok: true, build: func(s *btf.Spec) { s.AddFwd("u", true) }},
	{name: "FWD member", build: func(s *btf.Spec) {
		s.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "m", Type: s.AddFwd("f", false)}})
	}, want: "a FWD, which cannot be a member", kernel: "Invalid member"},

	{name: "ENUM without values", ok: true, build: func(s *btf.Spec) { s.AddEnum("e", 4, false, false, nil) }},
	{name: "ENUM of 8 bytes", ok: true, build: func(s *btf.Spec) {
		s.AddEnum("e", 8, true, false, []btf.EnumValueSpec{{Name: "A", Value: -1}})
	}},
	{name: "ENUM64 member taken as 32 bits under kind_flag", ok: true, build: func(s *btf.Spec) {
		e := s.AddEnum("e", 8, false, true, []btf.EnumValueSpec{{Name: "A", Value: 1 << 40}})
		s.MustAppend(s.AddString("s"), btf.Info(btf.KindStruct, true, 1), 4, s.AddString("m"), e, 0)
	}},
	{name: "ENUM64 bitfield of 40 bits", build: func(s *btf.Spec) {
		e := s.AddEnum("e", 8, false, true, []btf.EnumValueSpec{{Name: "A", Value: 1 << 40}})
		s.AddStruct(false, "s", 8, []btf.MemberSpec{{Name: "m", Type: e, BitfieldSize: 40}})
	}, want: "enum bitfield size 40 exceeds 32", kernel: "Invalid member bitfield_size"},
	{name: "FLOAT member misaligned", build: func(s *btf.Spec) {
		s.AddStruct(false, "s", 16, []btf.MemberSpec{{Name: "d", Type: s.AddFloat("double", 8), BitOffset: 32}})
	}, want: "bit offset 32 is not a multiple of 64", kernel: "Member is not properly aligned"},
	{name: "long double member on an 8-byte boundary", ok: true, build: func(s *btf.Spec) {
		s.AddStruct(false, "s", 24, []btf.MemberSpec{{Name: "d", Type: s.AddFloat("long double", 16), BitOffset: 64}})
	}},
	{name: "INT with a bit offset as a member", ok: true, build: func(s *btf.Spec) {
		i := s.MustAppend(s.AddString("nib"), btf.Info(btf.KindInt, false, 0), 1, btf.IntWord(0, 4, 4))
		s.AddStruct(false, "s", 1, []btf.MemberSpec{{Name: "n", Type: i}})
	}},
	{name: "array of an INT with a bit offset", build: func(s *btf.Spec) {
		i := s.MustAppend(s.AddString("nib"), btf.Info(btf.KindInt, false, 0), 1, btf.IntWord(0, 4, 4))
		s.AddArray(i, addInt(s), 4)
	}, want: "not a whole 1, 2, 4, 8 or 16-byte one", kernel: "Invalid array of int"},
	{name: "array indexed by a 3-byte INT", build: func(s *btf.Spec) {
		s.AddArray(addInt(s), s.AddInt("i24", 3, 0, 24), 4)
	}, want: "index type ID 2 is not a whole", kernel: "Invalid index"},
	{name: "array of 2^31 ints", build: func(s *btf.Spec) { i := addInt(s); s.AddArray(i, i, 1<<31) },
		want: "overflow 32 bits", kernel: "Array size overflows U32_MAX"},
	{name: "kind_flag bitfield of a non-whole INT", build: func(s *btf.Spec) {
		i := s.AddInt("i24", 3, 0, 24)
		s.AddStruct(false, "s", 4, []btf.MemberSpec{{Name: "m", Type: i, BitfieldSize: 3}})
	}, want: "must be a whole 1, 2, 4, 8 or 16-byte integer", kernel: "Invalid member base type"},
	{name: "union bitfields at offset 0", ok: true, build: func(s *btf.Spec) {
		i := addInt(s)
		s.AddStruct(true, "u", 4, []btf.MemberSpec{{Name: "a", Type: i, BitfieldSize: 3}, {Name: "b", Type: i, BitfieldSize: 7}})
	}},
	{name: "name in the middle of a string", ok: true, build: func(s *btf.Spec) {
		i := addInt(s)
		off := s.AddString("xsuffix") + 1
		s.MustAppend(off, btf.Info(btf.KindTypedef, false, 0), i)
	}},
	{name: "TYPEDEF of a DATASEC", build: func(s *btf.Spec) {
		v := s.AddVar("v", addInt(s), btf.LinkageGlobal)
		s.AddRef(btf.KindTypedef, "t", s.AddDatasec(".data", 4, []btf.SecInfoSpec{{Type: v, Size: 4}}))
	}, want: "a DATASEC", kernel: "Invalid type_id"},
}

// ruleBlob marshals the case's Spec as the kernel loads it.
func ruleBlob(tc ruleCase) (*btf.Spec, []byte) {
	s := btf.NewSpec(nil)
	tc.build(s)
	return s, s.Marshal(binary.LittleEndian)
}

// TestValidateRules checks the validator's verdict on each hand-built case.
func TestValidateRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			s, data := ruleBlob(tc)
			err := s.Validate()
			if _, berr := btf.ValidateBlob(data, nil, btf.ValidateOptions{}); (berr == nil) != (err == nil) {
				t.Fatalf("Validate: %v, but ValidateBlob of its bytes: %v", err, berr)
			}
			switch {
			case tc.ok && err != nil:
				t.Fatalf("rejected: %v", err)
			case !tc.ok && err == nil:
				t.Fatalf("accepted; want an error containing %q", tc.want)
			case !tc.ok && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			var ve *btf.ValidationError
			if err != nil && (!errors.As(err, &ve) || !strings.Contains(tc.kernel, ve.Kernel)) {
				t.Errorf("error %#v does not carry the kernel phrase %q", err, tc.kernel)
			}
		})
	}
}

// TestValidateTypeLimit checks the type-count limit on a Spec one type
// beyond it, and that IgnoreLimits lifts it.
func TestValidateTypeLimit(t *testing.T) {
	s := btf.NewSpec(nil)
	i := addInt(s)
	for s.TypeCount() < btf.KernelMaxTypeID {
		s.AddRef(btf.KindPtr, "", i)
	}
	err := s.Validate()
	var ve *btf.ValidationError
	if !errors.As(err, &ve) || ve.ID != btf.KernelMaxTypeID || ve.Kernel != "Exceeded max num of types" {
		t.Fatalf("Validate of %d types = %v, want the type-limit error at [%d]", s.TypeCount(), err, btf.KernelMaxTypeID)
	}
	if err := s.ValidateWith(btf.ValidateOptions{IgnoreLimits: true}); err != nil {
		t.Fatalf("with IgnoreLimits: %v", err)
	}
}

// TestValidateSplitEmptyStrings checks that split BTF may have an empty
// string section, which a standalone one may not.
func TestValidateSplitEmptyStrings(t *testing.T) {
	base := btf.NewSpec(nil)
	i := addInt(base)
	split := btf.NewSpec(base)
	split.AddRef(btf.KindPtr, "", i)
	if n := len(split.Strings().Bytes()); n != 0 {
		t.Fatalf("split string section has %d bytes, want 0", n)
	}
	if err := split.Validate(); err != nil {
		t.Fatalf("split BTF with no strings: %v", err)
	}
	if _, err := btf.ValidateBlob(split.Marshal(binary.LittleEndian), base, btf.ValidateOptions{}); err != nil {
		t.Fatalf("split blob with no strings: %v", err)
	}
	empty := btf.NewSpec(nil)
	if err := empty.Validate(); err == nil || !strings.Contains(err.Error(), "type section is empty") {
		t.Fatalf("Validate of a Spec without types = %v, want the empty type section error", err)
	}
}
