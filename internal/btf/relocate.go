package btf

import "fmt"

// Relocate moves split BTF whose base is a distilled base (see
// [DistillBase]) onto a full base, as libbpf's btf__relocate and the kernel
// do when an out-of-tree module with a .BTF.base section is loaded. It
// returns a new split Spec on full; s is not modified.
//
// Each distilled base type must match exactly one type of full:
//
//   - INT: an INT of the same name, size and encoding bits;
//   - FLOAT: a FLOAT of the same name and size;
//   - ENUM: an ENUM or ENUM64 of the same name and size;
//   - FWD: a FWD of the same name and kind_flag, or a STRUCT whose own
//     kind_flag is 0 or a UNION whose own kind_flag is 1 (libbpf tests the
//     base type's flag, not the FWD's) of the same name, and of size 0 when
//     full has several composites of that name;
//   - STRUCT or UNION: a STRUCT or UNION of the same name; the size must
//     match too when full has several composites of that name, or when a
//     split struct or union embeds the type (through typedefs, modifiers,
//     type tags and arrays, not pointers), since then its layout depends on
//     it.
//
// A distilled type with no match, or with two, is an error, as is a
// distilled base holding anything but named types of those kinds. Split IDs
// move up by the difference in type counts and split strings by the
// difference in string-section lengths; references to the distilled base go
// to the matched types and names.
func Relocate(s *Spec, full *Spec) (*Spec, error) {
	dist := s.base
	if dist == nil || dist.base != nil || full == nil || full.base != nil {
		return nil, fmt.Errorf("btf: relocation needs split BTF on a distilled base and a standalone full base")
	}
	nDist := dist.TypeCount()
	byName := map[string][]TypeID{}
	for id := TypeID(1); id <= nDist; id++ {
		t := dist.Type(id)
		switch t.Kind() {
		case KindInt, KindFloat, KindEnum, KindStruct, KindUnion, KindFwd:
		default:
			return nil, fmt.Errorf("btf: distilled base type [%d] has kind %s, which a distilled base cannot hold", id, t.Kind())
		}
		if t.NameOff() == 0 {
			return nil, fmt.Errorf("btf: distilled base type [%d] (%s) is anonymous", id, t.Kind())
		}
		name := dist.Name(t)
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
			// input (a TYPEDEF chain back to itself).
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
		name := full.Name(t)
		for _, d := range byName[name] {
			if !relocMatches(dist.Type(d), t, embedded[d], named[name] > 1) {
				continue
			}
			if match[d] != 0 {
				return nil, fmt.Errorf("btf: distilled base type [%d] %q (size %d) matches base types [%d] and [%d]", d, name, dist.Type(d).Size(), match[d], id)
			}
			match[d] = id
			names[dist.Type(d).NameOff()] = t.NameOff()
		}
	}
	for d := TypeID(1); d <= nDist; d++ {
		if match[d] == 0 {
			return nil, fmt.Errorf("btf: distilled base type [%d] %s %q matches no base type", d, dist.Type(d).Kind(), dist.Name(dist.Type(d)))
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
					badStr = fmt.Errorf("btf: type [%d] uses distilled base string %q at offset %d, which names no distilled type", out.firstID+TypeID(i), dist.strs.String(off), off)
				}
			}
		})
	}
	if badStr != nil {
		return nil, badStr
	}
	return out, nil
}

// relocMatches reports whether full base type b can stand for distilled type
// d of the same name. embedded says a split composite embeds d; ambiguous
// that full has several composites of b's name.
func relocMatches(d, b Type, embedded, ambiguous bool) bool {
	bk := b.Kind()
	switch d.Kind() {
	case KindFwd:
		switch bk {
		case KindFwd:
			return d.KindFlag() == b.KindFlag()
		case KindStruct, KindUnion:
			// With several composites of the name, libbpf
			// compares sizes, and a FWD's is 0.
			return b.KindFlag() == (bk == KindUnion) && (!ambiguous || b.Size() == d.Size())
		}
		return false
	case KindInt:
		de, _, _ := d.IntData()
		be, _, _ := b.IntData()
		return bk == KindInt && b.Size() == d.Size() && de == be
	case KindFloat:
		return bk == KindFloat && b.Size() == d.Size()
	case KindEnum:
		return (bk == KindEnum || bk == KindEnum64) && b.Size() == d.Size()
	case KindStruct, KindUnion:
		if bk != KindStruct && bk != KindUnion {
			return false
		}
		return (!embedded && !ambiguous) || b.Size() == d.Size()
	}
	return false
}
