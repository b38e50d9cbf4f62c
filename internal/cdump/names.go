package cdump

import (
	"hash/maphash"
	"strconv"

	"github.com/gobtf/gobtf/internal/btf"
)

// names gives each named type the name it is printed with. C has two name
// spaces that matter here: struct, union and enum tags, and ordinary
// identifiers (typedef names and enum values). The first type to use a name
// in its space keeps it; the Nth gets "name___N". A type's number is fixed
// the first time the type is printed, so the numbering follows the order of
// first mention in the header, as in libbpf. Forward declarations and enums
// without values never take a number: they may repeat their name freely.
type names struct {
	tags, idents nameSpace
	dup          []uint32 // by type ID: 0 unresolved, else its number
}

// init sizes the name spaces for up to tags and idents names and count IDs.
func (n *names) init(strs *btf.StringTable, tags, idents, count int) {
	n.tags.init(strs, tags)
	n.idents.init(strs, idents)
	n.dup = make([]uint32, count)
}

// nameSpace counts the uses of each name: an open-addressing hash table of
// (string offset, count) pairs keyed by the string at the offset. BTF
// writers store each string once, so a name met again usually comes with
// the same offset and is matched without comparing bytes; equal strings at
// different offsets still match through the comparison.
type nameSpace struct {
	slots []nameSlot // a power of two, at most half full
	used  int
	strs  *btf.StringTable
	seed  maphash.Seed
}

type nameSlot struct {
	off1  uint32 // string offset + 1; 0 for an empty slot
	count uint32
}

func (ns *nameSpace) init(strs *btf.StringTable, n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	ns.slots = make([]nameSlot, size)
	ns.strs, ns.seed, ns.used = strs, maphash.MakeSeed(), 0
}

// count records one more use of the name at string offset off and returns
// the use's number (1 for the first).
func (ns *nameSpace) count(off uint32) uint32 {
	if 2*(ns.used+1) > len(ns.slots) {
		ns.grow()
	}
	name := ns.str(off)
	mask := uint64(len(ns.slots) - 1)
	for i := maphash.String(ns.seed, name) & mask; ; i = (i + 1) & mask {
		sl := &ns.slots[i]
		if sl.off1 == 0 {
			*sl = nameSlot{off + 1, 1}
			ns.used++
			return 1
		}
		if sl.off1-1 == off || ns.str(sl.off1-1) == name {
			sl.count++
			return sl.count
		}
	}
}

func (ns *nameSpace) str(off uint32) string {
	s, ok := ns.strs.Lookup(off)
	if !ok {
		return "(null)"
	}
	return s
}

// grow doubles the table and reinserts its names.
func (ns *nameSpace) grow() {
	old := ns.slots
	ns.slots = make([]nameSlot, 2*len(old))
	mask := uint64(len(ns.slots) - 1)
	for _, sl := range old {
		if sl.off1 == 0 {
			continue
		}
		i := maphash.String(ns.seed, ns.str(sl.off1-1)) & mask
		for ns.slots[i].off1 != 0 {
			i = (i + 1) & mask
		}
		ns.slots[i] = sl
	}
}

// appendTypeName appends the tag name of struct, union, enum, FWD or INT id.
func (p *printer) appendTypeName(dst []byte, id btf.TypeID) []byte {
	return p.appendResolved(dst, id, &p.tags)
}

// appendIdentName appends the identifier of typedef id.
func (p *printer) appendIdentName(dst []byte, id btf.TypeID) []byte {
	return p.appendResolved(dst, id, &p.idents)
}

// resolveTypeName fixes id's tag name number without printing it.
func (p *printer) resolveTypeName(id btf.TypeID) string {
	if p.typ(id).NameOff() == 0 {
		return ""
	}
	p.resolve(id, &p.tags)
	return p.str(p.typ(id).NameOff())
}

func (p *printer) resolve(id btf.TypeID, m *nameSpace) uint32 {
	if d := p.dup[id]; d != 0 {
		return d
	}
	t := p.typ(id)
	d := uint32(1)
	if !(t.Kind() == btf.KindFwd || t.Kind() == btf.KindEnum && t.Vlen() == 0) {
		d = m.count(t.NameOff())
	}
	p.dup[id] = d
	return d
}

// maxRenamed is the longest name with a "___N" suffix libbpf prints.
const maxRenamed = 255

func (p *printer) appendResolved(dst []byte, id btf.TypeID, m *nameSpace) []byte {
	t := p.typ(id)
	if t.NameOff() == 0 {
		return dst
	}
	d := p.resolve(id, m)
	if d == 1 {
		return append(dst, p.str(t.NameOff())...)
	}
	// A renamed name is cut to 255 bytes, the buffer libbpf builds it in.
	start := len(dst)
	dst = append(dst, p.str(t.NameOff())...)
	dst = append(dst, "___"...)
	dst = strconv.AppendUint(dst, uint64(d), 10)
	if len(dst)-start > maxRenamed {
		dst = dst[:start+maxRenamed]
	}
	return dst
}
