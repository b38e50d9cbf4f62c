package testutil

import (
	"encoding/binary"
	"os"
	"testing"
	"unsafe"

	"github.com/gobtf/gobtf/internal/btf"
)

// Corruptions of real BTF. Each case mutates the bytes of a reference file
// (the kbuild vmlinux BTF, or xfs's split BTF on it) in one way the kernel's
// verifier rejects. The validator must reject each with its specific
// message; when the tests run as root, the kernel must reject each too, for
// the reason the validator names (internal/btf/validate_kernel_linux_test.go). The kernel
// phrases below were read from the running kernel's BTF_LOAD log.

// CorruptFixture is a reference blob being corrupted, with its decoded
// original to find types in.
type CorruptFixture struct {
	t     *testing.T
	Data  []byte    // the blob, mutated in place
	Spec  *btf.Spec // the original, decoded
	types int       // byte offset of the type section in Data
	strs  int       // byte offset of the string section in Data
}

// NewCorruptFixture makes a fixture of a copy of data, split on base if
// base is not nil.
func NewCorruptFixture(t *testing.T, data []byte, base *btf.Spec) *CorruptFixture {
	t.Helper()
	s, err := btf.Parse(data, base)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := btf.ParseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	return &CorruptFixture{t: t, Data: append([]byte(nil), data...), Spec: s,
		types: int(h.HdrLen + h.TypeOff), strs: int(h.HdrLen + h.StrOff)}
}

var le = binary.LittleEndian

// at returns the byte offset of word w of type id in data.
func (f *CorruptFixture) at(id btf.TypeID, w int) int {
	t := f.Spec.Type(id)
	if t == nil || id < f.Spec.FirstID() {
		f.t.Fatalf("type %d is not an own type", id)
	}
	words := f.Spec.Words()
	idx := int((uintptr(unsafe.Pointer(&t[0])) - uintptr(unsafe.Pointer(&words[0]))) / 4)
	return f.types + 4*(idx+w)
}

// Get and Set read and write word w of type id.
func (f *CorruptFixture) Get(id btf.TypeID, w int) uint32 { return le.Uint32(f.Data[f.at(id, w):]) }

// Set writes word w of type id.
func (f *CorruptFixture) Set(id btf.TypeID, w int, v uint32) {
	le.PutUint32(f.Data[f.at(id, w):], v)
}

// find returns the first own type of kind k for which ok (if not nil)
// holds.
func (f *CorruptFixture) find(k btf.Kind, ok func(btf.Type) bool) btf.TypeID {
	for i := range f.Spec.NumTypes() {
		t := f.Spec.Own(i)
		if t.Kind() == k && (ok == nil || ok(t)) {
			return f.Spec.FirstID() + btf.TypeID(i)
		}
	}
	f.t.Fatalf("no %s of the wanted shape in the fixture", k)
	return 0
}

// str returns the offset of a string the fixture holds.
func (f *CorruptFixture) str(s string) uint32 {
	off, ok := f.Spec.Strings().Find(s)
	if !ok {
		f.t.Fatalf("string %q not in the fixture", s)
	}
	return off
}

// kindOf is the kind of type id in the fixture (or its base).
func (f *CorruptFixture) kindOf(id btf.TypeID) btf.Kind { return f.Spec.Type(id).Kind() }

// setInfo replaces the kind of type id, keeping vlen and kind_flag.
func (f *CorruptFixture) setKind(id btf.TypeID, k btf.Kind) {
	info := f.Get(id, 1)
	f.Set(id, 1, info&^(0x1f<<24)|uint32(k)<<24)
}

// put32 writes a header or section word at a byte offset.
func (f *CorruptFixture) put32(off int, v uint32) { le.PutUint32(f.Data[off:], v) }

// Corruption is one entry of Corruptions.
type Corruption struct {
	Name   string
	Split  bool // corrupt modules/xfs.btf (on the kbuild base) rather than the kbuild vmlinux
	Mutate func(f *CorruptFixture)
	Want   string // distinctive parts of the validator's error, separated by "|"
	Kernel string // distinctive part of the kernel's verifier log
}

func isInt(bytes uint32) func(btf.Type) bool {
	return func(t btf.Type) bool {
		_, off, bits := t.IntData()
		return t.Size() == bytes && off == 0 && bits == uint8(8*bytes)
	}
}

