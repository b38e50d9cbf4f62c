package dwarf2btf

import "github.com/gobtf/gobtf/internal/btf"

// gcc's btf_type_tag and btf_decl_tag annotations (gcc 16 and later).
//
// clang writes an annotation as a DW_TAG_LLVM_annotation child of what it
// annotates, which the walk meets right there. gcc writes each as a
// DW_TAG_GNU_annotation entry of its own, anywhere in the unit, and the
// annotated entry names the first with DW_AT_GNU_annotation; an annotation
// names the next the same way. As pahole (dwarves since June 2026) reads
// them:
//
//   - On a pointer, the chain's btf_type_tag entries, up to the first entry
//     that is not one, become TYPE_TAGs in chain order from the pointer:
//     PTR -> first -> second -> ... -> the pointee. Each pointer gets TYPE_TAGs
//     of its own, numbered just before it, even where two pointers share
//     annotation entries (deduplication merges the copies).
//   - On a struct or union and on a member, the chain's btf_decl_tag
//     entries become DECL_TAGs (other entries are passed over), after the
//     unit's types: struct by struct in the order of their IDs (a struct
//     nested in another comes first), for each its members' in member
//     order, then its own.
//   - Nothing else is read here: not typedefs, variables or enumerations
//     (package funcs reads those of functions and their parameters).
//
// A chain may lead to entries later in the unit, so the annotations are
// resolved once the unit is read: a pointer holds its place in the
// emission order with a marker (a negative index into the pointers), which
// resolveGNUAnnotations replaces by its TYPE_TAGs and itself. A chain that
// loops (corrupt input) ends when it has visited as many entries as the
// unit has.
type gnuAnnotations struct {
	annots   map[uint64]gnuAnnot // by DIE offset; nil until the unit has one
	pointers []gnuPointer
	decls    []gnuDecl
	// members holds, by struct DIE offset, the annotated members of
	// structs not yet closed; nil until the unit has one.
	members map[uint64][]gnuDecl
}

// gnuAnnot is one DW_TAG_GNU_annotation entry.
type gnuAnnot struct {
	name, value string // DW_AT_name and DW_AT_const_value
	next        uint64 // its DW_AT_GNU_annotation, 0 if none
}

// gnuPointer is a pointer whose DW_AT_GNU_annotation is first.
type gnuPointer struct {
	rec   int
	first uint64
}

// gnuDecl is a struct, union or member whose DW_AT_GNU_annotation is first:
// target is the struct's DIE offset, component the member's index or -1.
type gnuDecl struct {
	target    uint64
	component int32
	first     uint64
}

// tagOffBase marks the offsets of the TYPE_TAG records made from gcc's
// annotations: they have no DIE of their own (an entry can serve several
// pointers), so each gets an offset no DIE has, for the record index.
const tagOffBase = 1 << 63

func (g *gnuAnnotations) reset() {
	if g.annots != nil {
		clear(g.annots)
	}
	g.pointers, g.decls, g.members = g.pointers[:0], g.decls[:0], nil
}

// addAnnotation records annotation entry d.
func (g *gnuAnnotations) addAnnotation(d *digest) {
	if g.annots == nil {
		g.annots = make(map[uint64]gnuAnnot)
	}
	g.annots[d.off] = gnuAnnot{name: d.nm(), value: d.constString, next: d.gnuAnnot}
}

// pointer records pointer record rec, annotated from first, and returns the
// marker that holds its place in the emission order.
func (g *gnuAnnotations) pointer(rec int, first uint64) int32 {
	g.pointers = append(g.pointers, gnuPointer{rec: rec, first: first})
	return ^int32(len(g.pointers) - 1)
}

// decl records the annotations from first of the struct at DIE offset
// target (component -1) or of its member component.
func (g *gnuAnnotations) decl(target uint64, component int32, first uint64) {
	g.decls = append(g.decls, gnuDecl{target: target, component: component, first: first})
}

// member records the annotations from first of member component of the
// struct at DIE offset target, which is not closed yet.
func (g *gnuAnnotations) member(target uint64, component int32, first uint64) {
	if g.members == nil {
		g.members = make(map[uint64][]gnuDecl)
	}
	g.members[target] = append(g.members[target], gnuDecl{target: target, component: component, first: first})
}

