package classlayout

import (
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
		{"holes(filter=a==1)", []string{"holes"}, []ClassArgs{{Filter: "a==1", N: 1}}, ""},
		{"holes(a==1,sizeof=b)", []string{"holes"}, []ClassArgs{{Filter: "a==1", Size: "b", N: 2}}, ""},
	} {
		names, args, err := ParseClassList(c.list, nil, nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.list, err, c.err)
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

// TestParseFilter: filters split as pahole master's class_member_filter__parse
// splits them, and numbers read as its strtoll(..., 0) reads them whole.
func TestParseFilter(t *testing.T) {
	for _, c := range []struct {
		expr        string
		left, right string
		err         bool
		num         bool
	}{
		{"next==1", "next", "1", false, true},
		{"next  ==  0x1f", "next", "0x1f", false, true},
		{"a==017", "a", "017", false, true},
		{"a==09", "a", "09", false, false},
		{"a==-3 ", "a", "-3 ", false, true},
		{"a==MMAP", "a", "MMAP", false, false},
		{"a=1", "", "", true, false},
		{"  ==1", "", "", true, false},
		{"==1", "", "1", false, true},
	} {
		f, err := ParseFilter(c.expr)
		if (err != nil) != c.err {
			t.Errorf("%q: error %v", c.expr, err)
			continue
		}
		if err == nil && (f.Left != c.left || f.Right != c.right || number(f.Right) != c.num) {
			t.Errorf("%q: %+v number %v; want %q %q %v", c.expr, f, number(f.Right), c.left, c.right, c.num)
		}
	}
}

// FuzzParseFilter: any expression parses or fails, never panics; what
// parses had "==" between its operands.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"next==1", "a ==  0x10", "type==PERF_RECORD_MMAP", "==", " ==1", "a=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		fl, err := ParseFilter(expr)
		if err != nil {
			return
		}
		if !strings.Contains(expr, "==") || !strings.HasPrefix(expr, fl.Left) || !strings.HasSuffix(expr, fl.Right) {
			t.Fatalf("%q: parsed as %+v", expr, fl)
		}
		number(fl.Right)
	})
}
