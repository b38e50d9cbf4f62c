package core

import (
	"errors"
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
)

// Value is what a relocation makes of one side (local or target) of an
// access: the number patched into the instruction, and for field offsets
// the size and type of the field, by which libbpf adjusts the size of a
// load or store.
type Value struct {
	Val    uint64
	Size   uint32     // field size for loads and stores (0 when not a plain field's offset)
	TypeID btf.TypeID // the field's type with modifiers and typedefs skipped
	// Poison is set when the relocation cannot be applied: libbpf then
	// turns the instruction into a call that the verifier rejects if it
	// is reachable.
	Poison bool
}

// errPoison is a side of a relocation with no target where the kind
// needs one: the instruction is poisoned.
var errPoison = errors.New("poison")

// fieldValue is libbpf's bpf_core_calc_field_relo for one side: the value
// of a field relocation on spec (nil: no target). It follows libbpf 1.8,
// the libbpf current tools link: a field's load size is the size of an
// array's element rather than the whole array, and only INTs are signed by
// encoding.
func fieldValue(kind btfext.RelocKind, spec *Spec) (Value, error) {
	if kind == btfext.FieldExists {
		if spec == nil {
			return Value{}, nil
		}
		return Value{Val: 1}, nil
	}
	if spec == nil {
		return Value{}, errPoison
	}
	ts := spec.Types
	acc := spec.Access[len(spec.Access)-1]
	if !acc.Named { // an array element: its offset and size
		switch kind {
		case btfext.FieldByteOffset:
			esz, err := elemSize(ts, acc.TypeID)
			if err != nil {
				return Value{}, err
			}
			return Value{Val: uint64(spec.BitOffset / 8), Size: esz, TypeID: acc.TypeID}, nil
		case btfext.FieldByteSize:
			sz, err := ts.resolveSize(acc.TypeID)
			if err != nil {
				return Value{}, err
			}
			return Value{Val: uint64(sz)}, nil
		}
		return Value{}, fmt.Errorf("%s relocation cannot be applied to an array element: %w", kind, errInvalid)
	}
	t, _ := ts.typ(acc.TypeID)
	m := t.Member(int(acc.Idx))
	mt, mtID, ok := ts.skipModsAndTypedefs(m.Type)
	if !ok {
		return Value{}, errInvalid
	}
	bitOff := spec.BitOffset
	bitSize := memberBitfieldSize(t, int(acc.Idx))
	var byteOff, byteSize uint32
	bitfield := bitSize > 0
	if bitfield {
		if len(mt) == 0 || mt.Size() == 0 {
			return Value{}, errInvalid // libbpf divides by the size here
		}
		byteSize = mt.Size()
		byteOff = bitOff / 8 / byteSize * byteSize
		for bitOff+bitSize-byteOff*8 > byteSize*8 {
			if byteSize >= 8 {
				return Value{}, errors.New("the bitfield cannot be read with one load of 8 bytes or less")
			}
			byteSize *= 2
			byteOff = bitOff / 8 / byteSize * byteSize
		}
	} else {
		sz, err := ts.resolveSize(mtID)
		if err != nil {
			return Value{}, err
		}
		byteSize = sz
		byteOff = bitOff / 8
		bitSize = byteSize * 8
	}
	switch kind {
	case btfext.FieldByteOffset:
		v := Value{Val: uint64(byteOff)}
		if !bitfield {
			esz, err := elemSize(ts, mtID)
			if err != nil {
				return Value{}, err
			}
			v.Size, v.TypeID = esz, mtID
		}
		return v, nil
	case btfext.FieldByteSize:
		return Value{Val: uint64(byteSize)}, nil
	case btfext.FieldSigned:
		signed := isAnyEnum(mt.Kind()) && mt.KindFlag() || mt.Kind() == btf.KindInt && intSigned(mt)
		if signed {
			return Value{Val: 1}, nil
		}
		return Value{}, nil
	case btfext.FieldLShiftU64:
		return Value{Val: uint64(64 - (bitOff + bitSize - byteOff*8))}, nil
	case btfext.FieldRShiftU64:
		return Value{Val: uint64(64 - bitSize)}, nil
	}
	return Value{}, fmt.Errorf("unknown relocation kind %d: %w", uint32(kind), errInvalid)
}