// closeStruct records, as the struct at DIE offset target is closed (when
// it gets its place in the emission order), its members' annotations and
// then its own, from first (0: none).
func (g *gnuAnnotations) closeStruct(target, first uint64) {
	if ms, ok := g.members[target]; ok {
		g.decls = append(g.decls, ms...)
		delete(g.members, target)
	}
	if first != 0 {
		g.decl(target, -1, first)
	}
}

// chain calls fn with each annotation entry of the chain from off, in
// order, until fn returns false, the chain leads to an entry that is no
// annotation, or it has visited as many entries as there are.
func (g *gnuAnnotations) chain(off uint64, fn func(a *gnuAnnot) bool) {
	for n := 0; off != 0 && n < len(g.annots); n++ {
		a, ok := g.annots[off]
		if !ok || !fn(&a) {
			return
		}
		off = a.next
	}
}

// addPointer records d, a pointer without children: numbered in place,
// unless gcc annotated it with type tags, which it is then numbered after
// once they are read. (Out of visitType, whose hot calls the
// profile-guided build finds by their lines.)
func (c *cuTypes) addPointer(d *digest) {
	if d.gnuAnnot != 0 && c.opts.Features.TypeTag {
		i := c.addUnordered(d, btf.KindPtr)
		c.order = append(grow(c.order, 1), c.gnu.pointer(i, d.gnuAnnot))
		return
	}
	c.add(d, btf.KindPtr)
}

// addChildless records d, a struct or union of kind k without members, and
// its annotations (a struct with members has them recorded as it closes).
func (c *cuTypes) addChildless(d *digest, k btf.Kind) int {
	i := c.add(d, k)
	if d.gnuAnnot != 0 {
		c.gnu.decl(d.off, -1, d.gnuAnnot)
	}
	return i
}

// countMember counts member d of the struct of frame parent, and records
// its annotations.
func (c *cuTypes) countMember(parent *frame, d *digest) {
	parent.members++
	if d.gnuAnnot != 0 {
		c.gnu.member(c.recs[parent.rec].off, int32(parent.members-1), d.gnuAnnot)
	}
}

// resolveGNUAnnotations turns the unit's gcc annotations into TYPE_TAG
// records and DECL_TAGs (see gnuAnnotations), once the unit is read.
func (c *cuTypes) resolveGNUAnnotations() {
	g := &c.gnu
	if len(g.pointers) > 0 {
		order := make([]int32, 0, len(c.order)+2*len(g.pointers))
		var tags []int
		for _, i := range c.order {
			if i >= 0 {
				order = append(order, i)
				continue
			}
			p := g.pointers[^i]
			tags = tags[:0]
			g.chain(p.first, func(a *gnuAnnot) bool {
				if a.name != "btf_type_tag" {
					return false
				}
				c.recs = append(grow(c.recs, 1), typeRec{})
				j := len(c.recs) - 1
				r := &c.recs[j]
				r.off, r.kind, r.name = tagOffBase|uint64(j), btf.KindTypeTag, c.str(a.value)
				c.recIndex.put(r.off, int32(j))
				tags = append(tags, j)
				return true
			})
			if len(tags) > 0 {
				ptr := &c.recs[p.rec]
				for k := 0; k+1 < len(tags); k++ {
					c.recs[tags[k]].ref = c.recs[tags[k+1]].off
				}
				c.recs[tags[len(tags)-1]].ref = ptr.ref
				ptr.ref = c.recs[tags[0]].off
				for _, j := range tags {
					order = append(order, int32(j))
				}
			}
			order = append(order, int32(p.rec))
		}
		c.order = order
	}
	if c.opts.Features.DeclTag {
		for _, d := range g.decls {
			g.chain(d.first, func(a *gnuAnnot) bool {
				if a.name == "btf_decl_tag" {
					c.declTags = append(c.declTags, declTagRec{target: d.target, component: d.component, value: c.str(a.value)})
				}
				return true
			})
		}
	}
}
