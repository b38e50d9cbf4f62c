package dedup

import (
	"slices"

	"github.com/gobtf/gobtf/internal/btf"
)

// The signature hashes below combine the same fields, in the same order and
// with the same arithmetic (h*31 + v, wrapping at 64 bits), as libbpf's, so
// that the candidate lists, and with them the order candidates are tried in,
// are libbpf's. Hashes cover what identifies a type apart from the IDs it
// references, unless the comment says otherwise; the equality functions say
// exactly which fields must match.
//
// Word layout reminder: t[0] name offset, t[1] info, t[2] size or type,
// trailing words from t[3].

func combine(h uint64, v uint32) uint64 { return h*31 + uint64(v) }

// hashCommon covers the three header words.
func hashCommon(t []uint32) uint64 { return combine(combine(combine(0, t[0]), t[1]), t[2]) }

// hashTypedef covers a TYPEDEF's name and info but not the type it names,
// which may not be canonical yet when typedefs are compared as graphs.
func hashTypedef(t []uint32) uint64 { return combine(combine(0, t[0]), t[1]) }

// hashIntTag covers the header and the one trailing word of INT (encoding,
// offset, bits) and DECL_TAG (component index).
func hashIntTag(t []uint32) uint64 { return combine(hashCommon(t), t[3]) }

// hashEnum covers only the name, so that an enum forward declaration (no
// values, possibly another size or the other enum kind) lands with the full
// definitions of its name.
func hashEnum(t []uint32) uint64 { return combine(0, t[0]) }

// wordsHash hashes all words of a type (FNV-1a, a word at a time), for
// indexes keyed by a type's whole contents (anonEnums), where combine's
// weak mixing would make many keys collide.
func wordsHash(t []uint32) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range t {
		h = (h ^ uint64(w)) * 1099511628211
	}
	return h
}

// hashStruct covers the header and every member's name and offset word, not
// the member types.
func hashStruct(t []uint32) uint64 {
	h := hashCommon(t)
	for j := 3; j < len(t); j += 3 {
		h = combine(combine(h, t[j]), t[j+2])
	}
	return h
}

// hashArray covers everything, element and index types included: it is used
// once they are canonical.
func hashArray(t []uint32) uint64 {
	return combine(combine(combine(hashCommon(t), t[3]), t[4]), t[5])
}

// hashFuncProto covers everything, parameter types included (canonical).
func hashFuncProto(t []uint32) uint64 {
	h := hashCommon(t)
	for j := 3; j < len(t); j += 2 {
		h = combine(combine(h, t[j]), t[j+1])
	}
	return h
}

// equalCommon: same name, kind, kind_flag, vlen and size-or-type word.
func equalCommon(a, b []uint32) bool { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] }

// equalWords: identical words. Given equal info words the lengths agree. It
// is exact equality for INT, DECL_TAG, ENUM, ENUM64, ARRAY and FUNC_PROTO
// once their references are canonical.
func equalWords(a, b []uint32) bool { return slices.Equal(a, b) }

// equalTypedef: same name and info; the named type is compared separately.
func equalTypedef(a, b []uint32) bool { return a[0] == b[0] && a[1] == b[1] }

func isAnyEnum(t []uint32) bool {
	k := btf.InfoKind(t[1])
	return k == btf.KindEnum || k == btf.KindEnum64
}

// isEnumFwd reports an enum forward declaration: an ENUM or ENUM64 without
// values.
func isEnumFwd(t []uint32) bool { return isAnyEnum(t) && btf.InfoVlen(t[1]) == 0 }

// compatEnum: two full enums must be identical; if either is a forward
// declaration, the same name suffices, whatever the sizes and the enum kinds
// (a forward ENUM may stand for an ENUM64).
func compatEnum(a, b []uint32) bool {
	if !isEnumFwd(a) && !isEnumFwd(b) {
		return equalWords(a, b)
	}
	return a[0] == b[0] && isAnyEnum(a) && isAnyEnum(b)
}

// shallowEqualStruct: same header and the same member names and offset
// words, member types not compared.
//
// Equal info words mean equal lengths; checking the lengths too, cutting b
// to a's and bounding the loop by a member's last word let the compiler
// drop the bounds checks of the loop, which runs over millions of members
// (it and the cut in isEquivUnsettled make the struct pass measurably
// faster).
// compatFuncProto does the same for parameters.
func shallowEqualStruct(a, b []uint32) bool {
	if !equalCommon(a, b) || len(a) != len(b) {
		return false
	}
	b = b[:len(a)]
	for j := 3; j+2 < len(a); j += 3 {
		if a[j] != b[j] || a[j+2] != b[j+2] {
			return false
		}
	}
	return true
}

// compatArray: same header and element count, element and index types not
// compared.
func compatArray(a, b []uint32) bool { return equalCommon(a, b) && a[5] == b[5] }

// compatFuncProto: same name, info and parameter names; return and parameter
// types not compared.
func compatFuncProto(a, b []uint32) bool {
	if a[0] != b[0] || a[1] != b[1] || len(a) != len(b) {
		return false
	}
	b = b[:len(a)]
	for j := 3; j < len(a); j += 2 {
		if a[j] != b[j] {
			return false
		}
	}
	return true
}

// fwdKind is the kind a FWD declares: UNION with kind_flag, else STRUCT.
func fwdKind(t []uint32) btf.Kind {
	if btf.InfoKindFlag(t[1]) {
		return btf.KindUnion
	}
	return btf.KindStruct
}
