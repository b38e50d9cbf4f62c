package core

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
)

// Build copies the marked types of m's target into a new standalone Spec,
// as bpftool's btfgen_get_btf does, so that the bytes are bpftool's:
//
//   - marked types are appended in ID order and numbered from 1;
//   - a struct or union gets its name and size and only its marked
//     members, in order, each with its name, type, bit offset and bitfield
//     size; kind_flag is set when one of them is a bitfield or does not
//     start on a byte (libbpf's btf__add_field);
//   - any other type is copied whole (btf__add_type);
//   - strings are added as the types are appended, name first, then
//     member, enumerator and parameter names, each once;
//   - every type reference is then renumbered, and a reference to a type
//     that is not marked becomes 0 (void): a pointer that no relocation
//     follows points to void.
//
// It returns the Spec and the map from the target's type IDs to the new
// ones (0 for types not copied).
func Build(m *Marks) (*btf.Spec, []btf.TypeID, error) {
	out := btf.NewSpec(nil)
	ids := make([]btf.TypeID, int(m.Target.Types.Spec.TypeCount())+1)
	if err := appendMarked(out, m, ids, 1, nil); err != nil {
		return nil, nil, err
	}
	return out, ids, nil
}

// appendMarked appends to out, as Build copies them, the marked types of m
// whose IDs are first or more, records their new IDs in ids, and then
// renumbers the references of the appended types through ids: the entries
// of the types before first (a module's base types) must be filled in
// already. rename, when not nil, returns the name a type gets instead of
// its own ("" keeps it).
func appendMarked(out *btf.Spec, m *Marks, ids []btf.TypeID, first btf.TypeID, rename func(id btf.TypeID, t btf.Type) string) error {
	src := m.Target.Types.Spec
	start := out.NumTypes()
	strs := src.Strings()
	var words []uint32
	var err error
	m.Types(func(id btf.TypeID) {
		if err != nil || id == 0 || id < first {
			return
		}
		t := src.Type(id)
		if t == nil {
			err = fmt.Errorf("btf: marked type [%d] is not in %s", id, m.Target.Name)
			return
		}
		newName := ""
		if rename != nil {
			newName = rename(id, t)
		}
		words = words[:0]
		switch t.Kind() {
		case btf.KindStruct, btf.KindUnion:
			name := strs.String(t.NameOff())
			if newName != "" {
				name = newName
			}
			words = append(words, out.AddString(name), 0, t.Size())
			n, kflag := 0, false
			for i := range t.Vlen() {
				if !m.HasMember(id, i) {
					continue
				}
				mem := t.Member(i)
				off, size := memberBitOffset(t, i), memberBitfieldSize(t, i)
				if size != 0 || off%8 != 0 {
					kflag = true
				}
				words = append(words, out.AddString(strs.String(mem.NameOff)), mem.Type, off|size<<24)
				n++
			}
			words[1] = btf.Info(t.Kind(), kflag, n)
		default:
			words = append(words, t...)
			named := false
			btf.Type(words).ForEachStrRef(func(off *uint32) {
				if !named && newName != "" {
					*off = out.AddString(newName)
				} else if *off != 0 {
					*off = out.AddString(strs.String(*off))
				}
				named = true
			})
		}
		newID, aerr := out.Append(words)
		if aerr != nil {
			err = fmt.Errorf("btf: copying type [%d]: %w", id, aerr)
			return
		}
		ids[id] = newID
	})
	if err != nil {
		return err
	}
	for i := start; i < out.NumTypes(); i++ {
		out.Own(i).ForEachTypeRef(func(ref *uint32) {
			if int(*ref) < len(ids) {
				*ref = ids[*ref]
			} else {
				*ref = 0
			}
		})
	}
	return nil
}
