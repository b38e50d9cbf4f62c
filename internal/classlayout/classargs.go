package classlayout

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNotImplemented reports a -C argument gobtf does not implement.
var ErrNotImplemented = errors.New("not implemented by gobtf")

// ClassArgs are the arguments a -C name may carry, as in
// "perf_event_header(sizeof=size,type=type,type_enum=perf_event_type)":
// pahole's data pretty-printer (internal/prettify) reads records with
// them; its layout view only checks that they make sense for the type, and
// stops when they do not. Filter is filter=EXPR, or an argument
// "member==value" as a whole.
type ClassArgs struct {
	Size, TypeMember, TypeEnum, Range, Filter string
	N                                         int    // how many arguments were given
	Has                                       ArgSet // which were given (a value may be empty)

	// FilterAfterBlank says blanks preceded the filter's text, where
	// pahole, on a filter starting with "==", names it whole in -V's
	// message rather than its empty left operand.
	FilterAfterBlank bool
}

// ArgSet is a set of -C arguments.
type ArgSet uint8

// The arguments of a -C name.
const (
	HasSize ArgSet = 1 << iota
	HasType
	HasTypeEnum
	HasRange
	HasFilter
)

// FilterCheck says whether a -C filter can be evaluated on struct id of m
// whose type member is typeMember (or -1) and whose type_enum enums are
// enums: pahole's layout view stops at a filter that cannot, as at the
// other arguments. internal/prettify provides it (prettify.FilterCheck).
// With verbose set, why a filter cannot be evaluated is said there, as
// pahole -V says it.
type FilterCheck func(m *Model, id uint32, typeMember int, enums []uint32, a ClassArgs, verbose io.Writer) bool

// ParseClassList splits a -C list as pahole does: on commas, except those
// inside a name's parentheses; "file://FILE" entries name files with one
// entry a line. It returns the names and their arguments; with verbose
// set, it says each argument there, as pahole -V does.
func ParseClassList(list string, readFile func(string) ([]byte, error), verbose io.Writer) ([]string, []ClassArgs, error) {
	var names []string
	var args []ClassArgs
	add := func(entry string) error {
		name, a, err := parseClassEntry(entry, verbose)
		if err != nil {
			return &ClassListError{"pahole: " + err.Error() + "\n"}
		}
		names, args = append(names, name), append(args, a)
		return nil
	}
	for _, e := range splitClassList(list) {
		if e.unterminated {
			return nil, nil, &ClassListError{fmt.Sprintf("Unterminated '(' in '%s'\n%21s%*s^\n", list, "", e.paren, "")}
		}
		path, ok := strings.CutPrefix(e.text, "file://")
		if !ok {
			if err := add(e.text); err != nil {
				return nil, nil, err
			}
			continue
		}
		data, err := readFile(path)
		if err != nil {
			return nil, nil, err
		}
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if l == "" {
				continue
			}
			if err := add(l[:len(l)-1]); err != nil {
				return nil, nil, err
			}
		}
	}
	return names, args, nil
}

type listEntry struct {
	text         string
	unterminated bool
	paren        int // unterminated: where its '(' is in the list
}

// splitClassList is pahole's populate_class_names: a comma ends an entry
// unless a '(' before it is closed after it (a list ending in a comma has
// an empty last entry, which no type matches).
func splitClassList(s string) []listEntry {
	var out []listEntry
	start := 0 // of s in the list
	for {
		sep := strings.IndexByte(s, ',')
		if sep < 0 {
			break
		}
		if open := strings.IndexByte(s, '('); open >= 0 && open < sep {
			cl := strings.IndexByte(s[open:], ')')
			if cl < 0 {
				return append(out, listEntry{unterminated: true, paren: start + open})
			}
			if cl += open; cl > sep {
				sep = cl + 1
			}
		}
		if sep >= len(s) {
			return append(out, listEntry{text: s})
		}
		out = append(out, listEntry{text: s[:sep]})
		s, start = s[sep+1:], start+sep+1
	}
	return append(out, listEntry{text: s})
}

// parseClassEntry is pahole's prototype__new: "name" or
// "name(arg=value,...)", "sizeof" and "type" alone meaning sizeof=size and
// type=type.
func parseClassEntry(entry string, verbose io.Writer) (string, ClassArgs, error) {
	var a ClassArgs
	open := strings.IndexByte(entry, '(')
	if open < 0 {
		return entry, a, nil
	}
	name := entry[:open]
	cl := strings.IndexByte(entry[open:], ')')
	if cl < 0 {
		return "", a, fmt.Errorf("invalid, no closing parens in '%s'", entry)
	}
	list := strings.TrimLeft(entry[open+1:open+cl], " \t\n\v\f\r")
	if list == "" {
		return name, a, nil
	}
	args := strings.Split(list, ",")
	say := func(what, v string) {
		if verbose != nil {
			fmt.Fprintf(verbose, "pahole: %s for '%s' is '%s'\n", what, name, v)
		}
	}
	leading := len(list) < len(entry[open+1:open+cl])
	for i, arg := range args {
		key, value, ok := strings.Cut(arg, "=")
		blank := i == 0 && leading
		switch {
		case !ok && arg == "sizeof":
			key, value = "sizeof", "size"
		case !ok && arg == "type":
			key, value = "type", "type"
		case !ok:
			return "", a, fmt.Errorf("invalid, missing '=' in '%s'", arg)
		case strings.HasPrefix(value, "="):
			// "member==value" is filter=member==value.
			key, value = "filter", arg
		default:
			blank = len(value) > 0 && strings.IndexByte(" \t\n\v\f\r", value[0]) >= 0
			// pahole finds a missing value only at the closing
			// parenthesis: an empty value before a comma is an empty
			// name, which no member has.
			if value = strings.TrimLeft(value, " \t\n\v\f\r"); value == "" && i == len(args)-1 {
				return "", a, fmt.Errorf("invalid, missing value in '%s'", entry)
			}
		}
		switch key {
		case "sizeof":
			say("sizeof_operator", value)
			a.Size, a.Has = value, a.Has|HasSize
		case "type":
			say("type member", value)
			a.TypeMember, a.Has = value, a.Has|HasType
		case "type_enum":
			say("type enum", value)
			a.TypeEnum, a.Has = value, a.Has|HasTypeEnum
		case "filter":
			say("filter", value)
			a.Filter, a.Has, a.FilterAfterBlank = value, a.Has|HasFilter, blank
		case "range":
			say("range", value)
			a.Range, a.Has = value, a.Has|HasRange
		default:
			return "", a, fmt.Errorf("invalid arg '%s' in '%s' (known args: sizeof=member, type=member, type_enum=enum)", key, entry)
		}
		a.N++
	}
	return name, a, nil
}

