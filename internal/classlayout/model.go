// Package classlayout is pahole's layout view of a program's types: structs
// and unions with their members' offsets, sizes, holes, padding, bitfields,
// cacheline boundaries and alignment, printed byte for byte as pahole
// (dwarves 1.31 and later) prints them, with pahole's printing options.
//
// The types live in one flat Model per unit (slices indexed by type ID,
// members, enumerators and parameters in shared slices, no pointers between
// types) that a Source loads: the compilation units of a file's DWARF
// (OpenDWARF, with the internal/dwarf decoder), or the one unit of its BTF
// (BTFSource, from an internal/btf Spec). Print is the one entry point: it
// reads either source unit by unit as pahole does. Printer walks the
// model and keeps the facts pahole computes lazily while printing (holes,
// inferred __packed__ attributes) in side tables, so that the order in which
// pahole discovers them, which shows in its output, is reproduced.
package classlayout

// Kind is what a Type is, in pahole's (DWARF tag) terms.
type Kind uint8

// The kinds of types of a Model.
const (
	KindVoid       Kind = iota // ID 0, or a type pahole does not load
	KindBase                   // integer, bool, floating point
	KindPointer                // pointer to Ref
	KindConst                  // const Ref
	KindVolatile               // volatile Ref
	KindRestrict               // Ref restrict
	KindAtomic                 // _Atomic Ref
	KindAnnotation             // a type tag on Ref (BTF_KIND_TYPE_TAG)
	KindTypedef                // typedef Ref Name
	KindArray                  // Ref[Dims...]
	KindStruct                 // struct with Members
	KindUnion                  // union with Members
	KindEnum                   // enumeration with Enumerators
	KindFuncProto              // function type returning Ref with Params
	KindFunc                   // a function (BTF_KIND_FUNC); never printed here
	KindVar                    // a variable; never printed here
)

// Type flags.
const (
	FlagDeclaration uint8 = 1 << iota // forward declaration (struct/union/enum)
	FlagSigned                        // signed enumeration
	FlagBool                          // boolean base type
	FlagFloat                         // floating-point base type
	FlagVarargs                       // function type ending in "..."
	FlagVector                        // array is a GNU vector
	FlagNested                        // defined inside a function or another type, not at file scope
)

// Type is one type. Which fields mean something depends on Kind: Size is in
// bytes (structs, unions, enums, base types); Ref is the referenced type
// (pointers, modifiers, typedefs, arrays' elements, functions' return
// types); First and N delimit the type's Members (struct, union),
// Enumerators (enum), Params (function type) or Dims (array) in the Model.
type Type struct {
	Name  string
	Size  uint32
	Ref   uint32
	First uint32
	N     uint32
	Align uint32 // __aligned__ attribute: from DWARF, or inferred from BTF offsets; 0 for none
	Kind  Kind
	Flags uint8

	// NestedFirst and NestedN delimit, in Model.Nested, the types a struct
	// defines inside its body (as clang writes anonymous member types).
	NestedFirst, NestedN uint32
}

// NestedType is a type defined inside a struct's body, before its member
// number Before (pahole prints it there).
type NestedType struct {
	Before uint32
	Type   uint32
}

// Member is a member of a struct or union, with pahole's view of its place:
// ByteOffset and BitfieldOffset locate a bitfield inside its storage unit of
// ByteSize bytes.
type Member struct {
	Name           string
	Type           uint32
	BitOffset      uint32 // offset of the member's first bit in the struct
	ByteOffset     uint32
	BitfieldOffset int32
	BitfieldSize   uint32
	ByteSize       uint32
	BitSize        uint32
	Align          uint32 // __aligned__ attribute; 0 for none
}

// Enumerator is one value of an enumeration.
type Enumerator struct {
	Name  string
	Value uint64
}

// Param is one parameter of a function type.
type Param struct {
	Name string
	Type uint32
}

// Model is a program's types. Types[0] is void.
type Model struct {
	Types       []Type
	Members     []Member
	Enumerators []Enumerator
	Params      []Param
	Dims        []uint32
	Nested      []NestedType
	AddrSize    uint32
	// HasAlignInfo says the source records alignment (DWARF does, BTF does
	// not); pahole prints forced paddings only then.
	HasAlignInfo bool

	// UnitName and Decl are what -I shows: the compilation unit's name and,
	// by type ID, where each type was declared (DWARF only; nil otherwise).
	UnitName string
	Decl     []DeclInfo

	// Funcs are the unit's functions (DWARF subprograms, read for -m
	// only): each one's parameters' types are FuncParams[First:First+N].
	Funcs      []Func
	FuncParams []uint32

	natAlign []uint32 // naturalAlignment's cache for structs and unions, by ID
}

// Func is a function: its parameters' types in Model.FuncParams.
type Func struct{ First, N uint32 }

// DeclInfo is where a type was declared: its DIE's offset in .debug_info,
// and its source file ("" when unknown) and line.
type DeclInfo struct {
	File   string
	Line   uint32
	Offset uint64
}

// Type returns the type with the given ID, or nil when there is none.
func (m *Model) Type(id uint32) *Type {
	if id == 0 || int(id) >= len(m.Types) {
		return nil
	}
	return &m.Types[id]
}

// MembersOf returns the members of a struct or union.
func (m *Model) MembersOf(t *Type) []Member {
	return m.Members[t.First : t.First+t.N]
}

func (t *Type) isStruct() bool { return t != nil && t.Kind == KindStruct }
func (t *Type) isUnion() bool  { return t != nil && t.Kind == KindUnion }
func (t *Type) isEnum() bool   { return t != nil && t.Kind == KindEnum }
func (t *Type) isModifier() bool {
	return t != nil && (t.Kind == KindConst || t.Kind == KindVolatile || t.Kind == KindRestrict || t.Kind == KindAtomic)
}
