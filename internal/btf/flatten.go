package btf

import (
	"errors"
	"fmt"
)

// Flatten joins a standalone base and any number of Specs split on it into
// one standalone Spec: the base's types and strings as they are, then the
// own types of splits[0], splits[1] and so on, each with its own strings
// after the strings before it. This is libbpf's way to a "super BTF" of a
// vmlinux and its modules (btf__add_btf of each into a new BTF) without the
// interning: no string is looked up, so the result still holds each split's
// copies of strings, which deduplication's string pass removes.
//
// The types of splits[0] keep their IDs (split BTF continues its base's
// numbering). A type ID of splits[k] that names one of its own types moves
// up by the number of own types of splits[0..k-1]; a string offset into its
// own strings moves up by the length of their own strings. References into
// the base stay. Every split must be split on base itself; the inputs are
// not modified.
func Flatten(base *Spec, splits []*Spec) (*Spec, error) {
	if base.base != nil {
		return nil, errors.New("btf: Flatten of a split base")
	}
	words, types := len(base.words), len(base.offs)
	strs := len(base.strs.data)
	for i, s := range splits {
		if s.base != base {
			return nil, fmt.Errorf("btf: Flatten: split %d is not split on the base", i)
		}
		words += len(s.words)
		types += len(s.offs)
		strs += len(s.strs.data)
	}
	if uint64(types) >= 1<<31 || uint64(strs) >= 1<<32 {
		return nil, fmt.Errorf("btf: Flatten: %d types, %d string bytes: too many for one BTF", types, strs)
	}
	out := NewSpec(nil)
	out.order = base.order
	out.words = make([]uint32, 0, words)
	out.offs = make([]uint32, 0, types)
	data := make([]byte, 0, strs)
	out.words = append(out.words, base.words...)
	out.offs = append(out.offs, base.offs...)
	data = append(data, base.strs.data...)

	baseTypes, baseStrs := base.TypeCount(), base.strs.Len()
	for _, s := range splits {
		idShift := uint32(out.TypeCount() - baseTypes)
		strShift := uint32(len(data)) - baseStrs
		wordShift := uint32(len(out.words))
		out.words = append(out.words, s.words...)
		for _, o := range s.offs {
			out.offs = append(out.offs, o+wordShift)
		}
		data = append(data, s.strs.data...)
		if idShift == 0 && strShift == 0 {
			continue
		}
		fixID := func(w *uint32) {
			if *w > uint32(baseTypes) {
				*w += idShift
			}
		}
		fixStr := func(w *uint32) {
			if *w >= baseStrs {
				*w += strShift
			}
		}
		for i := len(out.offs) - len(s.offs); i < len(out.offs); i++ {
			t := out.typeAt(i)
			t.ForEachTypeRef(fixID)
			t.ForEachStrRef(fixStr)
		}
	}
	out.strs = newStringTableFrom(nil, data)
	return out, nil
}