// elemSize is the size libbpf 1.8 takes for a load of a field of type id:
// for arrays (of arrays) the size of an element, else the type's size.
func elemSize(ts *Types, id btf.TypeID) (uint32, error) {
	t, id, ok := ts.skipModsAndTypedefs(id)
	for n := 0; ok && t.Kind() == btf.KindArray; n++ {
		if n == maxModChain {
			return 0, errInvalid
		}
		elem, _, _ := t.Array()
		t, id, ok = ts.skipModsAndTypedefs(elem)
	}
	if !ok {
		return 0, errInvalid
	}
	return ts.resolveSize(id)
}

// typeValue is libbpf's bpf_core_calc_type_relo for one side: 0 without a
// target (never poisoned), else the target type's ID, 1, or its size.
func typeValue(kind btfext.RelocKind, spec *Spec) (Value, error) {
	if spec == nil {
		return Value{}, nil
	}
	switch kind {
	case btfext.TypeIDTarget:
		return Value{Val: uint64(spec.Root)}, nil
	case btfext.TypeExists, btfext.TypeMatches:
		return Value{Val: 1}, nil
	case btfext.TypeSize:
		sz, err := spec.Types.resolveSize(spec.Root)
		if err != nil {
			return Value{}, err
		}
		return Value{Val: uint64(sz)}, nil
	}
	return Value{}, fmt.Errorf("unknown relocation kind %d: %w", uint32(kind), errInvalid)
}

// enumValue is libbpf's bpf_core_calc_enumval_relo for one side: whether
// the enumerator exists, or its value (poisoned without a target).
func enumValue(kind btfext.RelocKind, spec *Spec) (Value, error) {
	switch kind {
	case btfext.EnumvalExists:
		if spec == nil {
			return Value{}, nil
		}
		return Value{Val: 1}, nil
	case btfext.EnumvalValue:
		if spec == nil {
			return Value{}, errPoison
		}
		t, _ := spec.Types.typ(spec.Access[0].TypeID)
		i := int(spec.Access[0].Idx)
		if t.Kind() == btf.KindEnum {
			_, v := t.EnumValue(i)
			return Value{Val: uint64(v)}, nil // libbpf stores the u32 unextended
		}
		_, v := t.Enum64Value(i)
		return Value{Val: v}, nil
	}
	return Value{}, fmt.Errorf("unknown relocation kind %d: %w", uint32(kind), errInvalid)
}

// sideValue computes one side's value for any kind; a missing target
// where one is needed gives a poisoned value, not an error.
func sideValue(kind btfext.RelocKind, spec *Spec) (Value, error) {
	var v Value
	var err error
	switch {
	case kind.IsField():
		v, err = fieldValue(kind, spec)
	case kind.IsType():
		v, err = typeValue(kind, spec)
	case kind.IsEnumval():
		v, err = enumValue(kind, spec)
	default:
		err = fmt.Errorf("unknown relocation kind %d: %w", uint32(kind), errInvalid)
	}
	if errors.Is(err, errPoison) {
		return Value{Poison: true}, nil
	}
	return v, err
}

// Outcome is what a relocation finds in the target.
type Outcome uint8

const (
	// Resolved: at least one candidate matched and all matches agree.
	Resolved Outcome = iota
	// NoCandidate: the target has no type of the local type's essential
	// name and a compatible kind.
	NoCandidate
	// NoMatch: candidates exist, but none has what the access needs.
	NoMatch
	// Ambiguous: matching candidates disagree (libbpf fails the object).
	Ambiguous
	// Failed: libbpf fails the relocation on a candidate (a bitfield no
	// load can read, nesting too deep, an invalid target type).
	Failed
	// LocalOnly: TYPE_ID_LOCAL, which needs no target.
	LocalOnly
)

var outcomeNames = [...]string{"resolved", "no candidate", "no match", "ambiguous", "failed", "local"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Answered reports whether the outcome leaves the program with a defined
// value: resolved, local, or an existence check answered "no".
func (r *Result) Answered() bool {
	switch r.Outcome {
	case Resolved, LocalOnly:
		return true
	case NoCandidate, NoMatch:
		return r.Reloc.Kind.IsExistence()
	}
	return false
}
