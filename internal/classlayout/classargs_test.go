package classlayout

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseClassList: -C lists split and parsed as pahole master does; the
// error texts are pahole's (after its "pahole: " prefix).
func TestParseClassList(t *testing.T) {
	for _, c := range []struct {
		list  string
		names []string
		args  []ClassArgs
		err   string
	}{
		{"holes", []string{"holes"}, []ClassArgs{{}}, ""},
		{"holes,", []string{"holes", ""}, []ClassArgs{{}, {}}, ""},
		{"a(sizeof=len,type=kind),b", []string{"a", "b"}, []ClassArgs{{Size: "len", TypeMember: "kind", N: 2}, {}}, ""},
		{"a(sizeof),b(type)", []string{"a", "b"}, []ClassArgs{{Size: "size", N: 1}, {TypeMember: "type", N: 1}}, ""},
		{"a( type_enum= e1+e2,range=r)", []string{"a"}, []ClassArgs{{TypeEnum: "e1+e2", Range: "r", N: 2}}, ""},
		{"a()", []string{"a"}, []ClassArgs{{}}, ""},
		{"a(sizeof=b)x,c", []string{"a", "c"}, []ClassArgs{{Size: "b", N: 1}, {}}, ""},
		{"holes(zz=b)", nil, nil, "invalid arg 'zz' in 'holes(zz=b)' (known args: sizeof=member, type=member, type_enum=enum)"},
		{"holes(sizeof", nil, nil, "invalid, no closing parens in 'holes(sizeof'"},
		{"holes(sizeof=)", nil, nil, "invalid, missing value in 'holes(sizeof=)'"},
		{"holes(size)", nil, nil, "invalid, missing '=' in 'size'"},
		{"holes(sizeof=b,x", nil, nil, "unterminated '(' in 'holes(sizeof=b,x'"},
		{"holes(filter=a==1)", nil, nil, "filters are not implemented"},
		{"holes(a==1)", nil, nil, "filters are not implemented"},
	} {
		names, args, err := ParseClassList(c.list, nil, nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.list, err, c.err)
			}
			if strings.Contains(c.err, "filters") && !errors.Is(err, ErrNotImplemented) {
				t.Errorf("%q: %v is not ErrNotImplemented", c.list, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(names, c.names) || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q: %q %+v %v; want %q %+v", c.list, names, args, err, c.names, c.args)
		}
	}
}

// FuzzParseClassList: any -C list parses to names and arguments, one each,
// or to an error; never a panic. A name never holds a '('.
func FuzzParseClassList(f *testing.F) {
	for _, s := range []string{"holes", "a(sizeof=len,type=kind),b", "a(b,c", "x(type_enum=a+b,range=1)x,y,", "a(b==1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		names, args, err := ParseClassList(list, func(string) ([]byte, error) { return []byte("a\nb(sizeof)\n"), nil }, nil)
		if err != nil {
			return
		}
		if len(names) != len(args) {
			t.Fatalf("%q: %d names, %d argument sets", list, len(names), len(args))
		}
		for _, n := range names {
			if strings.Contains(n, "(") {
				t.Fatalf("%q: name %q holds a '('", list, n)
			}
		}
	})
}
