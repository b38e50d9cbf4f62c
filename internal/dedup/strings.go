package dedup

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"

	"github.com/gobtf/gobtf/internal/btf"
)

// dedupStrings rewrites every string offset of the own types so that each
// distinct string has exactly one offset, in a fresh table nt.
//
// Established afterwards: two own string references are equal iff they name
// equal strings, so later passes compare names by offset. Offset 0 (the empty
// string) and offsets into a base string table are left alone; for split BTF,
// a split string that also occurs in the base is given the base's offset. The
// new table holds only strings that some type references, in the order of
// their first reference (types in ID order, within a type the name first,
// then member, value or parameter names), which is libbpf's order. Strings of
// types that later passes drop stay in the table, as with libbpf.
//
// Each old offset is translated once: string starts are marked in a bitmap
// with a rank index, giving every string of the old table a dense number
// whose translation is cached in a flat array. Offsets that point into the
// middle of a string go through a small hash table (oddTable). They are
// legal, and common where the linker merged string tails: a kernel's
// .debug_str, which conversion keeps (btf.NewSharedStrings), gives 3 M of
// the vmlinux's 8 M references, to 9 k distinct offsets.
func (d *deduper) dedupStrings(old, nt *btf.StringTable) error {
	m := newStrMap(old, nt, false)
	data, start, sx, newOff, odd := m.data, m.start, m.sx, m.newOff, &m.odd
	remap := func(p *uint32) error {
		n, err := m.translate(*p)
		*p = n
		return err
	}
	// known translates, without a call, an offset whose string starts at
	// a known place and has been met before: most references. (This loop
	// is on the critical path where the pass is not deferred.)
	known := func(p *uint32) bool {
		local := *p - start
		if *p < start || local >= uint32(len(data)) {
			return false
		}
		idx, ok := sx.index(local)
		if !ok || newOff[idx] == unprocessed {
			return false
		}
		*p = newOff[idx]
		return true
	}
	next := d.marks.next()
	for i := range d.offs {
		if i >= next {
			next = d.marks.reach(i, nt)
		}
		t := span(d.words, d.offs, i)
		if t[0] != 0 && !known(&t[0]) && !odd.translate(&t[0], start) {
			if err := remap(&t[0]); err != nil {
				return fmt.Errorf("type %d: %w", d.firstID+uint32(i), err)
			}
		}
		step := nameStep(btf.InfoKind(t[1]))
		if step == 0 {
			continue
		}
		for j := 3; j < len(t); j += step {
			if t[j] == 0 || known(&t[j]) || odd.translate(&t[j], start) {
				continue
			}
			if err := remap(&t[j]); err != nil {
				return fmt.Errorf("type %d: %w", d.firstID+uint32(i), err)
			}
		}
	}
	d.marks.reach(math.MaxInt, nt)
	return nil
}

// mapStrings is the string pass of the deferred mode (deferred.go): it
// enters the strings the own types name into nt as dedupStrings does, but
// leaves the type words alone and returns the translation, having recorded
// what stringsDistinct needs.
func (d *deduper) mapStrings(old, nt *btf.StringTable) (*strMap, error) {
	m := newStrMap(old, nt, true)
	if err := d.mapRange(m, 0, len(d.offs)); err != nil {
		return nil, err
	}
	d.marks.reach(math.MaxInt, nt)
	return m, nil
}

