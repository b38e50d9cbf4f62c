package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
)

// maxSpecLen is libbpf's BPF_CORE_SPEC_MAX_LEN: the most steps an access
// may take, anonymous members included.
const maxSpecLen = 64

// Accessor is one meaningful step of an access: a named member of a
// struct or union, an array element, or (for enumerator relocations) an
// enumerator.
type Accessor struct {
	// TypeID is the struct or union holding the member, the enum holding
	// the enumerator, or the element type of an array access.
	TypeID btf.TypeID
	// Idx is the member, enumerator or element index.
	Idx uint32
	// Name is the member's or enumerator's name; Named is false for an
	// array access, which has none.
	Name  string
	Named bool
}

// Spec is an access resolved against one BTF (libbpf's bpf_core_spec):
// the local one the object was compiled with, or a candidate's.
//
// Invariants: len(Access) <= len(Raw) <= maxSpecLen; Raw[0] is the index of
// the access on the root (0 for "p->x", n for "p[n].x"); every other Raw
// element is a member index (anonymous members included) or an array index,
// in the order of the access; Access keeps the named members and array
// elements among them. Type-based relocations have empty Access and Raw.
type Spec struct {
	// Types is the BTF the spec is in.
	Types *Types
	// Root is the type the access starts from, as given (typedefs and
	// modifiers not skipped).
	Root btf.TypeID
	Kind btfext.RelocKind
	// Access is the high-level spec: named members and array elements.
	Access []Accessor
	// Raw is the low-level spec: one index per step of the access string.
	Raw []uint32
	// BitOffset is the access's offset in bits from the root.
	BitOffset uint32
}

// ParseError is a relocation whose local side libbpf rejects: an access
// string that does not parse or does not fit the local types, an unknown
// kind, a type ID or string offset outside the object's BTF. The object is
// at fault, whatever the target.
type ParseError struct {
	Msg string
}

func (e *ParseError) Error() string { return e.Msg }

func parseErr(format string, args ...any) error {
	return &ParseError{Msg: fmt.Sprintf(format, args...)}
}

// parseAccess parses an access string ("0:1:2") as libbpf does: decimal
// indices (each with an optional sign, as sscanf's %d takes them),
// separated by single colons, not starting with one.
func parseAccess(s string) ([]uint32, error) {
	if s == "" || s[0] == ':' {
		return nil, parseErr("access string %q is empty or starts with ':'", s)
	}
	var raw []uint32
	for len(s) > 0 {
		if s[0] == ':' {
			s = s[1:]
		}
		n := scanInt(s)
		if n == 0 {
			return nil, parseErr("access string: %q is not a number", s)
		}
		v, err := strconv.ParseInt(strings.TrimLeft(s[:n], " \t\n\v\f\r"), 10, 32)
		if err != nil || v < 0 {
			return nil, parseErr("access string: index %q is not a non-negative int", s[:n])
		}
		if len(raw) == maxSpecLen {
			return nil, parseErr("access string has more than %d steps", maxSpecLen)
		}
		raw = append(raw, uint32(v))
		s = s[n:]
	}
	if len(raw) == 0 {
		return nil, parseErr("access string has no index")
	}
	return raw, nil
}

// scanInt returns the length of the prefix of s that sscanf's "%d" reads:
// leading white space, an optional sign, then at least one digit (0 when
// there is none).
func scanInt(s string) int {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	d := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == d {
		return 0
	}
	return i
}

// ParseSpec resolves relocation r against the local BTF ts, as libbpf's
// bpf_core_parse_spec does: type-based kinds take the access string "0"
// and no spec; enumerator kinds one index into an enum; field kinds walk
// the access through members (anonymous ones included) and array
// elements, summing the bit offset. Every failure is a *ParseError.
func ParseSpec(ts *Types, r btfext.Reloc) (*Spec, error) {
	str, ok := ts.name(r.AccessStrOff)
	if !ok || str == "" || str[0] == ':' {
		return nil, parseErr("access string at offset %#x is missing, empty or starts with ':'", r.AccessStrOff)
	}
	spec := &Spec{Types: ts, Root: r.TypeID, Kind: r.Kind}
	if r.Kind.IsType() {
		if str != "0" {
			return nil, parseErr("%s relocation has access string %q, not \"0\"", r.Kind, str)
		}
		return spec, nil
	}
	raw, err := parseAccess(str)
	if err != nil {
		return nil, err
	}
	spec.Raw = raw
	t, id, ok := ts.skipModsAndTypedefs(r.TypeID)
	if !ok {
		return nil, parseErr("type [%d] (or a type it refers to) is not in the object's BTF", r.TypeID)
	}
	acc := Accessor{TypeID: id, Idx: raw[0]}
	if r.Kind.IsEnumval() {
		if !isAnyEnum(t.Kind()) || len(raw) > 1 || int(raw[0]) >= vlen(t) {
			return nil, parseErr("%s relocation: access %q is not an enumerator of type [%d]", r.Kind, str, id)
		}
		acc.Name, ok = ts.name(enumNameOff(t, int(raw[0])))
		if !ok {
			return nil, parseErr("enumerator %d of type [%d] has an invalid name offset", raw[0], id)
		}
		acc.Named = true
		spec.Access = []Accessor{acc}
		return spec, nil
	}
	if !r.Kind.IsField() {
		return nil, parseErr("unknown relocation kind %d", uint32(r.Kind))
	}
	spec.Access = append(make([]Accessor, 0, len(raw)), acc)
	sz, err := ts.resolveSize(id)
	if err != nil {
		return nil, parseErr("size of type [%d]: %v", id, err)
	}
	spec.BitOffset = uint32(uint64(raw[0]) * uint64(sz) * 8)
	for i := 1; i < len(raw); i++ {
		t, id, ok = ts.skipModsAndTypedefs(id)
		if !ok {
			return nil, parseErr("type [%d] is not in the object's BTF", id)
		}
		idx := raw[i]
		switch {
		case isComposite(t.Kind()):
			if int(idx) >= t.Vlen() {
				return nil, parseErr("access %q: member %d of type [%d], which has %d", str, idx, id, t.Vlen())
			}
			spec.BitOffset += memberBitOffset(t, int(idx))
			m := t.Member(int(idx))
			if m.NameOff != 0 {
				name, ok := ts.name(m.NameOff)
				if !ok || name == "" {
					return nil, parseErr("member %d of type [%d] has an invalid name", idx, id)
				}
				spec.Access = append(spec.Access, Accessor{TypeID: id, Idx: idx, Name: name, Named: true})
			}
			id = m.Type
		case t.Kind() == btf.KindArray:
			elem, _, nelems := t.Array()
			_, elemID, ok := ts.skipModsAndTypedefs(elem)
			if !ok {
				return nil, parseErr("element type of array [%d] is not in the object's BTF", id)
			}
			if !isFlexArray(ts, spec.Access[len(spec.Access)-1], nelems) && idx >= nelems {
				return nil, parseErr("access %q: element %d of an array of %d", str, idx, nelems)
			}
			id = elemID
			spec.Access = append(spec.Access, Accessor{TypeID: id, Idx: idx})
			sz, err := ts.resolveSize(id)
			if err != nil {
				return nil, parseErr("size of type [%d]: %v", id, err)
			}
			spec.BitOffset += uint32(uint64(idx) * uint64(sz) * 8)
		default:
			return nil, parseErr("access %q: step %d reaches type [%d] of kind %s, not a struct, union or array", str, i, id, t.Kind())
		}
	}
	return spec, nil
}

