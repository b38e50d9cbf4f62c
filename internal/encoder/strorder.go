package encoder

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
)

// pahole's string section.
//
// pahole builds its BTF in one libbpf object made empty, and libbpf treats
// the strings of such an object as already deduplicated: btf__dedup merges
// types but leaves the string section as it stands. So pahole's output holds
// every string it ever added, once, in the order it first added it, whether
// or not a type of the output still names it. It adds strings at two kinds
// of moments:
//
//   - as it adds a type (the type's name, then its members', values' or
//     parameters' names): the types of the deduplication's input, in order;
//   - as it saves a function of a unit for encoding later: each saved
//     function's parameter names and decl tag values, after the unit's types
//     and before its variables. Functions it drops in the end (inconsistent
//     prototypes, optimized parameters, ...) leave their names behind.
//
// gobtf's deduplication enters the names of the input's types in the order
// of first reference, which is the first kind exactly. The second kind is
// put in by marks (dedup.Options.StringMarks): at the type pahole adds after
// a unit's saved functions, the deduplication records how far its string
// table has come, and the saved names go in there. The result is pahole's
// table, string for string.
//
// Worked example: unit 1 has the types "int" and "struct a { int x; }" and
// saves f(y), which is dropped later; unit 2 has "struct b { int y; int z; }".
// The deduplication's table is "", int, a, x, b, y, z, with the mark of unit
// 1 after x. pahole's is "", int, a, x, y, b, z: y was added when f was
// saved, before unit 2 was read (TestPaholeStringOrder).

// savedStrings collects the strings of the units' saved functions as the
// conversion reports them (dwarf2btf.Options.OnSavedStrings).
type savedStrings struct {
	at   []btf.TypeID // where each list goes: before type at[k]
	strs [][]string
}

func (s *savedStrings) add(at btf.TypeID, strs []string) {
	s.at = append(s.at, at)
	s.strs = append(s.strs, strs)
}

// applyPaholeOrder rewrites the string section of out, deduplicated with
// the marks s.at whose recorded lengths are lens, into pahole's order (see
// above): out's strings up to each mark, then the saved strings of that
// mark not already present, and so on. Every string reference of out is
// translated.
//
// out's strings are distinct, and its table is indexed (the deduplication
// entered them), so only the saved strings are looked up: one that out holds
// further on moves up to its mark, one it does not hold is new (the names of
// dropped functions), and the rest of out's strings are copied in order.
func applyPaholeOrder(out *btf.Spec, s *savedStrings, lens []uint32) error {
	if len(lens) != len(s.at) {
		return fmt.Errorf("string order: %d marks recorded for %d asked", len(lens), len(s.at))
	}
	old := out.Strings()
	data, start := old.Bytes(), old.Start()
	buf := make([]byte, 0, len(data)+len(data)/64)
	// newOff[local] is the new offset of out's string at local offset
	// local, once placed[local] is set.
	newOff := make([]uint32, len(data))
	placed := make([]uint64, len(data)/64+1)
	isPlaced := func(local uint32) bool { return placed[local>>6]&(1<<(local&63)) != 0 }
	place := func(local uint32, str string) {
		newOff[local] = start + uint32(len(buf))
		placed[local>>6] |= 1 << (local & 63)
		buf = append(append(buf, str...), 0)
	}
	added := map[string]bool{} // saved strings out does not hold, placed already
	pos := uint32(0)           // out's strings below local offset pos are placed
	copyUpTo := func(end uint32) error {
		for pos < end {
			str, ok := btf.CString(data[pos:])
			if !ok {
				return fmt.Errorf("string order: string at offset %d is not terminated", start+pos)
			}
			if !isPlaced(pos) {
				place(pos, str)
			}
			pos += uint32(len(str)) + 1
		}
		return nil
	}
	for k, l := range lens {
		if l < start+pos || l > start+uint32(len(data)) {
			return fmt.Errorf("string order: mark %d at offset %d outside %d..%d", k, l, start+pos, old.Len())
		}
		if err := copyUpTo(l - start); err != nil {
			return err
		}
		for _, str := range s.strs[k] {
			off, ok := old.Find(str)
			switch {
			case ok && off < start:
				// The empty string, or one the base holds.
			case ok:
				if local := off - start; local >= pos && !isPlaced(local) {
					place(local, str)
				}
			case !added[str]:
				added[str] = true
				buf = append(append(buf, str...), 0)
			}
		}
	}
	if err := copyUpTo(uint32(len(data))); err != nil {
		return err
	}
	return out.RemapStrings(btf.NewStringTableFrom(old.Base(), buf), func(off uint32) (uint32, bool) {
		if off < start {
			return off, true // the empty string, or a base string
		}
		local := off - start
		if local >= uint32(len(data)) || !isPlaced(local) {
			return 0, false
		}
		return newOff[local], true
	})
}

// shift moves the marks by n type IDs: the converted types were renumbered
// onto a base of n types.
func (s *savedStrings) shift(n btf.TypeID) {
	for i := range s.at {
		s.at[i] += n
	}
}
