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
		{"a(sizeof=len,type=kind),b", []string{"a", "b"}, []ClassArgs{{Size: "len", TypeMember: "kind", N: 2, Has: HasSize | HasType}, {}}, ""},
		{"a(sizeof),b(type)", []string{"a", "b"}, []ClassArgs{{Size: "size", N: 1, Has: HasSize}, {TypeMember: "type", N: 1, Has: HasType}}, ""},
		{"a( type_enum= e1+e2,range=r)", []string{"a"}, []ClassArgs{{TypeEnum: "e1+e2", Range: "r", N: 2, Has: HasTypeEnum | HasRange}}, ""},
		{"a()", []string{"a"}, []ClassArgs{{}}, ""},
		{"a(sizeof=b)x,c", []string{"a", "c"}, []ClassArgs{{Size: "b", N: 1, Has: HasSize}, {}}, ""},
		{"holes(zz=b)", nil, nil, "invalid arg 'zz' in 'holes(zz=b)' (known args: sizeof=member, type=member, type_enum=enum)"},
		{"holes(sizeof", nil, nil, "invalid, no closing parens in 'holes(sizeof'"},
		{"holes(sizeof=)", nil, nil, "invalid, missing value in 'holes(sizeof=)'"},
		{"holes(size)", nil, nil, "invalid, missing '=' in 'size'"},
		{"holes(sizeof=b,x", nil, nil, "Unterminated '(' in 'holes(sizeof=b,x'\n                          ^"},
		{"a,b(sizeof=b,x", nil, nil, "Unterminated '(' in 'a,b(sizeof=b,x'\n                        ^"},
		{"holes(filter=a==1)", []string{"holes"}, []ClassArgs{{Filter: "a==1", N: 1, Has: HasFilter}}, ""},
		{"holes( a==1,sizeof=)", nil, nil, "invalid, missing value"},
		{"holes( a==1,sizeof=,range= r)", []string{"holes"}, []ClassArgs{{Filter: "a==1", Range: "r", N: 3, Has: HasFilter | HasSize | HasRange, FilterAfterBlank: true}}, ""},
		{"holes(filter= ==1)", []string{"holes"}, []ClassArgs{{Filter: "==1", N: 1, Has: HasFilter, FilterAfterBlank: true}}, ""},
	} {
		names, args, err := ParseClassList(c.list, nil, nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.list, err, c.err)
			}
			var le *ClassListError
			if !errors.As(err, &le) || !strings.HasSuffix(le.Msg, "\n") {
				t.Errorf("%q: %v is not a ClassListError with pahole's line", c.list, err)
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