// isFlexArray reports whether an array of nelems elements reached through
// accessor prev is a flexible array member: of length 0, the last member
// of the struct prev names.
func isFlexArray(ts *Types, prev Accessor, nelems uint32) bool {
	if !prev.Named || nelems > 0 {
		return false
	}
	t, _ := ts.typ(prev.TypeID)
	return int(prev.Idx) == vlen(t)-1
}

// maxSpecString is the size of libbpf's buffer for a formatted spec
// (spec_buf[256]): longer ones are cut to 255 bytes.
const maxSpecString = 255

// String formats the spec as libbpf's bpf_core_format_spec does, so that
// debug output compares line for line with libbpf's: "<kind> [root] kind
// name", then for enumerators "::name = value" (the first enumerator of the
// enum when the spec matched none), for fields the C-like path, the raw
// spec and the byte (and bit) offset, cut to 255 bytes as libbpf cuts it.
func (s *Spec) String() string {
	var b strings.Builder
	t, _ := s.Types.typ(s.Root)
	name := s.Types.nameOf(t)
	if name == "" {
		name = "<anon>"
	}
	fmt.Fprintf(&b, "<%s> [%d] %s %s", s.Kind, s.Root, kindName(t), name)
	switch {
	case s.Kind.IsEnumval():
		et, _, ok := s.Types.skipModsAndTypedefs(s.Root)
		idx := 0
		if len(s.Raw) > 0 {
			idx = int(s.Raw[0])
		}
		if !ok || !isAnyEnum(et.Kind()) || idx >= et.Vlen() {
			break
		}
		en := s.Types.Spec.Strings().String(enumNameOff(et, idx))
		switch {
		case et.Kind() == btf.KindEnum && et.KindFlag():
			_, v := et.EnumValue(idx)
			fmt.Fprintf(&b, "::%s = %d", en, int32(v))
		case et.Kind() == btf.KindEnum:
			_, v := et.EnumValue(idx)
			fmt.Fprintf(&b, "::%s = %d", en, v)
		case et.KindFlag():
			_, v := et.Enum64Value(idx)
			fmt.Fprintf(&b, "::%s = %d", en, int64(v))
		default:
			_, v := et.Enum64Value(idx)
			fmt.Fprintf(&b, "::%s = %d", en, v)
		}
	case s.Kind.IsField():
		b.WriteString(s.Path())
		fmt.Fprintf(&b, " (%s @ offset %d", s.RawString(), s.BitOffset/8)
		if s.BitOffset%8 != 0 {
			fmt.Fprintf(&b, ".%d", s.BitOffset%8)
		}
		b.WriteString(")")
	}
	out := b.String()
	if len(out) > maxSpecString {
		out = out[:maxSpecString]
	}
	return out
}

// Path returns the C-like path of a field access: ".a[3].b", with a
// leading "[n]" for an index on the root other than 0.
func (s *Spec) Path() string {
	var b strings.Builder
	for i, a := range s.Access {
		if a.Named {
			b.WriteString("." + a.Name)
		} else if i > 0 || a.Idx > 0 {
			fmt.Fprintf(&b, "[%d]", a.Idx)
		}
	}
	return b.String()
}

// RawString returns the low-level spec as an access string ("0:1:2").
func (s *Spec) RawString() string {
	parts := make([]string, len(s.Raw))
	for i, v := range s.Raw {
		parts[i] = strconv.FormatUint(uint64(v), 10)
	}
	return strings.Join(parts, ":")
}

// kindName returns the kind of t as libbpf's messages print it
// ("struct", "typedef", "unkn" for void).
func kindName(t btf.Type) string {
	if len(t) == 0 {
		return "void"
	}
	return strings.ToLower(t.Kind().String())
}