// mapRange is mapStrings for own types lo..hi-1 (by index), in order. It
// visits the names btf.Type.ForEachStrRef does, written out: without a
// call per name, and the common case (an offset already met, at a string's
// start or inside one) without calling translate: this loop is hot in a
// Stream beside a kernel's conversion, and each call per name showed in
// its CPU time.
func (d *deduper) mapRange(m *strMap, lo, hi int) error {
	// known marks old offset off as used by a compared name when mark is
	// set, and reports whether it has a translation already: a string
	// start through the index, any other offset through the odd table (a
	// mid-string one, as a kernel's merged .debug_str gives many, or in a
	// stream one past the index). It is a closure over the fields in
	// locals, not a method, and the index look-up (strIndex.index's) is
	// written out in it, so that it stays inline in this loop, which runs
	// once per name (docs/performance.md).
	start, size := m.start, uint32(len(m.data))
	starts, rank, newOff, marks := m.sx.starts, m.sx.rank, m.newOff, m.compared
	known := func(off uint32, mark bool) bool {
		local := off - start
		if off < start || local >= size {
			return false
		}
		if mark {
			marks[local>>6] |= 1 << (local & 63)
		}
		if w, b := local>>6, local&63; int(w) < len(starts) {
			if word := starts[w]; word>>b&1 != 0 {
				return newOff[int(rank[w])+bits.OnesCount64(word&(1<<b-1))] != unprocessed
			}
		}
		_, ok := m.odd.lookup(local)
		return ok
	}
	next := d.marks.next()
	for i := lo; i < hi; i++ {
		if i >= next {
			next = d.marks.reach(i, m.nt)
		}
		t := span(d.words, d.offs, i)
		k := btf.InfoKind(t[1])
		// VAR and DATASEC names are never compared (each such type is
		// its own representative).
		compared := k != btf.KindVar && k != btf.KindDatasec
		if t[0] != 0 && !known(t[0], compared) {
			if _, err := m.translate(t[0]); err != nil {
				return fmt.Errorf("type %d: %w", d.firstID+uint32(i), err)
			}
		}
		step := nameStep(k)
		if step == 0 {
			continue
		}
		for j := 3; j < len(t); j += step {
			if t[j] != 0 && !known(t[j], true) {
				if _, err := m.translate(t[j]); err != nil {
					return fmt.Errorf("type %d: %w", d.firstID+uint32(i), err)
				}
			}
		}
	}
	return nil
}

// nameStep returns the distance between the member, value or parameter
// names of a type of kind k, the first at word 3, or 0 for the kinds that
// have none (btf.Type.ForEachStrRef's layout).
func nameStep(k btf.Kind) int {
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum64:
		return 3
	case btf.KindEnum, btf.KindFuncProto:
		return 2
	}
	return 0
}

// strMap is the translation of the string pass, old offset -> new offset.
type strMap struct {
	nt     *btf.StringTable
	data   []byte // old's own bytes (in a stream, as far as they are known)
	start  uint32 // old's first own offset (after a base's)
	sx     *strIndex
	newOff []uint32 // by string number (sx), unprocessed until met
	odd    oddTable

	// In the deferred mode only (nil otherwise), compared marks, by local
	// old offset, the offsets that a compared name (see mapStrings) uses,
	// and dups lists the local old offsets whose string nt already held
	// when they were first translated: a second offset of one string, or a
	// non-zero offset of the empty string.
	compared []uint64
	dups     []uint32
}

// newStrMap returns an empty translation from old into nt, which records
// what stringsDistinct needs when deferred is set.
func newStrMap(old, nt *btf.StringTable, deferred bool) *strMap {
	return newStrMapOn(old.Bytes(), old.Start(), nt, deferred)
}

// newStrMapOn is newStrMap for an old table of own bytes data, from offset
// start on. Strings added to data later (grow) are translated too, through
// the odd table.
func newStrMapOn(data []byte, start uint32, nt *btf.StringTable, deferred bool) *strMap {
	m := &strMap{nt: nt, data: data, start: start, sx: newStrIndex(data)}
	m.newOff = make([]uint32, m.sx.count)
	for i := range m.newOff {
		m.newOff[i] = unprocessed
	}
	if deferred {
		m.compared = make([]uint64, len(data)/64+1)
	}
	return m
}

// grow extends the old table's known bytes to data, of which the bytes
// known so far are a prefix.
func (m *strMap) grow(data []byte) {
	m.data = data
	if m.compared != nil {
		for len(m.compared) < len(data)/64+1 {
			m.compared = append(m.compared, 0)
		}
	}
}

// stringAt returns the string at local old offset local, false when it is
// not terminated. It reads data, not the old table, which in a Stream keeps
// growing on another goroutine.
func (m *strMap) stringAt(local uint32) (string, bool) { return btf.CString(m.data[local:]) }

// translate returns the new offset of old offset off, entering its string
// into the new table the first time it is met.
func (m *strMap) translate(off uint32) (uint32, error) {
	if n, ok := m.lookup(off); ok {
		return n, nil
	}
	local := off - m.start
	if local >= uint32(len(m.data)) {
		return 0, fmt.Errorf("dedup: string offset %d out of range (string section ends at %d)", off, m.start+uint32(len(m.data)))
	}
	if idx, ok := m.sx.index(local); ok {
		s, _ := m.stringAt(local)
		n := m.add(s, local)
		m.newOff[idx] = n
		return n, nil
	}
	slot := m.odd.slot(local)
	s, ok := m.stringAt(local)
	if !ok {
		return 0, fmt.Errorf("dedup: string at offset %d is not terminated", off)
	}
	n := m.add(s, local)
	m.odd.put(slot, local, n)
	return n, nil
}

