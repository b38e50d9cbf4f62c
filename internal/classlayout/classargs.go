package classlayout

import (
	"fmt"
	"io"
	"strings"
)

// ClassArgs are the arguments a -C name may carry, as in
// "perf_event_header(sizeof=size,type=type,type_enum=perf_event_type)":
// pahole's data pretty-printer reads records with them; its layout view
// only checks that they make sense for the type, and stops when they do
// not. gobtf does the same, filters (filter=EXPR, or member==value, see
// filter.go) included.
type ClassArgs struct {
	Size, TypeMember, TypeEnum, Range, Filter string
	N                                         int // how many arguments were given
}

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
			return err
		}
		names, args = append(names, name), append(args, a)
		return nil
	}
	for _, e := range splitClassList(list) {
		if e.unterminated {
			return nil, nil, fmt.Errorf("unterminated '(' in '%s'", list)
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
}

// splitClassList is pahole's populate_class_names: a comma ends an entry
// unless a '(' before it is closed after it (a list ending in a comma has
// an empty last entry, which no type matches).
func splitClassList(s string) []listEntry {
	var out []listEntry
	for {
		sep := strings.IndexByte(s, ',')
		if sep < 0 {
			break
		}
		if open := strings.IndexByte(s, '('); open >= 0 && open < sep {
			cl := strings.IndexByte(s[open:], ')')
			if cl < 0 {
				return append(out, listEntry{unterminated: true})
			}
			if cl += open; cl > sep {
				sep = cl + 1
			}
		}
		if sep >= len(s) {
			return append(out, listEntry{text: s})
		}
		out = append(out, listEntry{text: s[:sep]})
		s = s[sep+1:]
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
	say := func(what, v string) {
		if verbose != nil {
			fmt.Fprintf(verbose, "pahole: %s for '%s' is '%s'\n", what, name, v)
		}
	}
	for _, arg := range strings.Split(list, ",") {
		key, value, ok := strings.Cut(arg, "=")
		switch {
		case !ok && arg == "sizeof":
			key, value = "sizeof", "size"
		case !ok && arg == "type":
			key, value = "type", "type"
		case !ok:
			return "", a, fmt.Errorf("invalid, missing '=' in '%s'", arg)
		case strings.HasPrefix(value, "="):
			key, value = "filter", arg // member==value is filter=member==value
		default:
			if value = strings.TrimLeft(value, " \t\n\v\f\r"); value == "" {
				return "", a, fmt.Errorf("invalid, missing value in '%s'", entry)
			}
		}
		switch key {
		case "sizeof":
			say("sizeof_operator", value)
			a.Size = value
		case "type":
			say("type member", value)
			a.TypeMember = value
		case "type_enum":
			say("type enum", value)
			a.TypeEnum = value
		case "filter":
			say("filter", value)
			a.Filter = value
		case "range":
			say("range", value)
			a.Range = value
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
// members, type_enum naming an enumeration (or several joined with '+').
func (p *Printer) checkArgs(id uint32, name string, a ClassArgs, errw io.Writer) argsCheck {
	if a.N == 0 {
		return argsOK
	}
	t := &p.m.Types[id]
	if t.Kind != KindStruct {
		fmt.Fprintln(errw, "pahole: attributes are only supported with 'class' and 'struct' types")
		return argsAbort
	}
	if a.Size != "" && !p.hasMember(t, a.Size) {
		fmt.Fprintf(errw, "pahole: the sizeof member '%s' wasn't found in the '%s' type\n", a.Size, name)
		return argsAbort
	}
	if a.TypeMember != "" && !p.hasMember(t, a.TypeMember) {
		fmt.Fprintf(errw, "pahole: the type member '%s' wasn't found in the '%s' type\n", a.TypeMember, name)
		return argsAbort
	}
	if a.TypeEnum != "" && !p.hasEnums(a.TypeEnum) {
		return argsUnresolved
	}
	if a.Filter != "" && !p.filterApplies(t, a, errw) {
		fmt.Fprintf(errw, "pahole: invalid filter '%s' for '%s'\n", a.Filter, name)
		return argsAbort
	}
	return argsOK
}

// hasMember is type__find_member_by_name: a data member of that name.
func (p *Printer) hasMember(t *Type, name string) bool {
	for _, mb := range p.m.MembersOf(t) {
		if mb.Name == name {
			return true
		}
	}
	return false
}

// hasEnums is type__find_type_enum: an enumeration of that name or, for
// "a+b", of each name.
func (p *Printer) hasEnums(names string) bool {
	if p.findEnum(names) {
		return true
	}
	if !strings.Contains(names, "+") {
		return false
	}
	for _, n := range strings.Split(names, "+") {
		if !p.findEnum(n) {
			return false
		}
	}
	return true
}

// findEnum is cu__find_enumeration_by_name, declarations included.
func (p *Printer) findEnum(name string) bool {
	for i := range p.m.Types {
		if t := &p.m.Types[i]; t.Kind == KindEnum && t.Name == name {
			return true
		}
	}
	return false
}

// notFound is pahole's last word on the -C name it could not print.
func notFound(errw io.Writer, name string, a ClassArgs) {
	suffix := ""
	if a.N != 0 {
		suffix = " or arguments not validated"
	}
	fmt.Fprintf(errw, "pahole: type '%s' not found%s\n", name, suffix)
}
