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
	src := m.Target.Types.Spec
	out := btf.NewSpec(nil)
	ids := make([]btf.TypeID, int(src.TypeCount())+1)
	strs := src.Strings()
	var words []uint32
	var err error
	m.Types(func(id btf.TypeID) {
		if err != nil || id == 0 {
			return
		}
		t := src.Type(id)
		if t == nil {
			err = fmt.Errorf("btf: marked type [%d] is not in %s", id, m.Target.Name)
			return
		}
		words = words[:0]
		switch t.Kind() {
		case btf.KindStruct, btf.KindUnion:
			words = append(words, out.AddString(strs.String(t.NameOff())), 0, t.Size())
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
			btf.Type(words).ForEachStrRef(func(off *uint32) {
				if *off != 0 {
					*off = out.AddString(strs.String(*off))
				}
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
		return nil, nil, err
	}
	for i := range out.NumTypes() {
		out.Own(i).ForEachTypeRef(func(ref *uint32) {
			if int(*ref) < len(ids) {
				*ref = ids[*ref]
			} else {
				*ref = 0
			}
		})
	}
	return out, ids, nil
}