// add enters s, first met at local old offset local, into the new table.
func (m *strMap) add(s string, local uint32) uint32 {
	if m.compared == nil {
		return m.nt.Add(s)
	}
	before := m.nt.Len()
	n := m.nt.Add(s)
	if m.nt.Len() == before {
		m.dups = append(m.dups, local)
	}
	return n
}

// lookup returns the new offset of an old offset that translate has seen.
func (m *strMap) lookup(off uint32) (uint32, bool) {
	if off == 0 || off < m.start {
		return off, true
	}
	local := off - m.start
	if local >= uint32(len(m.data)) {
		return 0, false
	}
	if idx, ok := m.sx.index(local); ok {
		n := m.newOff[idx]
		return n, n != unprocessed
	}
	return m.odd.lookup(local)
}

// strIndex numbers the strings of a string section: bit p of starts is set
// when a string begins at byte p, and rank[w] counts the set bits in the
// words before w, so a start's number is found in O(1).
type strIndex struct {
	starts []uint64
	rank   []uint32
	count  int
}

func newStrIndex(data []byte) *strIndex {
	n := len(data)
	sx := &strIndex{starts: make([]uint64, n/64+1), rank: make([]uint32, n/64+1)}
	for p := 0; p < n; {
		sx.starts[p>>6] |= 1 << (p & 63)
		z := bytes.IndexByte(data[p:], 0)
		if z < 0 {
			break
		}
		p += z + 1
	}
	c := 0
	for w, b := range sx.starts {
		sx.rank[w] = uint32(c)
		c += bits.OnesCount64(b)
	}
	sx.count = c
	return sx
}

// index returns the number of the string starting at local offset p, and
// false if no string starts there.
func (sx *strIndex) index(p uint32) (int, bool) {
	w, b := p>>6, p&63
	if int(w) >= len(sx.starts) {
		return 0, false // in a stream: added after the index was made
	}
	word := sx.starts[w]
	if word>>b&1 == 0 {
		return 0, false
	}
	return int(sx.rank[w]) + bits.OnesCount64(word&(1<<b-1)), true
}

// oddTable maps the local offsets of mid-string references to their new
// offsets: open addressing, keys stored plus one (0 marks a free slot),
// at most half full.
type oddTable struct {
	keys, vals []uint32
	used       int
}

// slot returns the slot holding local, or the free slot where it belongs.
func (t *oddTable) slot(local uint32) int {
	if t.keys == nil {
		t.keys, t.vals = make([]uint32, 1024), make([]uint32, 1024)
	}
	mask := uint32(len(t.keys) - 1)
	i := (local * 0x9e3779b1) & mask
	for t.keys[i] != 0 && t.keys[i] != local+1 {
		i = (i + 1) & mask
	}
	return int(i)
}

// lookup returns the new offset of local, if the table holds it.
func (t *oddTable) lookup(local uint32) (uint32, bool) {
	if t.used == 0 {
		return 0, false
	}
	i := t.slot(local)
	return t.vals[i], t.keys[i] != 0
}

// translate replaces the offset *p, when the table holds its local offset
// (*p - start), by its new offset, and reports whether it did. It is how
// known mid-string references are answered without a call to remap.
func (t *oddTable) translate(p *uint32, start uint32) bool {
	if t.used == 0 || *p < start {
		return false
	}
	i := t.slot(*p - start)
	if t.keys[i] == 0 {
		return false
	}
	*p = t.vals[i]
	return true
}

// put stores local -> n in the free slot that slot returned for local.
func (t *oddTable) put(slot int, local, n uint32) {
	t.keys[slot], t.vals[slot] = local+1, n
	t.used++
	if 2*t.used > len(t.keys) {
		keys, vals := t.keys, t.vals
		t.keys, t.vals = make([]uint32, 2*len(keys)), make([]uint32, 2*len(keys))
		for i, k := range keys {
			if k != 0 {
				j := t.slot(k - 1)
				t.keys[j], t.vals[j] = k, vals[i]
			}
		}
	}
}
