package dwarf2btf

import (
	"fmt"
	"math"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf/die"
)

// DWARF can describe what BTF cannot hold, and hostile or corrupt DWARF can
// describe what no compiler emits. A unit that does either is rejected with
// a die.DecodeError naming the offending DIE's offset in .debug_info, instead
// of being written as BTF that is malformed (a vlen silently truncated to 16
// bits), wrong (an element count truncated to 32 bits) or refused by every
// kernel (a loop of reference types, an over-long name).

// limitErrorf records the first limit a unit breaks, at DIE offset off.
func (c *cuTypes) limitErrorf(off uint64, format string, args ...any) {
	if c.limitErr == nil {
		c.limitErr = &die.DecodeError{Section: ".debug_info", Offset: off, Err: fmt.Errorf(format, args...)}
	}
}

// checkName rejects a name longer than the kernel's BTF name limit. Names
// are read lazily (most DIEs' names are never needed), so the check runs
// when a name is interned, which visit does for the DIE at c.curOff.
func (c *cuTypes) checkName(s string) {
	if len(s) > btf.KernelMaxNameLen {
		c.limitErrorf(c.curOff, "name of %d bytes, longer than the kernel's BTF limit of %d", len(s), btf.KernelMaxNameLen)
	}
}

// mulElems multiplies an array's element count by one dimension of n
// elements, rejecting counts that do not fit BTF's 32 bits.
func (c *cuTypes) mulElems(d *digest, r *typeRec, n uint64) {
	if n > math.MaxUint32 {
		c.limitErrorf(d.off, "array dimension of %d elements, more than BTF's 32-bit element count holds", n)
		return
	}
	p := uint64(r.nelems) * n
	if p > math.MaxUint32 {
		c.limitErrorf(d.off, "array of %d elements, more than BTF's 32-bit element count holds", p)
		return
	}
	r.nelems = uint32(p)
}

// check runs after a unit's walk: it returns the first limit broken during
// the walk, then rejects types with more members, enumerators or parameters
// than a BTF vlen holds, and chains of DW_AT_type references that loop back
// on themselves without passing through a structure, union, enumeration or
// function prototype (typedef a -> typedef b -> a; a pointer to itself),
// which no C type can be and BTF consumers refuse.
func (c *cuTypes) check() error {
	if c.limitErr != nil {
		return c.limitErr
	}
	for i := range c.recs {
		r := &c.recs[i]
		n := uint64(r.n)
		if r.vararg {
			n++
		}
		switch r.kind {
		case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFuncProto:
			if n > btf.MaxEncodedVlen {
				return &die.DecodeError{Section: ".debug_info", Offset: r.off,
					Err: fmt.Errorf("%v with %d members, more than BTF's limit of %d", r.kind, n, btf.MaxEncodedVlen)}
			}
		}
	}
	return c.checkCycles()
}

// chainKind reports whether references pass through a record of kind k
// without reaching a type that ends a chain (the kinds that may legally be
// part of a reference cycle are STRUCT, UNION, FUNC_PROTO and the like).
func chainKind(k btf.Kind) bool {
	switch k {
	case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef, btf.KindTypeTag,
		btf.KindArray, recSkip:
		return true
	}
	return false
}

// checkCycles follows every chain of reference-like records once (records
// are marked as they are left behind), so it costs one pass over the unit.
func (c *cuTypes) checkCycles() error {
	const (
		unseen = iota
		onPath
		done
	)
	state := c.cycleState[:0]
	state = append(state, make([]uint8, len(c.recs))...)
	c.cycleState = state
	path := c.cyclePath[:0]
	defer func() { c.cyclePath = path[:0] }()
	for start := range c.recs {
		if state[start] != unseen || !chainKind(c.recs[start].kind) {
			continue
		}
		path = path[:0]
		i := start
		for {
			state[i] = onPath
			path = append(path, i)
			j, ok := c.find(c.recs[i].ref)
			if c.recs[i].ref == 0 || !ok || !chainKind(c.recs[j].kind) || state[j] == done {
				break
			}
			if state[j] == onPath {
				return &die.DecodeError{Section: ".debug_info", Offset: c.recs[j].off,
					Err: fmt.Errorf("DW_AT_type chain of %d type DIEs loops back to this one without passing through a structure, union or function", len(path)-indexOf(path, j))}
			}
			i = j
		}
		for _, k := range path {
			state[k] = done
		}
	}
	return nil
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
