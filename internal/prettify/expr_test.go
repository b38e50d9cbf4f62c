package prettify

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/classlayout"
)

// TestStrtol: C's strtol(s, &end, 0) on a 64-bit long, as glibc reads it.
func TestStrtol(t *testing.T) {
	for _, c := range []struct {
		s   string
		n   int64
		end int
	}{
		{"72", 72, 2},
		{"0x48", 72, 4},
		{"0X48", 72, 4},
		{"0110", 72, 4},
		{"-1", -1, 2},
		{"+5", 5, 2},
		{" \t72", 72, 4},
		{"12abc", 12, 2},
		{"08", 0, 1}, // octal stops at 8
		{"0x", 0, 1}, // "0" then an x that starts no hexadecimal number
		{"0xg", 0, 1},
		{"abc", 0, 0},
		{"", 0, 0},
		{"-", 0, 0},
		{"9223372036854775807", 1<<63 - 1, 19},
		{"9223372036854775808", 1<<63 - 1, 19},
		{"-9223372036854775808", -1 << 63, 20},
		{"-9223372036854775809", -1 << 63, 20},
		{"0xffffffffffffffffff", 1<<63 - 1, 20},
	} {
		n, end := Strtol(c.s)
		if n != c.n || end != c.end {
			t.Errorf("Strtol(%q) = %d, %d; want %d, %d", c.s, n, end, c.n, c.end)
		}
	}
}

// TestParseOperand: "$header." names a member, anything else is strtol's.
func TestParseOperand(t *testing.T) {
	for _, c := range []struct {
		s      string
		member string
		n      int64
		header bool
	}{
		{"$header.e_phoff", "e_phoff", 0, true},
		{"$header.data.offset", "data.offset", 0, true},
		{"$header.", "", 0, true},
		{"$headerx", "", 0, false},
		{"0x40", "", 64, false},
		{"", "", 0, false},
	} {
		o := ParseOperand(c.s)
		if o.Member != c.member || o.Number != c.n || o.IsHeader() != c.header || o.Text != c.s {
			t.Errorf("ParseOperand(%q) = %+v", c.s, o)
		}
	}
}

// testModel is a unit with
//
//	struct hdr { unsigned int type; unsigned short misc; unsigned short size; };  // 1
//	enum kinds { PERF_RECORD_A = 1, PERF_RECORD_B = 2, PERF_RECORD_BIG = 3 };      // 2
//	unsigned int; unsigned short; int                                             // 3, 4, 5
//	struct outer { int a; struct hdr h; struct { struct hdr in; } s; };           // 6
//	typedef struct hdr hdr_t;                                                     // 7
//	struct anon_s { struct hdr in; }                                              // 8 (anonymous)
//	enum one { ONLY = 7 };                                                        // 9
func testModel() *classlayout.Model {
	return &classlayout.Model{
		Types: []classlayout.Type{
			{},
			{Kind: classlayout.KindStruct, Name: "hdr", Size: 8, First: 0, N: 3},
			{Kind: classlayout.KindEnum, Name: "kinds", Size: 4, First: 0, N: 3},
			{Kind: classlayout.KindBase, Name: "unsigned int", Size: 4},
			{Kind: classlayout.KindBase, Name: "short unsigned int", Size: 2},
			{Kind: classlayout.KindBase, Name: "int", Size: 4},
			{Kind: classlayout.KindStruct, Name: "outer", Size: 20, First: 3, N: 3},
			{Kind: classlayout.KindTypedef, Name: "hdr_t", Ref: 1},
			{Kind: classlayout.KindStruct, Size: 8, First: 6, N: 1},
			{Kind: classlayout.KindEnum, Name: "one", Size: 4, First: 3, N: 1},
		},
		Members: []classlayout.Member{
			{Name: "type", Type: 3, ByteOffset: 0, ByteSize: 4},
			{Name: "misc", Type: 4, ByteOffset: 4, ByteSize: 2},
			{Name: "size", Type: 4, ByteOffset: 6, ByteSize: 2},
			{Name: "a", Type: 5, ByteOffset: 0, ByteSize: 4},
			{Name: "h", Type: 1, ByteOffset: 4, ByteSize: 8},
			{Name: "s", Type: 8, ByteOffset: 12, ByteSize: 8},
			{Name: "in", Type: 1, ByteOffset: 0, ByteSize: 8},
		},
		Enumerators: []classlayout.Enumerator{
			{Name: "PERF_RECORD_A", Value: 1},
			{Name: "PERF_RECORD_B", Value: 2},
			{Name: "PERF_RECORD_BIG", Value: 3},
			{Name: "ONLY", Value: 7},
		},
		AddrSize: 8,
	}
}

