package btf

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Relocate moves split BTF whose base is a distilled base (see
// [DistillBase]) onto a full base, as libbpf's btf__relocate and the kernel
// (which builds libbpf's btf_relocate.c) do when an out-of-tree module with
// a .BTF.base section is loaded. It returns a new split Spec on full; s is
// not modified.
//
// Each distilled base type must match exactly one type of full. A full
// type is a candidate for a distilled type of the same name when it is an
// INT, FLOAT, ENUM or ENUM64 of the same size, a FWD, or a STRUCT or UNION
// (of the same size when full has several composites of that name); a
// candidate matches when, by the distilled type's kind:
//
//   - INT: it is an INT with the same encoding bits;
//   - FLOAT: it is a FLOAT;
//   - ENUM: it is an ENUM or ENUM64;
//   - FWD: it is a FWD of the same kind_flag, a STRUCT whose own kind_flag
//     is 0 or a UNION whose own kind_flag is 1 (libbpf tests the candidate's
//     flag, not the FWD's);
//   - STRUCT or UNION: always (any candidate kind, as libbpf does), except
//     that when a split struct or union embeds the type (through typedefs,
//     modifiers, type tags and arrays, not pointers) the sizes must agree,
//     since the split layout depends on it.
//
// A distilled type with no match, or with two, is an error, as is a
// distilled base holding anything but named types of those kinds. Split IDs
// move up by the difference in type counts and split strings by the
// difference in string-section lengths; references to the distilled base go
// to the matched types and names. Errors are *ValidationError values in
// FormWarn whose Kernel text is the warning the kernel logs for the fault,
// checked in the kernel's order.
func Relocate(s *Spec, full *Spec) (*Spec, error) {
	dist := s.base
	if dist == nil || dist.base != nil || full == nil || full.base != nil {
		return nil, fmt.Errorf("btf: relocation needs split BTF on a distilled base and a standalone full base")
	}
	nDist := dist.TypeCount()
	for id := TypeID(1); id <= nDist; id++ {
		t := dist.Type(id)
		switch t.Kind() {
		case KindInt, KindFloat, KindEnum, KindStruct, KindUnion, KindFwd:
		default:
			return nil, relocErr(errnoEINVAL, fmt.Sprintf("type [%d] in distilled based BTF has unexpected kind [%d]", id, t.Kind()),
				"distilled base type [%d] has kind %s, which a distilled base cannot hold", id, t.Kind())
		}
		if t.NameOff() == 0 {
			return nil, relocErr(errnoEINVAL, fmt.Sprintf("type [%d], kind [%d] is invalid for distilled base BTF; it is anonymous", id, t.Kind()),
				"distilled base type [%d] (%s) is anonymous", id, t.Kind())
		}
	}
	// The distilled types in libbpf's search order: by name, then by
	// decreasing size.
	order := make([]TypeID, nDist)
	for i := range order {
		order[i] = TypeID(i + 1)
	}
	slices.SortStableFunc(order, func(a, b TypeID) int {
		ta, tb := dist.Type(a), dist.Type(b)
		return cmp.Or(strings.Compare(dist.Name(ta), dist.Name(tb)), cmp.Compare(tb.Size(), ta.Size()))
	})
	byName := map[string][]TypeID{}
	for _, id := range order {
		name := dist.Name(dist.Type(id))
		byName[name] = append(byName[name], id)
	}

	// Distilled composites that split composites embed must match in size.
	embedded := make([]bool, nDist+1)
	for i := range s.offs {
		t := s.typeAt(i)
		if k := t.Kind(); k != KindStruct && k != KindUnion {
			continue
		}
		t.ForEachTypeRef(func(w *uint32) {
			// The step bound stops a reference cycle in malformed
			// input (an ARRAY of a TYPEDEF of itself), on which
			// the kernel's walk never ends.
			for id, steps := *w, TypeID(0); id != 0 && steps <= s.TypeCount(); steps++ {
				u := s.Type(id)
				switch u.Kind() {
				case KindConst, KindRestrict, KindVolatile, KindTypedef, KindTypeTag:
					id = u.Ref()
				case KindArray:
					id, _, _ = u.Array()
				case KindStruct, KindUnion:
					if id <= nDist {
						embedded[id] = true
					}
					id = 0
				default:
					id = 0
				}
			}
		})
	}

	named := map[string]int{} // named composites of full, by name
	for id := TypeID(1); id <= full.TypeCount(); id++ {
		if t := full.Type(id); (t.Kind() == KindStruct || t.Kind() == KindUnion) && t.NameOff() != 0 {
			named[full.Name(t)]++
		}
	}
	match := make([]TypeID, nDist+1)
	names := map[uint32]uint32{} // distilled name offset -> full's
	for id := TypeID(1); id <= full.TypeCount(); id++ {
		t := full.Type(id)
		if t.NameOff() == 0 {
			continue
		}
		var needsSize bool
		switch t.Kind() {
		case KindInt, KindFloat, KindEnum, KindEnum64:
			needsSize = true
		case KindFwd:
		case KindStruct, KindUnion:
			needsSize = named[full.Name(t)] > 1
		default:
			continue
		}
		name := full.Name(t)
		for _, d := range byName[name] {
			if !relocMatches(dist.Type(d), t, embedded[d], needsSize) {
				continue
			}
			if match[d] != 0 {
				return nil, relocErr(errnoEINVAL, fmt.Sprintf("distilled base BTF type '%s' [%d], size %d has multiple candidates of the same size (ids [%d, %d]) in base BTF", name, d, t.Size(), id, match[d]),
					"distilled base type [%d] %q (size %d) matches base types [%d] and [%d]", d, name, dist.Type(d).Size(), match[d], id)
			}
			match[d] = id
			names[dist.Type(d).NameOff()] = t.NameOff()
		}
	}
	for d := TypeID(1); d <= nDist; d++ {
		if match[d] == 0 {
			name := dist.Name(dist.Type(d))
			return nil, relocErr(errnoEINVAL, fmt.Sprintf("distilled base BTF type '%s' [%d] is not mapped to base BTF id", name, d),
				"distilled base type [%d] %s %q matches no base type", d, dist.Type(d).Kind(), name)
		}
	}

	out := NewSpec(full)
	out.order, out.hdrLen = s.order, s.hdrLen
	out.words = append([]uint32(nil), s.words...)
	out.offs = append([]uint32(nil), s.offs...)
	out.strs = newStringTableFrom(full.strs, append([]byte(nil), s.strs.data...))
	idShift := full.TypeCount() - nDist
	strShift := full.strs.Len() - dist.strs.Len()
	var badStr error
	for i := range out.offs {
		t := out.typeAt(i)
		t.ForEachTypeRef(func(w *uint32) {
			switch id := *w; {
			case id == 0:
			case id > nDist:
				*w = id + idShift
			default:
				*w = match[id]
			}
		})
	}
	for i := range out.offs {
		t := out.typeAt(i)
		t.ForEachStrRef(func(w *uint32) {
			off := *w
			switch {
			case off == 0:
			case off >= dist.strs.Len():
				*w = off + strShift
			default:
				// A distilled base holds only the names of its
				// types, each now matched to a name in full.
				if to, ok := names[off]; ok {
					*w = to
				} else if badStr == nil {
					// The kernel's warning prints the string at
					// the (unmapped, so zero) target offset.
					badStr = relocErr(errnoENOENT, fmt.Sprintf("string '' [offset %d] is not mapped to base BTF", off),
						"type [%d] uses distilled base string %q at offset %d, which names no distilled type", out.firstID+TypeID(i), dist.strs.String(off), off)
				}
			}
		})
		if badStr != nil {
			return nil, badStr
		}
	}
	return out, nil
}

// relocErr builds a relocation error: the kernel's warning and errno, and
// gobtf's explanation.
func relocErr(errno int, warning, format string, args ...any) *ValidationError {
	return &ValidationError{Form: FormWarn, Kernel: warning, Rule: "relocating onto the base: " + fmt.Sprintf(format, args...), Errno: errno}
}

// relocMatches reports whether full base type b, a candidate of distilled
// type d's name, matches it. embedded says a split composite embeds d;
// needsSize that libbpf's search compared sizes to find b (b is an INT,
// FLOAT, ENUM or ENUM64, or full has several composites of b's name).
func relocMatches(d, b Type, embedded, needsSize bool) bool {
	if needsSize && b.Size() != d.Size() {
		return false
	}
	bk := b.Kind()
	switch d.Kind() {
	case KindFwd:
		switch bk {
		case KindFwd:
			return d.KindFlag() == b.KindFlag()
		case KindStruct:
			return !b.KindFlag()
		case KindUnion:
			return b.KindFlag()
		}
		return false
	case KindInt:
		de, _, _ := d.IntData()
		be, _, _ := b.IntData()
		return bk == KindInt && de == be
	case KindFloat:
		return bk == KindFloat
	case KindEnum:
		return bk == KindEnum || bk == KindEnum64
	case KindStruct, KindUnion:
		return !embedded || b.Size() == d.Size()
	}
	return false
}
