package prettify

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/classlayout"
	"github.com/gobtf/gobtf/internal/testutil"
)

// fixture is testdata/prettify's records.btf, the types of records.c.
func fixture(t testing.TB) classlayout.Source {
	t.Helper()
	path := filepath.Join(testutil.RepoRoot(), "testdata", "prettify", "records.btf")
	spec, _, err := btffile.OpenLibbpf(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return classlayout.BTFSource(path, spec)
}

// recordsType is the -C type that walks records.bin's records section.
var recordsType = Prototype{Name: "rec_header", Args: classlayout.ClassArgs{
	Size: "size", TypeMember: "type", TypeEnum: "rec_type+rec_more", N: 3,
	Has: classlayout.HasSize | classlayout.HasType | classlayout.HasTypeEnum,
}}

// TestValues: values printed as pahole prints them (the rules of its
// tag__fprintf_value; TestPrettifyCommandLines in cmd/gobtf holds pahole
// master's own output on the same fixture).
func TestValues(t *testing.T) {
	src := fixture(t)
	for _, c := range []struct {
		name  string
		proto Prototype
		hex   bool
		data  []byte
		want  string
	}{
		{"a base type's value sign-extended from its size", Prototype{Name: "rec_header"}, false,
			[]byte{0xff, 0xff, 0xff, 0xff, 0x80, 0xff, 0x08, 0},
			"{\n\t.type = -1,\n\t.misc = -128,\n\t.size = 8,\n},\n"},
		{"--hex, and 0 without 0x", Prototype{Name: "rec_header"}, true,
			[]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0x08, 0},
			"{\n\t.type = 0xffffffffffffffff,\n\t.misc = 0,\n\t.size = 0x8,\n},\n"},
		{"type= names the value in type_enum=", recordsType, false,
			[]byte{9, 0, 0, 0, 0, 0, 8, 0},
			"{\n\t.type = REC_EMPTY,\n\t.misc = 0,\n\t.size = 8,\n},\n"},
		{"a union is a hex dump", Prototype{Name: "rec_any"}, false,
			[]byte{1, 2, 3, 4, 5, 6, 7, 0xff},
			"0x01 0x02 0x03 0x04 0x05 0x06 0x07 0xff,\n"},
		{"a typedef is a hex dump", Prototype{Name: "span_t"}, false,
			[]byte{1, 0, 0, 0, 2, 0, 0, 0},
			"0x01 0x00 0x00 0x00 0x02 0x00 0x00 0x00,\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			r := NewRun(Options{Hex: c.hex, Count: 1}, []Prototype{c.proto}, NewInput(bytes.NewReader(c.data)), &out, &errOut)
			if err := r.Print(src); err != nil {
				t.Fatal(err)
			}
			if err := r.Finish(); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.want || errOut.Len() != 0 {
				t.Errorf("printed %q, said %q; want %q", out.String(), errOut.String(), c.want)
			}
		})
	}
}

// TestRecordStruct: the record's real struct, by its type= enumerator in
// lower case, with the nested header's type= member named too; a string
// stops at its NUL or its array's end.
func TestRecordStruct(t *testing.T) {
	rec := make([]byte, 46)
	copy(rec, []byte{2, 0, 0, 0, 0, 0, 46, 0})
	copy(rec[8:], "twelve chars")
	var out bytes.Buffer
	r := NewRun(Options{Count: 1}, []Prototype{recordsType}, NewInput(bytes.NewReader(rec)), &out, &out)
	if err := r.Print(fixture(t)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"{\n\t.header = {\n\t\t.type = REC_NAME,\n\t\t.misc = 0,\n\t\t.size = 46,\n\t},\n\t.name = \"twelve chars\",\n", "\t.rest = \"\",\n},\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed\n%s\nwithout\n%s", out.String(), want)
		}
	}
}

// FuzzPrint: any bytes walk as the fixture's records and print without a
// panic, ending in a record's close.
func FuzzPrint(f *testing.F) {
	data := testutil.Testdata(f, "prettify", "records.bin")
	f.Add(data[112:400], false)
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0xff, 0xff, 1}, true)
	f.Add([]byte{2, 0, 0, 0, 0, 0, 9, 0, 'x'}, false)
	src := fixture(f)
	f.Fuzz(func(t *testing.T, data []byte, hex bool) {
		var out, errOut bytes.Buffer
		r := NewRun(Options{Hex: hex, Verbose: true}, []Prototype{recordsType}, NewInput(bytes.NewReader(data)), &out, &errOut)
		if err := r.Print(src); err != nil {
			t.Fatal(err)
		}
		if out.Len() > 0 && !strings.HasSuffix(out.String(), "},\n") {
			t.Fatalf("output ends %q", out.String()[max(0, out.Len()-20):])
		}
	})
}

// BenchmarkPrettify walks and prints records.bin's records section, again
// and again, as one stream.
func BenchmarkPrettify(b *testing.B) {
	data := testutil.Testdata(b, "prettify", "records.bin")[112:1802]
	stream := bytes.Repeat(data, 256)
	src := fixture(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		var out countWriter
		r := NewRun(Options{}, []Prototype{recordsType}, NewInput(bytes.NewReader(stream)), &out, &out)
		if err := r.Print(src); err != nil {
			b.Fatal(err)
		}
	}
}

type countWriter int

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }
