package btf

import (
	"bytes"
	"hash/maphash"
	"unsafe"
)

// StringTable is a BTF string section: NUL-terminated strings addressed by
// byte offset. Add interns: each distinct string gets one offset, assigned in
// order of first addition, so the bytes written never depend on hashing.
//
// A base table starts with the empty string at offset 0. A split table (one
// with a base) continues the base's offset space: its first byte has offset
// base.Len(), and strings already present in the base are answered with the
// base's offset rather than added again, as libbpf does.
//
// Invariant: bytes once written are never modified; the slice only grows.
// That is what allows [StringTable.Lookup] to return strings that alias the
// table's storage without copying.
type StringTable struct {
	base  *StringTable
	start uint32 // offset of data[0] in the combined offset space
	data  []byte

	// slots is an open-addressing hash set of string start positions
	// (local offset + 1; 0 marks an empty slot). It is built lazily over
	// decoded tables, the first time Add or Find needs it.
	slots   []uint32
	used    int
	indexed int          // data[:indexed] has been entered into slots
	long    *longStrings // see NewSharedStrings

	// plain marks, in a table made by NewSharedStrings, the blocks of
	// 1<<longBlockBits bytes wholly inside it that no long string touches
	// and no empty string starts in: any offset in them may be named as
	// it is (PlainAt), which a conversion asks for every name it reads.
	plain []bool

	// byOffset marks a table made by NewSectionStrings: its strings are
	// named by offset only, never looked up by content (it has no index).
	byOffset bool
}

var strSeed = maphash.MakeSeed()

// NewStringTable returns an empty table: for a base table, one holding only
// the empty string at offset 0; for a split table, one with no bytes whose
// offsets start at base.Len().
func NewStringTable(base *StringTable) *StringTable {
	st := &StringTable{base: base}
	if base == nil {
		st.data = []byte{0}
	} else {
		st.start = base.Len()
	}
	return st
}

// NewStringTableFrom returns a table holding the string-section bytes data
// as they are (not copied: the table takes them over), on base when base is
// not nil. Its lookup index is built at the first Add or Find.
func NewStringTableFrom(base *StringTable, data []byte) *StringTable {
	return newStringTableFrom(base, data)
}

// newStringTableFrom wraps decoded string-section bytes. The bytes are used as
// they are (duplicates included), so re-encoding reproduces them exactly.
func newStringTableFrom(base *StringTable, data []byte) *StringTable {
	st := &StringTable{base: base, data: data}
	if base != nil {
		st.start = base.Len()
	}
	return st
}

// Base returns the base table, or nil.
func (st *StringTable) Base() *StringTable { return st.base }

// Start returns the offset of this table's first byte (0 for a base table).
func (st *StringTable) Start() uint32 { return st.start }

// Len returns the end of this table's offset space: the base's bytes plus
// this table's own.
func (st *StringTable) Len() uint32 { return st.start + uint32(len(st.data)) }

// Bytes returns this table's own bytes, as they are encoded in a string
// section. The caller must not modify them.
func (st *StringTable) Bytes() []byte { return st.data }

// Lookup returns the string at offset off, and false if off is out of range
// or the string is not NUL-terminated. The result aliases the table.
func (st *StringTable) Lookup(off uint32) (string, bool) {
	if off < st.start {
		if st.base == nil {
			return "", false
		}
		return st.base.Lookup(off)
	}
	local := off - st.start
	if local >= uint32(len(st.data)) {
		return "", false
	}
	return CString(st.data[local:])
}

// CString returns the NUL-terminated string b starts with, aliasing b, and
// false if b holds no NUL.
func CString(b []byte) (string, bool) {
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return "", false
	}
	return unsafe.String(&b[0], n), true // b[0] exists: b holds a NUL
}

// String returns the string at offset off, or "" when off is invalid.
func (st *StringTable) String(off uint32) string {
	s, _ := st.Lookup(off)
	return s
}

// Find returns the offset of s if the table (or its base) holds it as a whole
// string. Strings that only occur as the suffix of another are not found.
func (st *StringTable) Find(s string) (uint32, bool) {
	return st.findHashed(s, maphash.String(strSeed, s))
}

// findHashed is Find given s's hash h.
func (st *StringTable) findHashed(s string, h uint64) (uint32, bool) {
	if st.byOffset {
		return 0, s == ""
	}
	if st.base != nil {
		if off, ok := st.base.findHashed(s, h); ok {
			return off, true
		}
	} else if s == "" {
		return 0, true
	}
	st.index()
	for i := h & uint64(len(st.slots)-1); ; i = (i + 1) & uint64(len(st.slots)-1) {
		slot := st.slots[i]
		if slot == 0 {
			return 0, false
		}
		if st.equalAt(slot-1, s) {
			return st.start + slot - 1, true
		}
	}
}

