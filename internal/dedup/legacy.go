package dedup

import "github.com/gobtf/gobtf/internal/btf"

// libbpf 1.1.2 (the release Debian ships, and the one the shared btfdedup
// tool links) differs from current libbpf in two places; Options.Libbpf112
// selects its behaviour:
//
//  1. TYPEDEF is a plain reference kind: it is deduplicated in the reference
//     pass by exact equality of its resolved target, not in the struct pass
//     by graph comparison. A typedef whose target graph holds a FWD that only
//     a graph comparison would resolve therefore stays separate, and a
//     typedef that refers to itself through a pointer is an error.
//  2. When an equivalence check meets a canonical type already paired with
//     another candidate, the two candidates are accepted only if they are
//     exactly equal arrays or structs/unions whose members are pairwise the
//     same type or again such arrays or structs (identicalLegacy), rather
//     than by identicalTypes.
//
// On C input, the vmlinux and module BTF of the test data included, both
// give the same result.

// maxLegacyDepth bounds identicalLegacy's recursion on malformed input;
// libbpf 1.1.2 has no bound, and by-value nesting in C is far shallower.
const maxLegacyDepth = 1 << 12

// identicalLegacy is libbpf 1.1.2's test for duplicate candidate types.
func (d *deduper) identicalLegacy(id1, id2 uint32, depth int) bool {
	if d.identicalArraysLegacy(id1, id2) {
		return true
	}
	return d.identicalStructsLegacy(id1, id2, depth)
}

func (d *deduper) identicalArraysLegacy(id1, id2 uint32) bool {
	t1, t2 := d.typ(id1), d.typ(id2)
	if btf.InfoKind(t1[1]) != btf.KindArray || btf.InfoKind(t2[1]) != btf.KindArray {
		return false
	}
	return equalWords(t1, t2)
}

func (d *deduper) identicalStructsLegacy(id1, id2 uint32, depth int) bool {
	if d.identSteps--; d.identSteps < 0 {
		return false
	}
	t1, t2 := d.typ(id1), d.typ(id2)
	k := btf.InfoKind(t1[1])
	if k != btf.KindStruct && k != btf.KindUnion || k != btf.InfoKind(t2[1]) || depth <= 0 {
		return false
	}
	if !shallowEqualStruct(t1, t2) {
		return false
	}
	for j := 4; j < len(t1); j += 3 {
		if t1[j] != t2[j] && !d.identicalArraysLegacy(t1[j], t2[j]) &&
			!d.identicalStructsLegacy(t1[j], t2[j], depth-1) {
			return false
		}
	}
	return true
}
