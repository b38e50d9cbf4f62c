package compile

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	cl "github.com/gobtf/gobtf/internal/classlayout"
	"github.com/gobtf/gobtf/internal/testutil"
)

// print runs --compile (with opts' other choices) on a BTF fixture.
func print(t testing.TB, data []byte, opt cl.Options) (string, error) {
	spec, err := btf.Parse(data, nil)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	opt.CachelineSize = 64
	if opt.Emitter == nil {
		opt.Emitter = New(false)
	}
	err = cl.Print(cl.BTFSource("fixture", spec), opt, &out, io.Discard)
	return out.String(), err
}

// TestCompileFixtures: --compile of the layout fixtures' BTF is what pahole
// master prints (testdata/classlayout/*.btf.master.txt hold its output for
// "--compile"). It does not compile: pahole prints an array of function
// pointers as "void (*table)(int)[4]" (cmd/gobtf's TestCompileOutputCompiles
// compiles the kernel's).
func TestCompileFixtures(t *testing.T) {
	for _, fixture := range []string{"layout.gcc", "layout.clang"} {
		master := string(testutil.Testdata(t, "classlayout", fixture+".btf.master.txt"))
		head := "#### pahole -F btf --compile " + fixture + ".btf\n"
		i := strings.Index(master, head)
		if i < 0 {
			t.Fatalf("%s: no --compile section", fixture)
		}
		want := master[i+len(head):]
		want = want[:strings.Index(want, "#### ")]
		got, err := print(t, testutil.Testdata(t, "classlayout", fixture+".btf"), cl.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: differs from pahole master's:\n%s", fixture, testutil.FirstDiff(got, want))
		}
	}
}

// TestAtomicBase: the typedefs of pahole's atomic_ base types, as its
// base_type__emit_definitions spells them.
func TestAtomicBase(t *testing.T) {
	for in, want := range map[string]string{
		"int": " int", "uint": " unsigned int", "ulong": " unsigned long", "ullong": " unsigned long long",
		"llong": " long long", "schar": " signed char", "short": " short", "size_t": " size_t",
		"bool": " _Bool", "int32_t": " int", "uint16_t": " unsigned short", "": " ",
	} {
		if got := atomicBase(in); got != want {
			t.Errorf("atomic_%s: %q, want %q", in, got, want)
		}
	}
}

// FuzzCompile runs --compile on mutated BTF, whole or with a -C list, with
// --sort or not: any input is either rejected with an error or printed,
// never a panic or a hang (the walks are bounded on reference cycles).
func FuzzCompile(f *testing.F) {
	for _, name := range []string{"layout.gcc.btf", "layout.clang.btf", "reorg.gcc.btf"} {
		f.Add(testutil.Testdata(f, "classlayout", name), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := cl.Options{Emitter: New(mode&1 != 0), Sort: mode&2 != 0, ExpandTypes: mode&4 != 0}
		if mode&8 != 0 {
			opt.ClassNames = []string{"uses", "holes", "color"}
		}
		_, _ = print(t, data, opt)
	})
}

// BenchmarkCompileVmlinux is --compile of the shared kernel's BTF, loading
// included.
func BenchmarkCompileVmlinux(b *testing.B) {
	data, err := os.ReadFile(testutil.Reference(b, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := print(b, data, cl.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