// argsCheck is what checking a -C name's arguments against its type found.
type argsCheck uint8

const (
	argsOK         argsCheck = iota
	argsAbort                // an argument cannot apply: pahole stops there
	argsUnresolved           // the type_enum is not in this unit
)

// checkArgs is pahole's check of a -C name's arguments on the type id
// found for it: attributes only on structs, sizeof and type naming
// members, type_enum naming an enumeration (or several joined with '+'),
// a filter that can be evaluated (Options.CheckFilter).
func (p *Printer) checkArgs(id uint32, name string, a ClassArgs, errw io.Writer) argsCheck {
	if a.N == 0 {
		return argsOK
	}
	t := &p.m.Types[id]
	if t.Kind != KindStruct {
		fmt.Fprintln(errw, "pahole: attributes are only supported with 'class' and 'struct' types")
		return argsAbort
	}
	if a.Has&HasSize != 0 && p.m.MemberIndex(t, a.Size) < 0 {
		fmt.Fprintf(errw, "pahole: the sizeof member '%s' wasn't found in the '%s' type\n", a.Size, name)
		return argsAbort
	}
	typeMember := -1
	if a.Has&HasType != 0 {
		if typeMember = p.m.MemberIndex(t, a.TypeMember); typeMember < 0 {
			fmt.Fprintf(errw, "pahole: the type member '%s' wasn't found in the '%s' type\n", a.TypeMember, name)
			return argsAbort
		}
	}
	var enums []uint32
	if a.Has&HasTypeEnum != 0 {
		var ok bool
		if enums, ok = p.m.TypeEnums(a.TypeEnum); !ok {
			return argsUnresolved
		}
	}
	var verbose io.Writer
	if p.opt.Verbose {
		verbose = errw
	}
	if a.Has&HasFilter != 0 && (p.opt.CheckFilter == nil || !p.opt.CheckFilter(p.m, id, typeMember, enums, a, verbose)) {
		fmt.Fprintf(errw, "pahole: invalid filter '%s' for '%s'\n", a.Filter, name)
		return argsAbort
	}
	return argsOK
}

// FindType is cu__find_type_by_name without declarations: the first
// struct, union, typedef or enum (not a declaration) named name, or 0.
func (m *Model) FindType(name string) uint32 {
	if name == "" {
		return 0 // (anonymous types have no name to match)
	}
	for id := uint32(1); id < uint32(len(m.Types)); id++ {
		t := &m.Types[id]
		switch t.Kind {
		case KindStruct, KindUnion, KindTypedef, KindEnum:
			if t.Name == name && t.Flags&FlagDeclaration == 0 {
				return id
			}
		}
	}
	return 0
}

// MemberIndex is type__find_member_by_name: the index in MembersOf(t) of
// the data member of that name, or -1.
func (m *Model) MemberIndex(t *Type, name string) int {
	if t.Kind != KindStruct && t.Kind != KindUnion {
		return -1
	}
	for i, mb := range m.MembersOf(t) {
		if mb.Name == name {
			return i
		}
	}
	return -1
}

// TypeEnums is type__find_type_enum: the enumeration named names or, for
// "a+b", the enumerations of each name, in order. As in pahole, the names
// resolve when the first does: the list stops at the first name no
// enumeration has, and only a miss of the first fails.
func (m *Model) TypeEnums(names string) ([]uint32, bool) {
	if id := m.findEnum(names); id != 0 {
		return []uint32{id}, true
	}
	if !strings.Contains(names, "+") {
		return nil, false
	}
	var ids []uint32
	for _, n := range strings.Split(names, "+") {
		id := m.findEnum(n)
		if id == 0 {
			break
		}
		ids = append(ids, id)
	}
	return ids, len(ids) > 0
}

// findEnum is cu__find_enumeration_by_name, declarations included.
func (m *Model) findEnum(name string) uint32 {
	for i := range m.Types {
		if t := &m.Types[i]; t.Kind == KindEnum && t.Name == name && name != "" {
			return uint32(i)
		}
	}
	return 0
}

// notFound is pahole's last word on the -C name it could not print.
func notFound(errw io.Writer, name string, a ClassArgs) {
	suffix := ""
	if a.N != 0 {
		suffix = " or arguments not validated"
	}
	fmt.Fprintf(errw, "pahole: type '%s' not found%s\n", name, suffix)
}
