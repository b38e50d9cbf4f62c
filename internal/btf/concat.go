package btf

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// Concat joins standalone Specs (typically one per compilation unit) into one
// standalone Spec, in order: the types of parts[0] keep their IDs, those of
// parts[1] follow, and so on.
//
// Every non-void type ID of part k is shifted by the number of types in the
// parts before it, and every non-zero string offset by the number of string
// bytes before it, because each part's string bytes (less its leading empty
// string) are appended as they are. Strings are therefore not interned across
// parts: the same name may appear once per part. Deduplication's string pass
// removes those copies later; doing it here would hash every string twice.
//
// The result does not depend on how many goroutines do the copying: each
// part's slice of the output is fixed before any copying starts. A split
// part is an error.
func Concat(parts []*Spec) (*Spec, error) {
	type layout struct{ typ, word, str uint32 }
	at := make([]layout, len(parts)+1)
	strs := 1 // the shared leading empty string
	for i, p := range parts {
		if p.base != nil {
			return nil, fmt.Errorf("btf: Concat of a split Spec (part %d)", i)
		}
		at[i+1] = layout{
			typ:  at[i].typ + uint32(len(p.offs)),
			word: at[i].word + uint32(len(p.words)),
			str:  at[i].str + uint32(max(len(p.strs.data)-1, 0)),
		}
	}
	strs += int(at[len(parts)].str)

	out := NewSpec(nil)
	out.words = make([]uint32, at[len(parts)].word)
	out.offs = make([]uint32, at[len(parts)].typ)
	data := make([]byte, strs)

	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(parts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				p, l := parts[i], at[i]
				copyShifted(out.words[l.word:at[i+1].word], out.offs[l.typ:at[i+1].typ], p, l.typ, l.word, l.str)
				if len(p.strs.data) > 1 {
					copy(data[1+l.str:], p.strs.data[1:])
				}
			}
		}()
	}
	for i := range parts {
		work <- i
	}
	close(work)
	wg.Wait()
	out.strs = newStringTableFrom(nil, data)
	return out, nil
}

// copyShifted copies p's types into words and their start indexes into offs,
// adding idShift to every non-void type ID, wordShift to every start index and
// strShift to every non-zero string offset.
func copyShifted(words, offs []uint32, p *Spec, idShift, wordShift, strShift uint32) {
	copy(words, p.words)
	for i, o := range p.offs {
		offs[i] = o + wordShift
	}
	shiftRefs(words, p.offs, idShift, strShift) // p.offs index words, a window of p's types
}

// shiftRefs adds idShift to every non-void type ID and strShift to every
// non-zero string offset of the types in words whose start indexes are offs.
func shiftRefs(words, offs []uint32, idShift, strShift uint32) {
	f := refFix{shift: idShift, strShift: strShift}
	for i := range offs {
		end := uint32(len(words))
		if i+1 < len(offs) {
			end = offs[i+1]
		}
		f.fix(Type(words[offs[i]:end:end]))
	}
}

// Rebase turns a standalone Spec into a split Spec on base: every non-void
// type ID moves up by base.TypeCount() and every non-zero string offset by
// base's string length (less the shared empty string), which is how a
// module's freshly converted types become split BTF before deduplication
// against the base. s is not modified; a split s is an error.
func Rebase(s *Spec, base *Spec) (*Spec, error) {
	if s.base != nil {
		return nil, errRebaseSplit
	}
	out := NewSpec(base)
	out.words = make([]uint32, len(s.words))
	out.offs = make([]uint32, len(s.offs))
	strShift := base.strs.Len() - 1
	copyShifted(out.words, out.offs, s, base.TypeCount(), 0, strShift)
	data := []byte{}
	if len(s.strs.data) > 1 {
		data = append(data, s.strs.data[1:]...)
	}
	out.strs = newStringTableFrom(base.strs, data)
	return out, nil
}

// errRebaseSplit is Rebase's error for a Spec split already.
var errRebaseSplit = errors.New("btf: Rebase of a split Spec")

// RebaseInPlace is Rebase without copying: the result takes over s's
// storage, and s must not be used afterwards (but after an error, when s
// is unchanged).
func RebaseInPlace(s *Spec, base *Spec) (*Spec, error) {
	if s.base != nil {
		return nil, errRebaseSplit
	}
	out := NewSpec(base)
	out.words, out.offs = s.words, s.offs
	shiftRefs(out.words, out.offs, base.TypeCount(), base.strs.Len()-1)
	var data []byte
	if len(s.strs.data) > 1 {
		data = s.strs.data[1:]
	}
	out.strs = newStringTableFrom(base.strs, data)
	*s = Spec{}
	return out, nil
}

