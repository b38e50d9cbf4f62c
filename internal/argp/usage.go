package argp

import (
	"sort"
	"strings"
)

// Usage returns the short usage message argp's --usage prints for a
// program named prog with the table t and the operands argsDoc ("FILE"):
// the flags without values in one cluster, the short options with values,
// then every long option, in the order of argp's --help, wrapped before
// column 79 with continuation lines indented by 12 columns.
func Usage(t *Table, prog, argsDoc string) string {
	opts := t.helpOrder()
	var flags []byte
	var items []string
	for _, o := range opts {
		if o.Short == 0 {
			continue
		}
		switch o.Arg {
		case NoArg:
			flags = append(flags, o.Short)
		case RequiredArg:
			items = append(items, "[-"+string(o.Short)+" "+o.ArgName+"]")
		case OptionalArg:
			items = append(items, "[-"+string(o.Short)+"["+o.ArgName+"]]")
		}
	}
	if len(flags) > 0 {
		items = append([]string{"[-" + string(flags) + "]"}, items...)
	}
	for _, o := range opts {
		switch o.Arg {
		case NoArg:
			items = append(items, "[--"+o.Name+"]")
		case RequiredArg:
			items = append(items, "[--"+o.Name+"="+o.ArgName+"]")
		case OptionalArg:
			items = append(items, "[--"+o.Name+"[="+o.ArgName+"]]")
		}
	}
	if argsDoc != "" {
		items = append(items, argsDoc)
	}
	const rmargin, indent = 79, 12
	var b strings.Builder
	line := "Usage: " + prog
	for _, it := range items {
		if len(line)+1+len(it) >= rmargin {
			b.WriteString(line + "\n")
			line = strings.Repeat(" ", indent) + it
			continue
		}
		line += " " + it
	}
	b.WriteString(line + "\n")
	return b.String()
}

// lastGroup holds argp's own options (--help, --usage, --version), which
// its help lists after the program's.
var lastGroup = map[string]bool{"help": true, "usage": true, "version": true}

// helpOrder returns the options argp's help lists, in its order: by the
// short letter, or the long name of an option without one, compared
// without case; at the same letter a long-only option comes first and a
// lower-case letter before its upper case; argp's own options last.
func (t *Table) helpOrder() []*Option {
	var opts []*Option
	for _, set := range [][]Option{t.Options, t.Extra} {
		for i := range set {
			if !set[i].Hidden {
				opts = append(opts, &set[i])
			}
		}
	}
	first := func(o *Option) byte {
		if o.Short != 0 {
			return o.Short
		}
		return o.Name[0]
	}
	sort.SliceStable(opts, func(i, j int) bool {
		a, b := opts[i], opts[j]
		if lastGroup[a.Name] != lastGroup[b.Name] {
			return lastGroup[b.Name]
		}
		fa, fb := first(a), first(b)
		if la, lb := lower(fa), lower(fb); la != lb {
			return la < lb
		}
		switch {
		case a.Short == 0 && b.Short == 0:
			return strings.ToLower(a.Name) < strings.ToLower(b.Name)
		case a.Short == 0 || b.Short == 0:
			return a.Short == 0
		}
		return fa > fb // the same letter: lower case first
	})
	return opts
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
