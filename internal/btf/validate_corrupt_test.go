package btf_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/gobtf/gobtf/internal/btf"
)

// Corruptions of real BTF. Each case mutates the bytes of a reference file
// (the kbuild vmlinux BTF, or xfs's split BTF on it) in one way the kernel's
// verifier rejects. The validator must reject each with its specific
// message; when the tests run as root, the kernel must reject each too, for
// the reason the validator names (validate_kernel_linux_test.go). The kernel
// phrases below were read from the running kernel's BTF_LOAD log.

// corruptFixture is a reference blob being corrupted, with its decoded
// original to find types in.
type corruptFixture struct {
	t     *testing.T
	data  []byte    // the blob, mutated in place
	spec  *btf.Spec // the original, decoded
	types int       // byte offset of the type section in data
	strs  int       // byte offset of the string section in data
}

func newFixture(t *testing.T, data []byte, base *btf.Spec) *corruptFixture {
	t.Helper()
	s, err := btf.Parse(data, base)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := btf.ParseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	return &corruptFixture{t: t, data: append([]byte(nil), data...), spec: s,
		types: int(h.HdrLen + h.TypeOff), strs: int(h.HdrLen + h.StrOff)}
}

var le = binary.LittleEndian

// at returns the byte offset of word w of type id in data.
func (f *corruptFixture) at(id btf.TypeID, w int) int {
	t := f.spec.Type(id)
	if t == nil || id < f.spec.FirstID() {
		f.t.Fatalf("type %d is not an own type", id)
	}
	words := f.spec.Words()
	idx := int((uintptr(unsafe.Pointer(&t[0])) - uintptr(unsafe.Pointer(&words[0]))) / 4)
	return f.types + 4*(idx+w)
}

// get and set read and write word w of type id.
func (f *corruptFixture) get(id btf.TypeID, w int) uint32 { return le.Uint32(f.data[f.at(id, w):]) }
func (f *corruptFixture) set(id btf.TypeID, w int, v uint32) {
	le.PutUint32(f.data[f.at(id, w):], v)
}

// find returns the first own type of kind k for which ok (if not nil)
// holds.
func (f *corruptFixture) find(k btf.Kind, ok func(btf.Type) bool) btf.TypeID {
	for i := range f.spec.NumTypes() {
		t := f.spec.Own(i)
		if t.Kind() == k && (ok == nil || ok(t)) {
			return f.spec.FirstID() + btf.TypeID(i)
		}
	}
	f.t.Fatalf("no %s of the wanted shape in the fixture", k)
	return 0
}

// str returns the offset of a string the fixture holds.
func (f *corruptFixture) str(s string) uint32 {
	off, ok := f.spec.Strings().Find(s)
	if !ok {
		f.t.Fatalf("string %q not in the fixture", s)
	}
	return off
}

// kindOf is the kind of type id in the fixture (or its base).
func (f *corruptFixture) kindOf(id btf.TypeID) btf.Kind { return f.spec.Type(id).Kind() }

// setInfo replaces the kind of type id, keeping vlen and kind_flag.
func (f *corruptFixture) setKind(id btf.TypeID, k btf.Kind) {
	info := f.get(id, 1)
	f.set(id, 1, info&^(0x1f<<24)|uint32(k)<<24)
}

// put32 writes a header or section word at a byte offset.
func (f *corruptFixture) put32(off int, v uint32) { le.PutUint32(f.data[off:], v) }

// corruption is one table entry.
type corruption struct {
	name   string
	split  bool // corrupt modules/xfs.btf (on the kbuild base) rather than the kbuild vmlinux
	mutate func(f *corruptFixture)
	want   string // distinctive parts of the validator's error, separated by "|"
	kernel string // distinctive part of the kernel's verifier log
}

func isInt(bytes uint32) func(btf.Type) bool {
	return func(t btf.Type) bool {
		_, off, bits := t.IntData()
		return t.Size() == bytes && off == 0 && bits == uint8(8*bytes)
	}
}