// Corruptions is the table. Every entry breaks one distinct rule.
var Corruptions = []Corruption{
	// Header and section layout.
	{Name: "bad magic", Mutate: func(f *CorruptFixture) { f.Data[0], f.Data[1] = 0x12, 0x34 },
		Want: "bad magic", Kernel: "Invalid magic"},
	{Name: "bad version", Mutate: func(f *CorruptFixture) { f.Data[2] = 2 },
		Want: "unsupported version 2", Kernel: "Unsupported version"},
	{Name: "bad flags", Mutate: func(f *CorruptFixture) { f.Data[3] = 1 },
		Want: "unsupported flags", Kernel: "Unsupported flags"},
	{Name: "hdr_len too short", Mutate: func(f *CorruptFixture) { f.put32(4, 20) },
		Want: "hdr_len 20 is shorter than 24", Kernel: "Unsupported section found"},
	{Name: "hdr_len beyond the blob", Mutate: func(f *CorruptFixture) { f.put32(4, uint32(len(f.Data)+4)) },
		Want: "exceeds blob size", Kernel: "btf_header not found"},
	{Name: "non-zero extra header byte", Mutate: func(f *CorruptFixture) { f.Data[28] = 1 },
		Want: "unknown non-zero header byte", Kernel: "Unsupported btf_header"},
	{Name: "gap before the string section", Mutate: func(f *CorruptFixture) {
		f.put32(16, le.Uint32(f.Data[16:])+4)
		f.put32(20, le.Uint32(f.Data[20:])-4)
	}, Want: "4 unknown bytes before the string section", Kernel: "Unsupported section found"},
	{Name: "trailing bytes", Mutate: func(f *CorruptFixture) { f.Data = append(f.Data, 0, 0, 0, 0) },
		Want: "4 bytes after the last section belong to no section", Kernel: "Unsupported section found"},
	{Name: "overlapping sections", Mutate: func(f *CorruptFixture) {
		f.put32(16, le.Uint32(f.Data[16:])-4)
		f.put32(20, le.Uint32(f.Data[20:])+4)
	}, Want: "overlap", Kernel: "Section overlap found"},
	{Name: "string section before the types", Mutate: func(f *CorruptFixture) {
		hl := int(le.Uint32(f.Data[4:]))
		tl, sl := int(le.Uint32(f.Data[12:])), int(le.Uint32(f.Data[20:]))
		body := append(append([]byte(nil), f.Data[hl+tl:hl+tl+sl]...), f.Data[hl:hl+tl]...)
		copy(f.Data[hl:], body)
		f.put32(8, uint32(sl))
		f.put32(16, 0)
	}, Want: "string section must be the last section", Kernel: "String section is not at the end"},
	{Name: "no types", Mutate: func(f *CorruptFixture) {
		hl := int(le.Uint32(f.Data[4:]))
		tl := int(le.Uint32(f.Data[12:]))
		f.Data = append(f.Data[:hl], f.Data[hl+tl:]...)
		f.put32(12, 0)
		f.put32(16, 0)
	}, Want: "type section is empty", Kernel: "No type found"},
	{Name: "blob beyond 16 MiB", Mutate: func(f *CorruptFixture) {
		pad := 13 << 20 // NULs appended to the string section
		f.Data = append(f.Data, make([]byte, pad)...)
		f.put32(20, le.Uint32(f.Data[20:])+uint32(pad))
	}, Want: "exceeds the kernel's limit of 16777216 bytes", Kernel: ""}, // E2BIG, no log

	// String section.
	{Name: "string section without final NUL", Mutate: func(f *CorruptFixture) { f.Data[len(f.Data)-1] = 'x' },
		Want: "does not end with a NUL", Kernel: "Invalid string section"},
	{Name: "string section not starting with NUL", Mutate: func(f *CorruptFixture) { f.Data[f.strs] = 'x' },
		Want: "does not start with a NUL", Kernel: "Invalid string section"},

	// Info word and names.
	{Name: "unknown kind", Mutate: func(f *CorruptFixture) { f.setKind(f.find(btf.KindInt, nil), 20) },
		Want: "unknown kind 20", Kernel: "Invalid kind:20"},
	{Name: "reserved info bits", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindInt, nil)
		f.Set(id, 1, f.Get(id, 1)|1<<16)
	}, Want: "sets reserved bits", Kernel: "Invalid btf_info:"},
	{Name: "name offset beyond the strings", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindStruct, nil), 0, f.Spec.Strings().Len()+10)
	}, Want: "outside the string section", Kernel: "Invalid name_offset"},
	{Name: "name not an identifier", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindStruct, nil), 0, f.str("u32")+1) // "32"
	}, Want: "invalid name: not a valid C identifier", Kernel: "Invalid name"},
	{Name: "named PTR", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindPtr, nil), 0, f.str("u32")) },
		Want: "a PTR must be anonymous", Kernel: "Invalid name"},
	{Name: "PTR with vlen", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindPtr, nil)
		f.Set(id, 1, f.Get(id, 1)|1)
	}, Want: "vlen 1 must be 0 for PTR", Kernel: "vlen != 0"},

	// INT.
	{Name: "INT bits above 128", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindInt, isInt(16))
		f.Set(id, 3, f.Get(id, 3)&^0xff|200)
	}, Want: "bit offset 0 + bits 200 exceeds 128", Kernel: "nr_bits exceeds 128"},
	{Name: "INT bits beyond its size", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindInt, isInt(4))
		f.Set(id, 3, f.Get(id, 3)&^0xff|64)
	}, Want: "does not fit in size 4", Kernel: "nr_bits exceeds type_size"},
	{Name: "INT with two encodings", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindInt, nil)
		f.Set(id, 3, f.Get(id, 3)&^(0xf<<24)|(btf.IntSigned|btf.IntChar)<<24)
	}, Want: "more than one of SIGNED, CHAR, BOOL", Kernel: "Unsupported encoding"},
	{Name: "INT with kind_flag", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindInt, nil)
		f.Set(id, 1, f.Get(id, 1)|1<<31)
	}, Want: "kind_flag must be 0 for INT", Kernel: "Invalid btf_info kind_flag"},

	// References.
	{Name: "dangling type ID", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindTypedef, nil), 2, f.Spec.TypeCount()+1000)
	}, Want: "no type (ID out of range)", Kernel: "Invalid type_id"},
	{Name: "type ID beyond the kernel's limit", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindPtr, nil), 2, btf.KernelMaxTypeID+1)
	}, Want: "beyond the kernel's type ID limit", Kernel: "Invalid type_id"},
	{Name: "TYPEDEF loop", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindTypedef, nil)
		f.Set(id, 2, id)
	}, Want: "] TYPEDEF |reference loop", Kernel: "Loop detected"},
	{Name: "struct containing itself", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 })
		f.Set(id, 4, id)
	}, Want: "] STRUCT |reference loop", Kernel: "Loop detected"},

	// STRUCT and UNION members.
	{Name: "member offset beyond struct size", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 && !t.KindFlag() })
		last := 3 + 3*(f.Spec.Type(id).Vlen()-1)
		f.Set(id, last+2, 8*f.Get(id, 2)+64)
	}, Want: "beyond struct size", Kernel: "Member bits_offset exceeds its struct size"},
	{Name: "member offsets decreasing", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool {
			return t.Vlen() >= 3 && !t.KindFlag() && t.Member(0).Offset == 0 && t.Member(1).Offset >= 64
		})
		f.Set(id, 5, f.Get(id, 8)+8)
	}, Want: "is below the previous member's", Kernel: "Invalid member bits_offset"},
	{Name: "union member with an offset", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindUnion, func(t btf.Type) bool { return t.Vlen() > 0 && !t.KindFlag() && t.Size() >= 8 }), 5, 8)
	}, Want: "union member", Kernel: "Invalid member bits_offset"},
	{Name: "void member", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 }), 4, 0)
	}, Want: "type ID 0 is void", Kernel: "Invalid type_id"},
	{Name: "pointer member overrunning its struct", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindStruct, func(t btf.Type) bool {
			if t.Vlen() == 0 || t.KindFlag() || t.Size() < 16 {
				return false
			}
			m := t.Member(t.Vlen() - 1)
			return f.kindOf(m.Type) == btf.KindPtr && m.Offset == 8*t.Size()-64
		})
		last := 3 + 3*(f.Spec.Type(id).Vlen()-1)
		f.Set(id, last+2, 8*f.Get(id, 2)-32)
	}, Want: "8 bytes at byte offset", Kernel: "Member exceeds struct_size"},
	{Name: "bitfield wider than its INT", Mutate: func(f *CorruptFixture) {
		var mi int
		id := f.find(btf.KindStruct, func(t btf.Type) bool {
			if !t.KindFlag() {
				return false
			}
			for i := range t.Vlen() {
				m := t.Member(i)
				if bt := f.Spec.Type(m.Type); bt.Kind() == btf.KindInt && bt.Size() == 4 && m.Offset>>24 != 0 {
					mi = i
					return true
				}
			}
			return false
		})
		w := 3 + 3*mi + 2
		f.Set(id, w, f.Get(id, w)&0xffffff|40<<24)
	}, Want: "bitfield size 40 exceeds its INT's 32 bits", Kernel: "Invalid member bitfield_size"},

	// ARRAY.
	{Name: "ARRAY indexed by a struct", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindArray, nil), 4, f.find(btf.KindStruct, nil))
	}, Want: "not a whole 1, 2, 4, 8 or 16-byte INT", Kernel: "Invalid index"},
	{Name: "ARRAY of void", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindArray, nil), 3, 0) },
		Want: "element type ID 0 is void", Kernel: "Invalid elem"},
	{Name: "named ARRAY", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindArray, nil), 0, f.str("u32")) },
		Want: "an ARRAY must be anonymous", Kernel: "Invalid name"},

	// ENUM, FLOAT, FWD.
	{Name: "ENUM of size 3", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindEnum, nil), 2, 3) },
		Want: "ENUM size 3 is not 1, 2, 4 or 8", Kernel: "Unexpected size"},
	{Name: "enumerator without a name", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindEnum, func(t btf.Type) bool { return t.Vlen() > 0 }), 3, 0)
	}, Want: "enumerator 0 name \"\" is not a valid C identifier", Kernel: "Invalid name"},
	{Name: "FLOAT of size 3", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindFloat, nil), 2, 3) },
		Want: "FLOAT size 3 is not 2, 4, 8, 12 or 16", Kernel: "Invalid type_size"},
	{Name: "FWD with a type", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindFwd, nil), 2, 1) },
		Want: "FWD has a non-zero type/size word", Kernel: "type != 0"},

	// FUNC and FUNC_PROTO.
	{Name: "FUNC with extern linkage", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindFunc, nil)
		f.Set(id, 1, f.Get(id, 1)&^0xffff|btf.LinkageExtern)
	}, Want: "] FUNC |linkage 2 is neither static (0) nor global (1)", Kernel: "Invalid func linkage"},
	{Name: "FUNC pointing to a non-prototype", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindFunc, nil), 2, f.find(btf.KindInt, nil))
	}, Want: "an INT, not a FUNC_PROTO", Kernel: "Invalid type_id"},
	{Name: "FUNC with an unnamed parameter", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindFunc, func(t btf.Type) bool { return f.Spec.Type(t.Ref()).Vlen() > 0 })
		proto := f.Get(id, 2)
		f.Set(proto, 3, 0)
	}, Want: "parameter 1 of FUNC_PROTO", Kernel: "Invalid arg#1"},
	{Name: "void parameter before the last", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindFuncProto, func(t btf.Type) bool { return t.Vlen() >= 2 }), 4, 0)
	}, Want: "void is only allowed as the last, vararg, parameter", Kernel: "Invalid arg#1"},
	{Name: "named vararg", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindFuncProto, func(t btf.Type) bool {
			_, typ := t.Param(t.Vlen() - 1)
			return t.Vlen() > 1 && typ == 0
		})
		f.Set(id, 3+2*(f.Spec.Type(id).Vlen()-1), f.str("u32"))
	}, Want: "the vararg marker (type void) must have no name", Kernel: "Invalid arg#"},

	// VAR and DATASEC.
	{Name: "VAR with extern linkage", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindVar, nil), 3, btf.LinkageExtern) },
		Want: "] VAR |linkage 2 is neither static (0) nor global (1)", Kernel: "Linkage not supported"},
	{Name: "VAR of a FUNC_PROTO", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindVar, nil), 2, f.find(btf.KindFuncProto, nil))
	}, Want: "(a FUNC_PROTO) has no size", Kernel: "Invalid type_id"},
	{Name: "DATASEC entries unsorted", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindDatasec, func(t btf.Type) bool { return t.Vlen() >= 2 })
		for w := 3; w < 6; w++ {
			a, b := f.Get(id, w), f.Get(id, w+3)
			f.Set(id, w, b)
			f.Set(id, w+3, a)
		}
	}, Want: "overlaps the previous entry", Kernel: "Invalid offset"},
	{Name: "DATASEC entry beyond the section", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindDatasec, nil)
		last := 3 + 3*(f.Spec.Type(id).Vlen()-1)
		f.Set(id, last+1, f.Get(id, 2))
	}, Want: "is beyond section size", Kernel: "Invalid offset"},
	{Name: "DATASEC entry not a VAR", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindDatasec, nil), 3, f.find(btf.KindInt, nil))
	}, Want: "not a VAR", Kernel: "Not a VAR kind member"},
	{Name: "DATASEC entry smaller than its VAR", Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindDatasec, func(t btf.Type) bool { _, _, sz := t.SecInfo(0); return sz > 1 }), 5, 1)
	}, Want: "is smaller than VAR", Kernel: "Invalid size"},
	{Name: "DATASEC of size 0", Mutate: func(f *CorruptFixture) { f.Set(f.find(btf.KindDatasec, nil), 2, 0) },
		Want: "DATASEC size is 0", Kernel: "size == 0"},

	// DECL_TAG and TYPE_TAG (the reference has none: a VAR, which has the
	// same layout as a DECL_TAG, and a CONST become them).
	{Name: "DECL_TAG component beyond the parameters", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindVar, nil)
		f.setKind(id, btf.KindDeclTag)
		f.Set(id, 2, f.find(btf.KindFunc, nil))
		f.Set(id, 3, 1000)
	}, Want: "component index 1000 is beyond", Kernel: "Invalid component_idx"},
	{Name: "DECL_TAG component below -1", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindVar, nil)
		f.setKind(id, btf.KindDeclTag)
		f.Set(id, 3, 0xfffffffe)
	}, Want: "component index -2 is below -1", Kernel: "Invalid component_idx"},
	{Name: "DECL_TAG on an INT", Mutate: func(f *CorruptFixture) {
		id := f.find(btf.KindVar, nil)
		f.setKind(id, btf.KindDeclTag)
		f.Set(id, 2, f.find(btf.KindInt, nil))
		f.Set(id, 3, 0xffffffff)
	}, Want: "only FUNC, STRUCT, UNION, VAR and TYPEDEF can be tagged", Kernel: "Invalid type_id"},
	{Name: "TYPE_TAG without a value", Mutate: func(f *CorruptFixture) { f.setKind(f.find(btf.KindConst, nil), btf.KindTypeTag) },
		Want: "a TYPE_TAG needs a non-empty value", Kernel: "Invalid name"},

	// Split BTF (xfs on the kbuild vmlinux).
	{Name: "split: dangling member type", Split: true, Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 }), 4, f.Spec.TypeCount()+10)
	}, Want: "no type (ID out of range), which cannot be a member", Kernel: "Invalid member"},
	{Name: "split: string section without final NUL", Split: true, Mutate: func(f *CorruptFixture) { f.Data[len(f.Data)-1] = 'x' },
		Want: "does not end with a NUL|", Kernel: "Invalid string section"},
	{Name: "split: member name offset beyond the strings", Split: true, Mutate: func(f *CorruptFixture) {
		f.Set(f.find(btf.KindStruct, func(t btf.Type) bool { return t.Vlen() > 0 }), 3, f.Spec.Strings().Len()+5)
	}, Want: "member 0 name offset", Kernel: "Invalid member name_offset"},
	{Name: "split: PTR to a base VAR", Split: true, Mutate: func(f *CorruptFixture) {
		var v btf.TypeID
		for id := btf.TypeID(1); id < f.Spec.FirstID(); id++ {
			if f.Spec.Type(id).Kind() == btf.KindVar {
				v = id
				break
			}
		}
		f.Set(f.find(btf.KindPtr, nil), 2, v)
	}, Want: "a VAR", Kernel: "Invalid type_id"},
}

// ReadReference reads a file under shared/reference.
func ReadReference(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(Reference(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ForEachCorruption loads the fixtures once per test and applies every
// Corruption, calling fn with the corrupted blob and its base.
func ForEachCorruption(t *testing.T, fn func(t *testing.T, tc Corruption, data []byte, base *btf.Spec, baseData []byte)) {
	baseData := ReadReference(t, VmlinuxName+".kbuild.btf")
	splitData := ReadReference(t, "modules/xfs.btf")
	base, err := btf.Parse(baseData, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range Corruptions {
		t.Run(tc.Name, func(t *testing.T) {
			var f *CorruptFixture
			if tc.Split {
				f = NewCorruptFixture(t, splitData, base)
			} else {
				f = NewCorruptFixture(t, baseData, nil)
			}
			tc.Mutate(f)
			if tc.Split {
				fn(t, tc, f.Data, base, baseData)
			} else {
				fn(t, tc, f.Data, nil, baseData)
			}
		})
	}
}

// FindNamed returns the first own type of kind k named name.
func (f *CorruptFixture) FindNamed(k btf.Kind, name string) btf.TypeID {
	return f.find(k, func(t btf.Type) bool { return f.Spec.Name(t) == name })
}
