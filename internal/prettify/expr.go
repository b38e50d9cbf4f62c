package prettify

import (
	"fmt"
	"io"
	"strings"

	"github.com/gobtf/gobtf/internal/classlayout"
)

// headerPrefix starts a --seek_bytes or --size_bytes operand that reads a
// member of the --header_type record.
const headerPrefix = "$header."

// Operand is a --seek_bytes or --size_bytes value: "$header.PATH", a
// member of the header record (PATH may go into nested structs with
// dots), or a number as C's strtol reads it in base 0.
type Operand struct {
	Text   string // as given
	Member string // PATH of "$header.PATH"; "" for a number
	Number int64  // the number, when Member is ""
}

// ParseOperand reads an operand as pahole does: any text that does not
// start with "$header." is a number, strtol's (0 when nothing parses).
func ParseOperand(s string) Operand {
	if path, ok := strings.CutPrefix(s, headerPrefix); ok {
		return Operand{Text: s, Member: path}
	}
	n, _ := Strtol(s)
	return Operand{Text: s, Number: n}
}

// IsHeader says whether the operand reads the header record.
func (o Operand) IsHeader() bool { return strings.HasPrefix(o.Text, headerPrefix) }

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// Strtol is C's strtol(s, &end, 0) on a 64-bit long: leading blanks, a
// sign, "0x" for hexadecimal, "0" for octal, decimal otherwise, saturating
// at the long's limits. end is the index where the number stops; 0 when
// no digit was read (strtol's end is then s itself).
func Strtol(s string) (n int64, end int) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	switch {
	case i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && digit(s[i+2]) < 16:
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	start := i
	var mag uint64
	over := false
	for ; i < len(s); i++ {
		d := digit(s[i])
		if d >= base {
			break
		}
		if mag > (1<<64-1-d)/base {
			over = true
		} else {
			mag = mag*base + d
		}
	}
	if i == start {
		return 0, 0
	}
	switch {
	case !neg && (over || mag > 1<<63-1):
		return 1<<63 - 1, i
	case neg && (over || mag > 1<<63):
		return -1 << 63, i
	case neg:
		return int64(-mag), i
	}
	return int64(mag), i
}

// digit is the value of a digit in bases up to 36, or 99.
func digit(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c >= 'a' && c <= 'z':
		return uint64(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return uint64(c-'A') + 10
	}
	return 99
}

// memberPath is type_instance__int_value's look-up: path names a data
// member of struct or union id or, when no member has that whole name,
// "a.b", member b of member a (a struct or union), the last of an integer
// type (through typedefs). pahole looks the rest of a longer path up as
// one name ("b.c" in a), which no member has: gobtf finds none either. It
// returns the member's offset from the start of id and its size.
func memberPath(m *classlayout.Model, id uint32, path string) (off, size uint32, ok bool) {
	t := m.Type(id)
	if t == nil {
		return 0, 0, false
	}
	i := m.MemberIndex(t, path)
	if i < 0 {
		outer, inner, found := strings.Cut(path, ".")
		if !found {
			return 0, 0, false
		}
		j := m.MemberIndex(t, outer)
		if j < 0 {
			return 0, 0, false
		}
		mb := &m.MembersOf(t)[j]
		off = mb.ByteOffset
		if t = m.Type(mb.Type); t == nil {
			return 0, 0, false
		}
		if i = m.MemberIndex(t, inner); i < 0 {
			return 0, 0, false
		}
	}
	mb := &m.MembersOf(t)[i]
	if !isBaseType(m, mb.Type) {
		return 0, 0, false
	}
	return off + mb.ByteOffset, mb.ByteSize, true
}

// Filter is a -C filter, "member==value": the records whose member (of the
// struct the filter is on) does not hold value are left out. value is a
// number (strtoll's, base 0) or, when the member is the type= one, an
// enumerator of the type_enum enumerations, by its name or its name
// without the prefix all of its enumeration's names share.
type Filter struct {
	Member int    // the member's index in its struct
	Right  uint64 // the value it must hold
}