// corruptions is the table. Every entry breaks one distinct rule.
var corruptions = []corruption{
	// Header and section layout.
	{name: "bad magic", mutate: func(f *corruptFixture) { f.data[0], f.data[1] = 0x12, 0x34 },
		want: "bad magic", kernel: "Invalid magic"},
	{name: "bad version", mutate: func(f *corruptFixture) { f.data[2] = 2 },
		want: "unsupported version 2", kernel: "Unsupported version"},
	{name: "bad flags", mutate: func(f *corruptFixture) { f.data[3] = 1 },
		want: "unsupported flags", kernel: "Unsupported flags"},
	{name: "hdr_len too short", mutate: func(f *corruptFixture) { f.put32(4, 20) },
		want: "hdr_len 20 is shorter than 24", kernel: "Unsupported section found"},
	{name: "hdr_len beyond the blob", mutate: func(f *corruptFixture) { f.put32(4, uint32(len(f.data)+4)) },
		want: "exceeds blob size", kernel: "btf_header not found"},
	{name: "non-zero extra header byte", mutate: func(f *corruptFixture) { f.data[28] = 1 },
		want: "unknown non-zero header byte", kernel: "Unsupported btf_header"},
	{name: "gap before the string section", mutate: func(f *corruptFixture) {
		f.put32(16, le.Uint32(f.data[16:])+4)
		f.put32(20, le.Uint32(f.data[20:])-4)
	}, want: "4 unknown bytes before the string section", kernel: "Unsupported section found"},
	{name: "trailing bytes", mutate: func(f *corruptFixture) { f.data = append(f.data, 0, 0, 0, 0) },
		want: "4 bytes after the last section belong to no section", kernel: "Unsupported section found"},
	{name: "overlapping sections", mutate: func(f *corruptFixture) {
		f.put32(16, le.Uint32(f.data[16:])-4)
		f.put32(20, le.Uint32(f.data[20:])+4)
	}, want: "overlap", kernel: "Section overlap found"},
	{name: "string section before the types", mutate: func(f *corruptFixture) {
		hl := int(le.Uint32(f.data[4:]))
		tl, sl := int(le.Uint32(f.data[12:])), int(le.Uint32(f.data[20:]))
		body := append(append([]byte(nil), f.data[hl+tl:hl+tl+sl]...), f.data[hl:hl+tl]...)
		copy(f.data[hl:], body)
		f.put32(8, uint32(sl))
		f.put32(16, 0)
	}, want: "string section must be the last section", kernel: "String section is not at the end"},
	{name: "no types", mutate: func(f *corruptFixture) {
		hl := int(le.Uint32(f.data[4:]))
		tl := int(le.Uint32(f.data[12:]))
		f.data = append(f.data[:hl], f.data[hl+tl:]...)
		f.put32(12, 0)
		f.put32(16, 0)
	}, want: "type section is empty", kernel: "No type found"},
	{name: "blob beyond 16 MiB", mutate: func(f *corruptFixture) {
		pad := 13 << 20 // NULs appended to the string section
		f.data = append(f.data, make([]byte, pad)...)
		f.put32(20, le.Uint32(f.data[20:])+uint32(pad))
	}, want: "exceeds the kernel's limit of 16777216 bytes", kernel: ""}, // E2BIG, no log

	// String section.
	{name: "string section without final NUL", mutate: func(f *corruptFixture) { f.data[len(f.data)-1] = 'x' },
		want: "does not end with a NUL", kernel: "Invalid string section"},
	{name: "string section not starting with NUL", mutate: func(f *corruptFixture) { f.data[f.strs] = 'x' },
		want: "does not start with a NUL", kernel: "Invalid string section"},

	// Info word and names.
	{name: "unknown kind", mutate: func(f *corruptFixture) { f.setKind(f.find(btf.KindInt, nil), 20) },
		want: "unknown kind 20", kernel: "Invalid kind:20"},
	{name: "reserved info bits", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindInt, nil)
		f.set(id, 1, f.get(id, 1)|1<<16)
	}, want: "sets reserved bits", kernel: "Invalid btf_info:"},
	{name: "name offset beyond the strings", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindStruct, nil), 0, f.spec.Strings().Len()+10)
	}, want: "outside the string section", kernel: "Invalid name_offset"},
	{name: "name not an identifier", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindStruct, nil), 0, f.str("u32")+1) // "32"
	}, want: "invalid name: not a valid C identifier", kernel: "Invalid name"},
	{name: "named PTR", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindPtr, nil), 0, f.str("u32")) },
		want: "a PTR must be anonymous", kernel: "Invalid name"},
	{name: "PTR with vlen", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindPtr, nil)
		f.set(id, 1, f.get(id, 1)|1)
	}, want: "vlen 1 must be 0 for PTR", kernel: "vlen != 0"},

	// INT.
	{name: "INT bits above 128", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindInt, isInt(16))
		f.set(id, 3, f.get(id, 3)&^0xff|200)
	}, want: "bit offset 0 + bits 200 exceeds 128", kernel: "nr_bits exceeds 128"},
	{name: "INT bits beyond its size", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindInt, isInt(4))
		f.set(id, 3, f.get(id, 3)&^0xff|64)
	}, want: "does not fit in size 4", kernel: "nr_bits exceeds type_size"},
	{name: "INT with two encodings", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindInt, nil)
		f.set(id, 3, f.get(id, 3)&^(0xf<<24)|(btf.IntSigned|btf.IntChar)<<24)
	}, want: "more than one of SIGNED, CHAR, BOOL", kernel: "Unsupported encoding"},
	{name: "INT with kind_flag", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindInt, nil)
		f.set(id, 1, f.get(id, 1)|1<<31)
	}, want: "kind_flag must be 0 for INT", kernel: "Invalid btf_info kind_flag"},

	// References.
	{name: "dangling type ID", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindTypedef, nil), 2, f.spec.TypeCount()+1000)
	}, want: "no type (ID out of range)", kernel: "Invalid type_id"},
	{name: "type ID beyond the kernel's limit", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindPtr, nil), 2, btf.KernelMaxTypeID+1)
	}, want: "beyond the kernel's type ID limit", kernel: "Invalid type_id"},
	{name: "TYPEDEF loop", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindTypedef, nil)
		f.set(id, 2, id)
	}, want: "] TYPEDEF |reference loop", kernel: "Loop detected"},
	{name: "struct containing itself", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 })
		f.set(id, 4, id)
	}, want: "] STRUCT |reference loop", kernel: "Loop detected"},

	// STRUCT and UNION members.
	{name: "member offset beyond struct size", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 && !t.KindFlag() })
		last := 3 + 3*(f.spec.Type(id).Vlen()-1)
		f.set(id, last+2, 8*f.get(id, 2)+64)
	}, want: "beyond struct size", kernel: "Member bits_offset exceeds its struct size"},
	{name: "member offsets decreasing", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool {
			return t.Vlen() >= 3 && !t.KindFlag() && t.Member(0).Offset == 0 && t.Member(1).Offset >= 64
		})
		f.set(id, 5, f.get(id, 8)+8)
	}, want: "is below the previous member's", kernel: "Invalid member bits_offset"},
	{name: "union member with an offset", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindUnion, func(t btf.Type) bool { return t.Vlen() > 0 && !t.KindFlag() && t.Size() >= 8 }), 5, 8)
	}, want: "union member", kernel: "Invalid member bits_offset"},
	{name: "void member", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 }), 4, 0)
	}, want: "type ID 0 is void", kernel: "Invalid type_id"},
	{name: "pointer member overrunning its struct", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool {
			if t.Vlen() == 0 || t.KindFlag() || t.Size() < 16 {
				return false
			}
			m := t.Member(t.Vlen() - 1)
			return f.kindOf(m.Type) == btf.KindPtr && m.Offset == 8*t.Size()-64
		})
		last := 3 + 3*(f.spec.Type(id).Vlen()-1)
		f.set(id, last+2, 8*f.get(id, 2)-32)
	}, want: "8 bytes at byte offset", kernel: "Member exceeds struct_size"},
	{name: "bitfield wider than its INT", mutate: func(f *corruptFixture) {
		var mi int
		id := f.find(btf.KindStruct, func(t btf.Type) bool {
			if !t.KindFlag() {
				return false
			}
			for i := range t.Vlen() {
				m := t.Member(i)
				if bt := f.spec.Type(m.Type); bt.Kind() == btf.KindInt && bt.Size() == 4 && m.Offset>>24 != 0 {
					mi = i
					return true
				}
			}
			return false
		})
		w := 3 + 3*mi + 2
		f.set(id, w, f.get(id, w)&0xffffff|40<<24)
	}, want: "bitfield size 40 exceeds its INT's 32 bits", kernel: "Invalid member bitfield_size"},

	// ARRAY.
	{name: "ARRAY indexed by a struct", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindArray, nil), 4, f.find(btf.KindStruct, nil))
	}, want: "not a whole 1, 2, 4, 8 or 16-byte INT", kernel: "Invalid index"},
	{name: "ARRAY of void", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindArray, nil), 3, 0) },
		want: "element type ID 0 is void", kernel: "Invalid elem"},
	{name: "named ARRAY", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindArray, nil), 0, f.str("u32")) },
		want: "an ARRAY must be anonymous", kernel: "Invalid name"},

	// ENUM, FLOAT, FWD.
	{name: "ENUM of size 3", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindEnum, nil), 2, 3) },
		want: "ENUM size 3 is not 1, 2, 4 or 8", kernel: "Unexpected size"},
	{name: "enumerator without a name", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindEnum, func(t btf.Type) bool { return t.Vlen() > 0 }), 3, 0)
	}, want: "enumerator 0 name \"\" is not a valid C identifier", kernel: "Invalid name"},
	{name: "FLOAT of size 3", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindFloat, nil), 2, 3) },
		want: "FLOAT size 3 is not 2, 4, 8, 12 or 16", kernel: "Invalid type_size"},
	{name: "FWD with a type", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindFwd, nil), 2, 1) },
		want: "FWD has a non-zero type/size word", kernel: "type != 0"},

	// FUNC and FUNC_PROTO.
	{name: "FUNC with extern linkage", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindFunc, nil)
		f.set(id, 1, f.get(id, 1)&^0xffff|btf.LinkageExtern)
	}, want: "] FUNC |linkage 2 is neither static (0) nor global (1)", kernel: "Invalid func linkage"},
	{name: "FUNC pointing to a non-prototype", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindFunc, nil), 2, f.find(btf.KindInt, nil))
	}, want: "an INT, not a FUNC_PROTO", kernel: "Invalid type_id"},
	{name: "FUNC with an unnamed parameter", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindFunc, func(t btf.Type) bool { return f.spec.Type(t.Ref()).Vlen() > 0 })
		proto := f.get(id, 2)
		f.set(proto, 3, 0)
	}, want: "parameter 1 of FUNC_PROTO", kernel: "Invalid arg#1"},
	{name: "void parameter before the last", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindFuncProto, func(t btf.Type) bool { return t.Vlen() >= 2 }), 4, 0)
	}, want: "void is only allowed as the last, vararg, parameter", kernel: "Invalid arg#1"},
	{name: "named vararg", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindFuncProto, func(t btf.Type) bool {
			_, typ := t.Param(t.Vlen() - 1)
			return t.Vlen() > 1 && typ == 0
		})
		f.set(id, 3+2*(f.spec.Type(id).Vlen()-1), f.str("u32"))
	}, want: "the vararg marker (type void) must have no name", kernel: "Invalid arg#"},

	// VAR and DATASEC.
	{name: "VAR with extern linkage", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindVar, nil), 3, btf.LinkageExtern) },
		want: "] VAR |linkage 2 is neither static (0) nor global (1)", kernel: "Linkage not supported"},
	{name: "VAR of a FUNC_PROTO", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindVar, nil), 2, f.find(btf.KindFuncProto, nil))
	}, want: "(a FUNC_PROTO) has no size", kernel: "Invalid type_id"},
	{name: "DATASEC entries unsorted", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindDatasec, func(t btf.Type) bool { return t.Vlen() >= 2 })
		for w := 3; w < 6; w++ {
			a, b := f.get(id, w), f.get(id, w+3)
			f.set(id, w, b)
			f.set(id, w+3, a)
		}
	}, want: "overlaps the previous entry", kernel: "Invalid offset"},
	{name: "DATASEC entry beyond the section", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindDatasec, nil)
		last := 3 + 3*(f.spec.Type(id).Vlen()-1)
		f.set(id, last+1, f.get(id, 2))
	}, want: "is beyond section size", kernel: "Invalid offset"},
	{name: "DATASEC entry not a VAR", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindDatasec, nil), 3, f.find(btf.KindInt, nil))
	}, want: "not a VAR", kernel: "Not a VAR kind member"},
	{name: "DATASEC entry smaller than its VAR", mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindDatasec, func(t btf.Type) bool { _, _, sz := t.SecInfo(0); return sz > 1 }), 5, 1)
	}, want: "is smaller than VAR", kernel: "Invalid size"},
	{name: "DATASEC of size 0", mutate: func(f *corruptFixture) { f.set(f.find(btf.KindDatasec, nil), 2, 0) },
		want: "DATASEC size is 0", kernel: "size == 0"},

	// DECL_TAG and TYPE_TAG (the reference has none: a VAR, which has the
	// same layout as a DECL_TAG, and a CONST become them).
	{name: "DECL_TAG component beyond the parameters", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindVar, nil)
		f.setKind(id, btf.KindDeclTag)
		f.set(id, 2, f.find(btf.KindFunc, nil))
		f.set(id, 3, 1000)
	}, want: "component index 1000 is beyond", kernel: "Invalid component_idx"},
	{name: "DECL_TAG component below -1", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindVar, nil)
		f.setKind(id, btf.KindDeclTag)
		f.set(id, 3, 0xfffffffe)
	}, want: "component index -2 is below -1", kernel: "Invalid component_idx"},
	{name: "DECL_TAG on an INT", mutate: func(f *corruptFixture) {
		id := f.find(btf.KindVar, nil)
		f.setKind(id, btf.KindDeclTag)
		f.set(id, 2, f.find(btf.KindInt, nil))
		f.set(id, 3, 0xffffffff)
	}, want: "only FUNC, STRUCT, UNION, VAR and TYPEDEF can be tagged", kernel: "Invalid type_id"},
	{name: "TYPE_TAG without a value", mutate: func(f *corruptFixture) { f.setKind(f.find(btf.KindConst, nil), btf.KindTypeTag) },
		want: "a TYPE_TAG needs a non-empty value", kernel: "Invalid name"},

	// Split BTF (xfs on the kbuild vmlinux).
	{name: "split: dangling member type", split: true, mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 }), 4, f.spec.TypeCount()+10)
	}, want: "no type (ID out of range), which cannot be a member", kernel: "Invalid member"},
	{name: "split: string section without final NUL", split: true, mutate: func(f *corruptFixture) { f.data[len(f.data)-1] = 'x' },
		want: "does not end with a NUL|", kernel: "Invalid string section"},
	{name: "split: member name offset beyond the strings", split: true, mutate: func(f *corruptFixture) {
		f.set(f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 }), 3, f.spec.Strings().Len()+5)
	}, want: "member 0 name offset", kernel: "Invalid member name_offset"},
	{name: "split: PTR to a base VAR", split: true, mutate: func(f *corruptFixture) {
		var v btf.TypeID
		for id := btf.TypeID(1); id < f.spec.FirstID(); id++ {
			if f.spec.Type(id).Kind() == btf.KindVar {
				v = id
				break
			}
		}
		f.set(f.find(btf.KindPtr, nil), 2, v)
	}, want: "a VAR", kernel: "Invalid type_id"},
}

