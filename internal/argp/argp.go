// Package argp reads a command line as glibc's argp_parse reads it for a
// program such as pahole: through getopt_long, with its rules and its
// messages. Long options may be abbreviated to any prefix that names one
// option; values are attached (--name=VALUE, -CVALUE) or, for options that
// require one, the next argument (--name VALUE, -C VALUE); short options
// cluster (-EC NAME); "--" ends the options; operands and options mix
// freely unless POSIXLY_CORRECT asks for options first.
//
// The package only reads: it returns the options in command-line order and
// the operands, and leaves what they mean to the caller.
package argp

import (
	"fmt"
	"strings"
)

// ArgKind says whether an option takes a value.
type ArgKind uint8

const (
	NoArg       ArgKind = iota // a flag: --hex, -E
	RequiredArg                // a value always: --class_name=NAME, -C NAME
	OptionalArg                // a value only when attached: --jobs=N, -jN
)

// Option is one entry of an option table.
type Option struct {
	Name  string  // the long name, without "--"
	Short byte    // the short option letter, 0 for none
	Arg   ArgKind // whether it takes a value
	// ArgName is the value's name in usage messages ("CLASS_NAME").
	ArgName string
	// Hidden options are accepted but left out of usage messages (argp's
	// --program-name and --HANG).
	Hidden bool
}

// Table is what a program accepts: Options in the order of its argp option
// table, the order getopt lists the candidates of an ambiguous
// abbreviation in, and Extra, options of a program that extends another's
// command line. An abbreviation that fits one of Options means that
// option even when Extra has others it fits, so every command line of the
// extended program keeps its meaning; Extra's options are matched by
// abbreviation only when none of Options fits.
type Table struct {
	Options []Option
	Extra   []Option
}

// Parsed is one option found on the command line.
type Parsed struct {
	Option   *Option
	Value    string // the value, when HasValue
	HasValue bool
	// Spelling is the option as written, up to any "=" ("--pre", "-C"),
	// for messages that quote it.
	Spelling string
}

// Result is a command line read: its options in order, then its operands
// in order.
type Result struct {
	Options  []Parsed
	Operands []string
}

// Error is a command line getopt refuses. Msg is glibc's message without
// the program name before it ("unrecognized option '--foo'").
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Parse reads args (the command line without the program's name) against
// t. With requireOrder (what getopt does when POSIXLY_CORRECT is set) the
// options end at the first operand. On an error it returns what it read
// before it with the *Error, as getopt has handed those options to the
// program by then.
func Parse(t *Table, args []string, requireOrder bool) (Result, error) {
	var r Result
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			r.Operands = append(r.Operands, args[i+1:]...)
			return r, nil
		case len(a) < 2 || a[0] != '-':
			if requireOrder {
				r.Operands = append(r.Operands, args[i:]...)
				return r, nil
			}
			r.Operands = append(r.Operands, a)
		case a[1] == '-':
			p, used, err := t.long(a[2:], args[i+1:])
			if err != nil {
				return r, err
			}
			r.Options = append(r.Options, p)
			i += used
		default:
			ps, used, err := t.shorts(a[1:], args[i+1:])
			r.Options = append(r.Options, ps...)
			if err != nil {
				return r, err
			}
			i += used
		}
	}
	return r, nil
}

// long reads the long option spelled s (after "--"); rest are the
// arguments after it, of which it returns how many it took as the value.
func (t *Table) long(s string, rest []string) (Parsed, int, error) {
	name, value, hasValue := strings.Cut(s, "=")
	o, err := t.lookup(name, s)
	if err != nil {
		return Parsed{}, 0, err
	}
	p := Parsed{Option: o, Spelling: "--" + name}
	switch {
	case hasValue && o.Arg == NoArg:
		return p, 0, &Error{fmt.Sprintf("option '--%s' doesn't allow an argument", o.Name)}
	case hasValue:
		p.Value, p.HasValue = value, true
	case o.Arg == RequiredArg:
		if len(rest) == 0 {
			return p, 0, &Error{fmt.Sprintf("option '--%s' requires an argument", o.Name)}
		}
		p.Value, p.HasValue = rest[0], true
		return p, 1, nil
	}
	return p, 0, nil
}

// lookup finds the option a long name or abbreviation names: an exact name
// first, else the one option of Options it is a prefix of, else the one of
// Extra. spelled is the argument as written after "--", which glibc quotes
// whole (with any "=VALUE") in its messages.
func (t *Table) lookup(name, spelled string) (*Option, error) {
	for _, opts := range [][]Option{t.Options, t.Extra} {
		for i := range opts {
			if opts[i].Name == name {
				return &opts[i], nil
			}
		}
	}
	for _, opts := range [][]Option{t.Options, t.Extra} {
		var found []*Option
		for i := range opts {
			if strings.HasPrefix(opts[i].Name, name) {
				found = append(found, &opts[i])
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "option '--%s' is ambiguous; possibilities:", spelled)
		for _, o := range found {
			fmt.Fprintf(&b, " '--%s'", o.Name)
		}
		return nil, &Error{b.String()}
	}
	return nil, &Error{fmt.Sprintf("unrecognized option '--%s'", spelled)}
}

// shorts reads a cluster of short options (s, after its "-"); rest are the
// arguments after it, of which it returns how many it took as a value.
func (t *Table) shorts(s string, rest []string) ([]Parsed, int, error) {
	var out []Parsed
	for j := 0; j < len(s); j++ {
		o := t.short(s[j])
		if o == nil {
			return out, 0, &Error{fmt.Sprintf("invalid option -- '%c'", s[j])}
		}
		p := Parsed{Option: o, Spelling: "-" + s[j:j+1]}
		attached := s[j+1:]
		switch {
		case o.Arg == NoArg:
			out = append(out, p)
			continue
		case attached != "":
			p.Value, p.HasValue = attached, true
		case o.Arg == RequiredArg:
			if len(rest) == 0 {
				return out, 0, &Error{fmt.Sprintf("option requires an argument -- '%c'", s[j])}
			}
			p.Value, p.HasValue = rest[0], true
			return append(out, p), 1, nil
		}
		return append(out, p), 0, nil
	}
	return out, 0, nil
}

// short finds the option with short letter c; the first in table order
// wins, as in getopt's option string.
func (t *Table) short(c byte) *Option {
	for _, opts := range [][]Option{t.Options, t.Extra} {
		for i := range opts {
			if opts[i].Short == c {
				return &opts[i]
			}
		}
	}
	return nil
}
