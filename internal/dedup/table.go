package dedup

import (
	"math/bits"
	"slices"

	"github.com/gobtf/gobtf/internal/hugemem"
)

// candTable maps a type's 64-bit signature hash to the list of canonical
// candidates with exactly that hash. Hash collisions between unrelated types
// are harmless: every candidate is checked by an exact comparison.
//
// Storage is flat: an open-addressing index of keys whose slots point into
// entry arrays (entID, entNext) that form one singly linked list per key.
//
// A slot of the index holds its key, list head and growth count together:
// a lookup reads all three, and on a kernel the index (4 MB) is mostly out
// of the cache, so one line per probe instead of three.
//
// Order of candidates. libbpf keeps its candidates in a chained hashmap
// (src/hashmap.c): an entry is pushed on the front of its bucket's chain, and
// whenever the map grows every chain is rebuilt by pushing its entries, front
// to back, onto new chains, which reverses the relative order of the entries
// of one key. Which candidate libbpf tries first therefore depends on how
// many times its map grew between insertions. When several candidates would
// match (possible for enums and for structs with forward declarations), the
// first one wins, so to produce libbpf's exact output this table reproduces
// that order: it counts libbpf's growth steps (the map starts with 4 buckets,
// doubles, and grows before an insertion that would fill it beyond 3/4) and
// reverses a key's list lazily, when the key is next used after an odd
// number of growth steps.
type candTable struct {
	slots []slot
	shift uint // 64 - log2(len(slots))
	used  int

	entID   []uint32
	entNext []uint32 // entry index + 1 of the next entry; 0 ends the list

	// Emulated libbpf hashmap size, capacity and growth count.
	libSize, libCap int
	grows           uint32
}

// slot is one slot of a candTable's index.
type slot struct {
	key  uint64
	head uint32 // entry index + 1 of the list's first entry; 0: empty slot
	gen  uint32 // growth count at which the slot's list order was last fixed
}

func (t *candTable) init() {
	t.slots = make([]slot, 1024)
	t.shift = 64 - 10
	t.used = 0
	t.entID = t.entID[:0]
	t.entNext = t.entNext[:0]
	t.libSize, t.libCap, t.grows = 0, 0, 0
}

// slotOf returns the slot holding key h, or the empty slot where it belongs.
func (t *candTable) slotOf(h uint64) int {
	mask := len(t.slots) - 1
	i := int((h * 0x9e3779b97f4a7c15) >> t.shift)
	for t.slots[i].head != 0 && t.slots[i].key != h {
		i = (i + 1) & mask
	}
	return i
}

// first returns the first entry (index + 1) of h's candidate list, 0 if none.
// Walk the list with t.entNext and read candidates from t.entID.
func (t *candTable) first(h uint64) uint32 {
	i := t.slotOf(h)
	if t.slots[i].head == 0 {
		return 0
	}
	t.fixOrder(i)
	return t.slots[i].head
}

// fixOrder applies to slot i's list the reversals of the libbpf growth steps
// that happened since it was last used.
func (t *candTable) fixOrder(i int) {
	sl := &t.slots[i]
	if (t.grows-sl.gen)&1 != 0 {
		var prev uint32
		for e := sl.head; e != 0; {
			next := t.entNext[e-1]
			t.entNext[e-1] = prev
			prev = e
			e = next
		}
		sl.head = prev
	}
	sl.gen = t.grows
}

// add appends type id as a candidate for hash h.
func (t *candTable) add(h uint64, id uint32) {
	// libbpf: grow if empty or more than 75% filled, before inserting.
	if t.libCap == 0 || (t.libSize+1)*4/3 > t.libCap {
		t.libCap = max(4, 2*t.libCap)
		t.grows++
	}
	t.libSize++

	if (t.used+1)*2 > len(t.slots) {
		t.rehash()
	}
	i := t.slotOf(h)
	if t.slots[i].head == 0 {
		t.slots[i].key = h
		t.slots[i].gen = t.grows
		t.used++
	} else {
		t.fixOrder(i)
	}
	t.entID = append(t.entID, id)
	t.entNext = append(t.entNext, t.slots[i].head)
	t.slots[i].head = uint32(len(t.entID))
}

// clone returns a copy of t that shares no storage with it.
func (t *candTable) clone() candTable {
	c := *t
	c.slots = slices.Clone(t.slots)
	c.entID, c.entNext = slices.Clone(t.entID), slices.Clone(t.entNext)
	return c
}

// reserve grows the index, ahead of time, to hold n more keys without a
// rehash. Only the index is sized: the emulated libbpf growth is untouched.
// The index grows once, to its final size: doubling step by step would
// allocate (and clear) twice the memory.
func (t *candTable) reserve(n int) {
	size := len(t.slots)
	for (t.used+n)*2 > size {
		size *= 2
	}
	if size != len(t.slots) {
		t.resize(size)
	}
	t.entID = slices.Grow(t.entID, n)
	t.entNext = slices.Grow(t.entNext, n)
}

// rehash doubles the index.
func (t *candTable) rehash() { t.resize(2 * len(t.slots)) }

// resize moves the index to n slots (a power of two, more than twice the
// keys held); lists and their pending reversals move as they are.
func (t *candTable) resize(n int) {
	old := t.slots
	// Faulted in before the probes read it (see hugemem.MakeTouched):
	// probes into fresh pages would fault once per page, where one
	// madvise populates them all.
	t.slots = hugemem.MakeTouched[slot](n)
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
	for _, sl := range old {
		if sl.head != 0 {
			t.slots[t.slotOf(sl.key)] = sl
		}
	}
}