// forEachCorruption loads the fixtures once per test and applies every
// corruption, calling fn with the corrupted blob and its base.
func forEachCorruption(t *testing.T, fn func(t *testing.T, tc corruption, data []byte, base *btf.Spec, baseData []byte)) {
	baseData := readRef(t, kbuildName)
	splitData := readRef(t, "modules/xfs.btf")
	base, err := btf.Parse(baseData, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range corruptions {
		t.Run(tc.name, func(t *testing.T) {
			var f *corruptFixture
			if tc.split {
				f = newFixture(t, splitData, base)
			} else {
				f = newFixture(t, baseData, nil)
			}
			tc.mutate(f)
			if tc.split {
				fn(t, tc, f.data, base, baseData)
			} else {
				fn(t, tc, f.data, nil, baseData)
			}
		})
	}
}

// TestValidateCorrupt checks that each corruption is rejected with its
// specific message.
func TestValidateCorrupt(t *testing.T) {
	seen := map[string]string{}
	for _, tc := range corruptions {
		if prev, ok := seen[tc.want]; ok {
			t.Errorf("cases %q and %q expect the same message %q; each should break a distinct rule", prev, tc.name, tc.want)
		}
		seen[tc.want] = tc.name
	}
	forEachCorruption(t, func(t *testing.T, tc corruption, data []byte, base *btf.Spec, _ []byte) {
		_, err := btf.ValidateBlob(data, base, btf.ValidateOptions{})
		if err == nil {
			t.Fatalf("accepted; want an error containing %q", tc.want)
		}
		for _, part := range strings.Split(tc.want, "|") {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not contain %q", err, part)
			}
		}
		var ve *btf.ValidationError
		var fe *btf.FormatError
		switch {
		case errors.As(err, &ve):
			if ve.Kernel != "" && !strings.Contains(tc.kernel, ve.Kernel) && !strings.Contains(ve.Kernel, tc.kernel) {
				t.Errorf("kernel phrase %q does not match the kernel's %q", ve.Kernel, tc.kernel)
			}
		case errors.As(err, &fe):
		default:
			t.Errorf("error %T is neither a *ValidationError nor a *FormatError", err)
		}
	})
}