// TestMemberPath: type_instance__int_value's look-up, one nested level.
func TestMemberPath(t *testing.T) {
	m := testModel()
	for _, c := range []struct {
		path      string
		off, size uint32
		ok        bool
	}{
		{"a", 0, 4, true},
		{"h.size", 10, 2, true},
		{"h.misc", 8, 2, true},
		{"s.in", 0, 0, false},      // a struct, not an integer
		{"s.in.type", 0, 0, false}, // pahole looks "in.type" up as one name
		{"h", 0, 0, false},
		{"nope", 0, 0, false},
		{"h.nope", 0, 0, false},
		{"a.b", 0, 0, false}, // a is no struct
		{"", 0, 0, false},
	} {
		off, size, ok := memberPath(m, 6, c.path)
		if off != c.off || size != c.size || ok != c.ok {
			t.Errorf("memberPath(outer, %q) = %d, %d, %v; want %d, %d, %v", c.path, off, size, ok, c.off, c.size, c.ok)
		}
	}
}

// TestParseFilter: "member==value", the value a number or, on the type=
// member, an enumerator with or without its enumeration's common prefix.
func TestParseFilter(t *testing.T) {
	m := testModel()
	enums := []uint32{2, 9}
	for _, c := range []struct {
		s          string
		typeMember int
		member     int
		right      uint64
		ok         bool
		says       string
	}{
		{"type==2", 0, 0, 2, true, ""},
		{"size == 0x10", 0, 2, 16, true, ""},
		{"type==-1", 0, 0, ^uint64(0), true, ""},
		{"type==B", 0, 0, 2, true, ""},
		{"type==PERF_RECORD_BIG", 0, 0, 3, true, ""},
		{"type==BIG", 0, 0, 3, true, ""},
		{"type==ONLY", 0, 0, 7, true, ""}, // one enumerator: no prefix
		{"type==NONE", 0, 0, 0, false, "Couldn't resolve right operand ('NONE')"},
		{"type==B ", 0, 0, 0, false, "Couldn't resolve"},
		{"misc==B", 0, 0, 0, false, "type->type_member"},
		{"type==B", -1, 0, 0, false, "type->type_member"},
		{"nope==1", 0, 0, 0, false, "The 'nope' member wasn't found in 'hdr'"},
		{"type", 0, 0, 0, false, "No supported operator"},
		{"  ==1", 0, 0, 0, false, "No left operand"},
		{"type==   ", 0, 0, 0, false, "was asked without a value"},
		{"==1", 0, 0, 0, false, "The '' member"},
	} {
		var say strings.Builder
		f, ok := ParseFilter(m, 1, c.typeMember, enums, c.s, false, &say)
		if ok != c.ok || (ok && (f.Member != c.member || f.Right != c.right)) {
			t.Errorf("ParseFilter(%q) = %+v, %v; want member %d == %d, %v", c.s, f, ok, c.member, c.right, c.ok)
		}
		if !strings.Contains(say.String(), c.says) || (c.says == "") != (say.Len() == 0) {
			t.Errorf("ParseFilter(%q) says %q; want %q", c.s, say.String(), c.says)
		}
	}
	if _, ok := ParseFilter(m, 1, 0, nil, "type==B", false, nil); ok {
		t.Errorf("a symbolic value without type_enum= parses")
	}
}

// FuzzStrtol: Strtol agrees with strconv where a number is plain decimal,
// never reads past its text, and never panics.
func FuzzStrtol(f *testing.F) {
	for _, s := range []string{"72", "0x48", "-0110", " 9", "0x", "99999999999999999999", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, end := Strtol(s)
		if end < 0 || end > len(s) {
			t.Fatalf("Strtol(%q): end %d", s, end)
		}
		if end == 0 && n != 0 {
			t.Fatalf("Strtol(%q) = %d without a digit", s, n)
		}
		if s != "" && s[0] >= '1' && s[0] <= '9' && strings.Trim(s, "0123456789") == "" {
			if want, err := strconv.ParseInt(s, 10, 64); err == nil && (n != want || end != len(s)) {
				t.Fatalf("Strtol(%q) = %d, %d; want %d", s, n, end, want)
			}
		}
		o := ParseOperand(s)
		if !o.IsHeader() && o.Number != n {
			t.Fatalf("ParseOperand(%q).Number = %d, Strtol %d", s, o.Number, n)
		}
	})
}

// FuzzParseFilter: any filter text parses to a member of the struct and a
// value, or to a refusal; never a panic.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"type==2", "type==B", "size == 0x10", "==", " ==x", "type==", "a==b==c"} {
		f.Add(s, true)
	}
	m := testModel()
	f.Fuzz(func(t *testing.T, s string, blank bool) {
		var say strings.Builder
		fl, ok := ParseFilter(m, 1, 0, []uint32{2, 9}, s, blank, &say)
		if ok && (fl.Member < 0 || fl.Member >= 3 || say.Len() != 0) {
			t.Fatalf("ParseFilter(%q) = %+v, saying %q", s, fl, say.String())
		}
		if !ok && say.Len() == 0 {
			t.Fatalf("ParseFilter(%q) refused without a word", s)
		}
	})
}
