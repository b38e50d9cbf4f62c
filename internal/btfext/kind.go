package btfext

import "fmt"

// RelocKind is a CO-RE relocation kind (enum bpf_core_relo_kind).
type RelocKind uint32

// The relocation kinds, numbered as in the kernel's include/uapi/linux/bpf.h.
const (
	FieldByteOffset RelocKind = 0  // field's byte offset
	FieldByteSize   RelocKind = 1  // field's size in bytes
	FieldExists     RelocKind = 2  // field existence in the target
	FieldSigned     RelocKind = 3  // field's signedness (0 unsigned, 1 signed)
	FieldLShiftU64  RelocKind = 4  // bitfield-specific left shift
	FieldRShiftU64  RelocKind = 5  // bitfield-specific right shift
	TypeIDLocal     RelocKind = 6  // type ID in the local BPF object
	TypeIDTarget    RelocKind = 7  // type ID in the target kernel
	TypeExists      RelocKind = 8  // type existence in the target kernel
	TypeSize        RelocKind = 9  // type size in bytes
	EnumvalExists   RelocKind = 10 // enum value existence in the target kernel
	EnumvalValue    RelocKind = 11 // enum value's integer value
	TypeMatches     RelocKind = 12 // type match in the target kernel
)

// String returns libbpf's name for the kind, as its messages print it
// ("byte_off", "type_exists", ...), or "unknown(N)".
func (k RelocKind) String() string {
	switch k {
	case FieldByteOffset:
		return "byte_off"
	case FieldByteSize:
		return "byte_sz"
	case FieldExists:
		return "field_exists"
	case FieldSigned:
		return "signed"
	case FieldLShiftU64:
		return "lshift_u64"
	case FieldRShiftU64:
		return "rshift_u64"
	case TypeIDLocal:
		return "local_type_id"
	case TypeIDTarget:
		return "target_type_id"
	case TypeExists:
		return "type_exists"
	case TypeMatches:
		return "type_matches"
	case TypeSize:
		return "type_size"
	case EnumvalExists:
		return "enumval_exists"
	case EnumvalValue:
		return "enumval_value"
	}
	return fmt.Sprintf("unknown(%d)", uint32(k))
}

// IsField reports whether k is about a field reached by an access string.
func (k RelocKind) IsField() bool { return k <= FieldRShiftU64 }

// IsType reports whether k is about a type as a whole.
func (k RelocKind) IsType() bool {
	switch k {
	case TypeIDLocal, TypeIDTarget, TypeExists, TypeMatches, TypeSize:
		return true
	}
	return false
}

// IsEnumval reports whether k is about an enumerator.
func (k RelocKind) IsEnumval() bool { return k == EnumvalExists || k == EnumvalValue }

// IsExistence reports whether k asks whether something exists (or
// matches) in the target: for those kinds "not found" is an answer (0), not
// a failed relocation.
func (k RelocKind) IsExistence() bool {
	switch k {
	case FieldExists, TypeExists, TypeMatches, EnumvalExists:
		return true
	}
	return false
}