// Add interns s and returns its offset. s must not contain a NUL byte.
func (st *StringTable) Add(s string) uint32 {
	h := maphash.String(strSeed, s) // once, for the lookup and the insertion
	if st.base != nil {
		if off, ok := st.base.findHashed(s, h); ok {
			return off
		}
	} else if s == "" {
		return 0
	}
	st.index()
	i, found := st.probeToAdd(s, h)
	if found {
		return st.start + st.slots[i] - 1
	}
	local := uint32(len(st.data))
	st.data = append(st.data, s...)
	st.data = append(st.data, 0)
	st.slots[i] = local + 1
	st.used++
	st.indexed = len(st.data)
	return st.start + local
}

// probeToAdd returns the slot holding s (whose hash is h) and true, or the
// empty slot where s belongs and false. One probe sequence thus serves both
// the lookup and the insertion that follows a miss, which then only fills
// the slot (and counts it in used). The set is grown first if one more entry
// would fill it beyond one half.
func (st *StringTable) probeToAdd(s string, h uint64) (int, bool) {
	if (st.used+1)*2 > len(st.slots) {
		st.grow()
	}
	mask := uint64(len(st.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		slot := st.slots[i]
		if slot == 0 {
			return int(i), false
		}
		if st.equalAt(slot-1, s) {
			return int(i), true
		}
	}
}

// AddBytes interns the string held in b (without its NUL terminator).
func (st *StringTable) AddBytes(b []byte) uint32 {
	if len(b) == 0 {
		return st.Add("")
	}
	return st.Add(unsafe.String(&b[0], len(b)))
}

// equalAt reports whether the NUL-terminated string at local offset pos is s.
func (st *StringTable) equalAt(pos uint32, s string) bool {
	end := int(pos) + len(s)
	return end < len(st.data) && st.data[end] == 0 && string(st.data[pos:end]) == s
}

// Index builds the table's lookup index (and its base's) now rather than at
// the first Add or Find, e.g. on a goroutine of its own while the table is
// not yet shared.
func (st *StringTable) Index() {
	if st.base != nil {
		st.base.Index()
	}
	if !st.byOffset {
		st.index()
	}
}

// index enters every string start not yet indexed into the hash set. A string
// start is position 0 and every position after a NUL.
func (st *StringTable) index() {
	if st.slots != nil && st.indexed == len(st.data) {
		return // nothing to do, and nothing written: see NewSharedStrings
	}
	if st.slots == nil {
		// Sized for strings of 16 bytes on average, to save most of the
		// growth steps on a decoded table.
		n := 64
		for n < len(st.data)/8 {
			n *= 2
		}
		st.slots = touched(n)
	}
	for pos := st.indexed; pos < len(st.data); {
		n := bytes.IndexByte(st.data[pos:], 0)
		if n < 0 {
			break // unterminated tail: not a string
		}
		s := unsafe.String(unsafe.SliceData(st.data[pos:]), n)
		if n > 0 || (st.base == nil && pos == 0) {
			// Only a string's first occurrence is entered, so that
			// lookups answer the lowest offset.
			if i, found := st.probeToAdd(s, maphash.String(strSeed, s)); !found {
				st.slots[i] = uint32(pos) + 1
				st.used++
			}
		}
		pos += n + 1
	}
	st.indexed = len(st.data)
}

func (st *StringTable) grow() {
	old := st.slots
	st.slots = touched(2 * len(old))
	mask := uint64(len(st.slots) - 1)
	for _, slot := range old {
		if slot == 0 {
			continue
		}
		pos := slot - 1
		n := bytes.IndexByte(st.data[pos:], 0)
		h := maphash.String(strSeed, unsafe.String(unsafe.SliceData(st.data[pos:]), n))
		i := h & mask
		for st.slots[i] != 0 {
			i = (i + 1) & mask
		}
		st.slots[i] = slot
	}
}

// Reset empties the table for reuse, keeping its storage. A base table keeps
// its empty string at offset 0.
func (st *StringTable) Reset() {
	if st.base == nil {
		st.data = append(st.data[:0], 0)
	} else {
		st.data = st.data[:0]
	}
	clear(st.slots)
	st.used = 0
	st.indexed = 0
}

// Clone returns a copy of the table with exactly-sized storage; its lookup
// index is rebuilt lazily if the copy is ever added to.
func (st *StringTable) Clone() *StringTable {
	return &StringTable{base: st.base, start: st.start, data: append([]byte(nil), st.data...)}
}

// touched returns n zero slots, written once when there are many: the
// probes read a slot before they fill it, and a fresh page read first is
// mapped to the shared zero page and faults again when written.
func touched(n int) []uint32 {
	s := make([]uint32, n)
	if n >= 16<<10 {
		clear(s)
	}
	return s
}