// ParseFilter is class_member_filter__parse: the filter s on struct id of
// m, whose type= member is typeMember (-1 for none) and whose type_enum
// enumerations are enums. With verbose set, why a filter does not parse
// is said there, in pahole's words; afterBlank is ClassArgs'
// FilterAfterBlank, which changes one of them.
func ParseFilter(m *classlayout.Model, id uint32, typeMember int, enums []uint32, s string, afterBlank bool, verbose io.Writer) (Filter, bool) {
	say := func(format string, a ...any) {
		if verbose != nil {
			fmt.Fprintf(verbose, format, a...)
		}
	}
	t := m.Type(id)
	sep := strings.Index(s, "==")
	if t == nil || sep < 0 {
		say("No supported operator ('==' so far) found in filter '%s'\n", s)
		return Filter{}, false
	}
	// The left operand is what precedes "==", but for the blanks before
	// it; blanks up to the start of s leave no operand.
	end := sep
	for end > 0 && isSpace(s[end-1]) {
		end--
		if end == 0 {
			say("No left operand (struct field) found in filter '%s'\n", s)
			return Filter{}, false
		}
	}
	name := s[:end]
	if sep == 0 && afterBlank {
		// pahole's walk back over blanks leaves the text, ending the
		// blanks before it instead.
		name = s
	}
	f := Filter{Member: m.MemberIndex(t, name)}
	if f.Member < 0 {
		say("The '%s' member wasn't found in '%s'\n", name, t.Name)
		return Filter{}, false
	}
	value := s[sep+2:]
	for len(value) > 0 && isSpace(value[0]) {
		if value = value[1:]; value == "" {
			say("The '%s' member was asked without a value to filter '%s'\n", s, t.Name)
			return Filter{}, false
		}
	}
	if n, e := Strtol(value); e > 0 && (e == len(value) || isSpace(value[e])) {
		f.Right = uint64(n)
		return f, true
	}
	if len(enums) == 0 {
		say("Symbolic right operand in '%s' but no way to resolve it to a number (type_enum empty or hasn't found any so far) at CU '%s')\n", s, m.UnitName)
		return Filter{}, false
	}
	if typeMember != f.Member {
		// pahole prints the two members' addresses here.
		say("type->type_member != filter->left in filter '%s'\n", s)
		return Filter{}, false
	}
	v, ok := findEnumerator(m, enums, value)
	if !ok {
		say("Couldn't resolve right operand ('%s') in '%s' with the specified 'type=%s' and type_enum' \n",
			value, s, m.MembersOf(t)[typeMember].Name)
		return Filter{}, false
	}
	f.Right = v
	return f, true
}

// FilterCheck is classlayout.FilterCheck: whether ParseFilter reads the
// filter.
func FilterCheck(m *classlayout.Model, id uint32, typeMember int, enums []uint32, a classlayout.ClassArgs, verbose io.Writer) bool {
	_, ok := ParseFilter(m, id, typeMember, enums, a.Filter, a.FilterAfterBlank, verbose)
	return ok
}

// findEnumerator is enumerations__find_enumerator: the value of the first
// enumerator, in the enumerations' order, named name or, past its
// enumeration's common prefix, name.
func findEnumerator(m *classlayout.Model, enums []uint32, name string) (uint64, bool) {
	for _, id := range enums {
		es := enumerators(m, id)
		prefix := commonPrefix(es)
		for _, e := range es {
			if e.Name == name || (prefix > 0 && e.Name[prefix:] == name) {
				return e.Value, true
			}
		}
	}
	return 0, false
}

// commonPrefix is enumeration__calc_prefix's length: the shortest common
// start of two consecutive names; 0 for fewer than two.
func commonPrefix(es []classlayout.Enumerator) int {
	common := -1
	for i := 1; i < len(es); i++ {
		a, b := es[i].Name, es[i-1].Name
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		if common < 0 || n < common {
			common = n
		}
	}
	return max(common, 0)
}

// enumerators returns the enumerators of enumeration id.
func enumerators(m *classlayout.Model, id uint32) []classlayout.Enumerator {
	t := m.Type(id)
	if t == nil || t.Kind != classlayout.KindEnum {
		return nil
	}
	return m.Enumerators[t.First : t.First+t.N]
}