// AppendSpec appends every type of part (a standalone Spec) to s (also
// standalone), interning part's strings into s's table, and returns the
// amount by which part's type IDs were shifted. Unlike Concat, strings
// shared between parts are stored once; a converter that merges its
// compilation units in order as they finish uses it, so the joined output is
// the same whatever order the units finished in.
//
// Every string offset of part's own strings must be that of a whole string
// (the start of one), as a table's Add gives them. Split Specs are an
// error, and so is a part on a shared table s's does not start with;
// neither changes s.
//
// part's string table may be a split table on a shared table (see
// NewSharedStrings) of which s's table is a copy (CopyShared): offsets into
// the shared part are then kept as they are, and only part's own strings are
// interned. Or on a table made by NewSectionStrings: the strings part names
// by an offset into it are then interned into s's table too.
func (s *Spec) AppendSpec(part *Spec) (TypeID, error) {
	if s.base != nil || part.base != nil {
		return 0, errors.New("btf: AppendSpec with split Specs")
	}
	shift := s.TypeCount()
	data := part.strs.data
	start := part.strs.start
	if part.strs.base != nil && !part.strs.base.byOffset && start > s.strs.Len() {
		return 0, errors.New("btf: AppendSpec of a part whose shared strings the Spec does not start with")
	}
	if cap(s.remap) < len(data) {
		s.remap = make([]uint32, len(data))
	}
	remap := s.remap[:len(data)]
	pos := 1 // a standalone table starts with the empty string
	if part.strs.base != nil {
		pos = 0
	}
	for pos < len(data) {
		n := bytes.IndexByte(data[pos:], 0)
		if n < 0 {
			break
		}
		remap[pos] = s.strs.AddBytes(data[pos : pos+n])
		pos += n + 1
	}
	wordShift := uint32(len(s.words))
	s.words = append(s.words, part.words...)
	n := len(s.offs)
	s.offs = slices.Grow(s.offs, len(part.offs))[:n+len(part.offs)]
	for i, o := range part.offs {
		s.offs[n+i] = o + wordShift
	}
	f := refFix{shift: uint32(shift), start: start, remap: remap}
	if b := part.strs.base; b != nil && b.byOffset {
		s.internSection(b, start, remap, len(s.offs)-len(part.offs))
		f.start, f.remap = ^uint32(0), remap[:0] // the strings are done
	}
	for i := len(s.offs) - len(part.offs); i < len(s.offs); i++ {
		f.fix(s.typeAt(i))
	}
	return shift, nil
}

// internSection rewrites the string offsets of s's types from index first
// on, appended from a part whose table is a split table on sec, a
// NewSectionStrings table: the part's own strings (at or above start)
// through remap, and those it names by an offset into sec by interning
// them. It is a pass of its own, kept out of refFix.str, which the join of
// a kernel's units calls 25 M times and must stay small enough to inline;
// a module's join calls it a few hundred thousand times.
func (s *Spec) internSection(sec *StringTable, start uint32, remap []uint32, first int) {
	fix := func(w *uint32) {
		switch v := *w; {
		case v == 0:
		case v >= start:
			if v-start < uint32(len(remap)) {
				*w = remap[v-start]
			}
		default:
			if str, ok := sec.Lookup(v); ok {
				*w = s.strs.Add(str)
			}
		}
	}
	for i := first; i < len(s.offs); i++ {
		s.typeAt(i).ForEachStrRef(fix)
	}
}

// refFix moves the references of a type appended to or rebased in a Spec:
// type IDs up by shift, and string offsets either through remap (those at
// or above start; AppendSpec) or, without remap, up by strShift. It visits
// the words ForEachTypeRef and ForEachStrRef visit, without their calls per
// word: the join of a kernel's units fixes 25 M of them.
type refFix struct {
	shift, start, strShift uint32
	remap                  []uint32
}

func (j *refFix) id(w *uint32) {
	if *w != 0 {
		*w += j.shift
	}
}

func (j *refFix) str(w *uint32) {
	switch {
	case *w == 0:
	case j.remap == nil:
		*w += j.strShift
	case *w >= j.start && *w-j.start < uint32(len(j.remap)):
		*w = j.remap[*w-j.start]
	}
}

func (j *refFix) fix(t Type) {
	j.str(&t[0])
	switch t.Kind() {
	case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict,
		KindFunc, KindVar, KindDeclTag, KindTypeTag:
		j.id(&t[2])
	case KindArray:
		j.id(&t[3])
		j.id(&t[4])
	case KindStruct, KindUnion:
		for k := headerWords; k+1 < len(t); k += 3 {
			j.str(&t[k])
			j.id(&t[k+1])
		}
	case KindEnum:
		for k := headerWords; k < len(t); k += 2 {
			j.str(&t[k])
		}
	case KindEnum64:
		for k := headerWords; k < len(t); k += 3 {
			j.str(&t[k])
		}
	case KindFuncProto:
		j.id(&t[2])
		for k := headerWords; k+1 < len(t); k += 2 {
			j.str(&t[k])
			j.id(&t[k+1])
		}
	case KindDatasec:
		for k := headerWords; k < len(t); k += 3 {
			j.id(&t[k])
		}
	}
}
