package cdump

import (
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
	tags, idents map[string]uint32 // uses of each name so far
	dup          []uint32          // by type ID: 0 unresolved, else its number
}

// init sizes the name spaces for up to tags and idents names and count IDs.
func (n *names) init(tags, idents, count int) {
	n.tags = make(map[string]uint32, tags)
	n.idents = make(map[string]uint32, idents)
	n.dup = make([]uint32, count)
}

// count records one more use of name in space m and returns the use's number.
func count(m map[string]uint32, name string) uint32 {
	c := m[name] + 1
	m[name] = c
	return c
}

// appendTypeName appends the tag name of struct, union, enum, FWD or INT id.
func (p *printer) appendTypeName(dst []byte, id btf.TypeID) []byte {
	return p.appendResolved(dst, id, p.tags)
}

// appendIdentName appends the identifier of typedef id.
func (p *printer) appendIdentName(dst []byte, id btf.TypeID) []byte {
	return p.appendResolved(dst, id, p.idents)
}

// resolveTypeName fixes id's tag name number without printing it.
func (p *printer) resolveTypeName(id btf.TypeID) string {
	if p.typ(id).NameOff() == 0 {
		return ""
	}
	p.resolve(id, p.tags)
	return p.str(p.typ(id).NameOff())
}

func (p *printer) resolve(id btf.TypeID, m map[string]uint32) uint32 {
	if d := p.dup[id]; d != 0 {
		return d
	}
	t := p.typ(id)
	d := uint32(1)
	if !(t.Kind() == btf.KindFwd || t.Kind() == btf.KindEnum && t.Vlen() == 0) {
		d = count(m, p.str(t.NameOff()))
	}
	p.dup[id] = d
	return d
}

// maxRenamed is the longest name with a "___N" suffix libbpf prints.
const maxRenamed = 255

func (p *printer) appendResolved(dst []byte, id btf.TypeID, m map[string]uint32) []byte {
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
