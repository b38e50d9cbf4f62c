package classlayout

import (
	"fmt"
	"io"
	"strings"
)

// A -C filter, "name(filter=member==value)" or "name(member==value)", is
// what pahole's data pretty-printer selects records with. The layout view
// prints the type as without it, once the filter is found to make sense
// for the type: a member of it on the left of "==", and on the right a
// number (C's notation: 10, 0x1f, 017, -3) or, when the member is the
// type=member and type_enum= names enums, one of their enumerators.

// Filter is a parsed filter: Left and Right as written (Left without the
// blanks before "==", Right without those after it).
type Filter struct {
	Left, Right string
}

// ParseFilter splits a filter expression as pahole's
// class_member_filter__parse does. It fails, saying why as pahole -V
// does, without "==", or with nothing before it.
func ParseFilter(expr string) (Filter, error) {
	sep := strings.Index(expr, "==")
	if sep < 0 {
		return Filter{}, fmt.Errorf("No supported operator ('==' so far) found in filter '%s'", expr)
	}
	left := strings.TrimRight(expr[:sep], " \t\n\v\f\r")
	if left == "" && sep > 0 {
		return Filter{}, fmt.Errorf("No left operand (struct field) found in filter '%s'", expr)
	}
	return Filter{Left: left, Right: strings.TrimLeft(expr[sep+2:], " \t\n\v\f\r")}, nil
}

// number reports whether s is what strtoll(s, &end, 0) reads whole, up to
// the end or a blank.
func number(s string) bool {
	if i := strings.IndexAny(s, " \t\n\v\f\r"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" {
		return false
	}
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	}
	for _, c := range s {
		if d := digitValue(c); d < 0 || d >= base {
			return false
		}
	}
	return true
}

func digitValue(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// filterApplies is class_member_filter__new's verdict on a's filter for
// struct t: the words pahole -V says on the way go to errw.
func (p *Printer) filterApplies(t *Type, a ClassArgs, errw io.Writer) bool {
	say := func(format string, args ...any) {
		if p.opt.Verbose {
			fmt.Fprintf(errw, format+"\n", args...)
		}
	}
	f, err := ParseFilter(a.Filter)
	if err != nil {
		say("%s", err)
		return false
	}
	if f.Left == "" || !p.hasMember(t, f.Left) {
		left := f.Left
		if left == "" {
			left = a.Filter // (pahole names what it cut at "==": all of it)
		}
		say("The '%s' member wasn't found in '%s'", left, t.Name)
		return false
	}
	if number(f.Right) {
		return true
	}
	if f.Right == "" && strings.TrimRight(a.Filter, " \t\n\v\f\r") != a.Filter {
		say("The '%s' member was asked without a value to filter '%s'", f.Left, t.Name)
		return false
	}
	enums := p.typeEnums(a.TypeEnum)
	if len(enums) == 0 {
		unit := p.m.UnitName
		if unit == "" {
			unit = p.opt.UnitName
		}
		say("Symbolic right operand in '%s' but no way to resolve it to a number (type_enum empty or hasn't found any so far) at CU '%s')", a.Filter, unit)
		return false
	}
	if a.TypeMember != f.Left {
		// (pahole -V says so with the two members' addresses.)
		return false
	}
	for _, e := range enums {
		if enumHas(p.m, e, f.Right) {
			return true
		}
	}
	say("Couldn't resolve right operand ('%s') in '%s' with the specified 'type=%s' and type_enum' ", f.Right, a.Filter, a.TypeMember)
	return false
}

// typeEnums are the enums type_enum names: one, or several joined by '+'.
func (p *Printer) typeEnums(names string) []*Type {
	if names == "" {
		return nil
	}
	if e := p.enumByName(names); e != nil {
		return []*Type{e}
	}
	if !strings.Contains(names, "+") {
		return nil
	}
	var out []*Type
	for _, n := range strings.Split(names, "+") {
		e := p.enumByName(n)
		if e == nil {
			return nil
		}
		out = append(out, e)
	}
	return out
}

func (p *Printer) enumByName(name string) *Type {
	for i := range p.m.Types {
		if t := &p.m.Types[i]; t.Kind == KindEnum && t.Name == name {
			return t
		}
	}
	return nil
}

// enumHas is enumeration__find_enumerator after enumeration__calc_prefix:
// an enumerator of that name, or of that name after the prefix all the
// enumerators share.
func enumHas(m *Model, e *Type, name string) bool {
	vals := m.Enumerators[e.First : e.First+e.N]
	common := -1
	for i := 1; i < len(vals); i++ {
		a, b := vals[i].Name, vals[i-1].Name
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		if common < 0 || n < common {
			common = n
		}
	}
	for _, v := range vals {
		if v.Name == name || (common > 0 && len(v.Name) >= common && v.Name[common:] == name) {
			return true
		}
	}
	return false
}
