package cdump_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/cdump"
	"github.com/gobtf/gobtf/internal/testutil"
)

// bpftoolC returns what "bpftool [-B base] btf dump file path format c"
// prints, skipping the test when bpftool is missing.
func bpftoolC(t *testing.T, path, base string) []byte {
	t.Helper()
	return testutil.Bpftool(t, base, "btf", "dump", "file", path, "format", "c")
}

// parseFile decodes a raw BTF file (split on base when base is non-nil).
func parseFile(t *testing.T, path string, base *btf.Spec) *btf.Spec {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	s, err := btf.Parse(data, base)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// header returns the C header cdump prints for s.
func header(t *testing.T, s *btf.Spec) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := cdump.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameAsBpftool fails the test with the first differing line unless got
// equals bpftool's header of path.
func sameAsBpftool(t *testing.T, got []byte, path, base string) {
	t.Helper()
	want := bpftoolC(t, path, base)
	if !bytes.Equal(got, want) {
		t.Errorf("header of %s differs from bpftool's (%d bytes, want %d):\n%s",
			filepath.Base(path), len(got), len(want), testutil.FirstDiff(string(got), string(want)))
	}
}

// TestReferenceVmlinux compares the header of the shared vmlinux BTF, made
// with both flavours of pahole flags, with bpftool's.
func TestReferenceVmlinux(t *testing.T) {
	for _, flavour := range []string{"kbuild", "default"} {
		t.Run(flavour, func(t *testing.T) {
			path := testutil.Reference(t, testutil.VmlinuxName+"."+flavour+".btf")
			sameAsBpftool(t, header(t, parseFile(t, path, nil)), path, "")
		})
	}
}

// TestReferenceModules compares the header of every shared module's split
// BTF, on the kbuild vmlinux BTF, with bpftool -B's (which prints the base's
// types too).
func TestReferenceModules(t *testing.T) {
	basePath := testutil.Reference(t, testutil.VmlinuxName+".kbuild.btf")
	base := parseFile(t, basePath, nil)
	for _, name := range testutil.ModuleNames {
		t.Run(name, func(t *testing.T) {
			path := testutil.Reference(t, "modules/"+name+".btf")
			sameAsBpftool(t, header(t, parseFile(t, path, base)), path, basePath)
		})
	}
}

// TestRunningKernel compares the header of this machine's kernel BTF, and of
// its first module's, with bpftool's.
func TestRunningKernel(t *testing.T) {
	const vmlinux = "/sys/kernel/btf/vmlinux"
	if _, err := os.Stat(vmlinux); err != nil {
		t.Skipf("skipping: no kernel BTF: %v", err)
	}
	base := parseFile(t, vmlinux, nil)
	sameAsBpftool(t, header(t, base), vmlinux, "")
	mods, _ := filepath.Glob("/sys/kernel/btf/*")
	for _, m := range mods {
		if m == vmlinux {
			continue
		}
		t.Run(filepath.Base(m), func(t *testing.T) {
			sameAsBpftool(t, header(t, parseFile(t, m, base)), m, vmlinux)
		})
		break
	}
}

// TestBadGraphs checks that what the printer cannot order is a clean error,
// and that loops a struct breaks are printed as libbpf prints them.
func TestBadGraphs(t *testing.T) {
	tests := []struct {
		name  string
		build func(s *btf.Spec)
		want  string // error text; "" for success
		// bpftool fails too (it loads the BTF and meets the same cycle);
		// the loops that pass through no struct would crash libbpf.
		bpftoolFails bool
	}{
		{"struct holding itself", func(s *btf.Spec) {
			// [1] int, [2] struct a { struct a x; }
			i := s.AddInt("int", 4, btf.IntSigned, 32)
			s.AddStruct(false, "a", 4, []btf.MemberSpec{{Name: "x", Type: i + 1}})
		}, "unsatisfiable type cycle", true},
		{"pointer to itself", func(s *btf.Spec) {
			s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 1)
		}, "reference loop", false},
		{"typedef loop", func(s *btf.Spec) {
			s.MustAppend(s.AddString("a"), btf.Info(btf.KindTypedef, false, 0), 2)
			s.MustAppend(0, btf.Info(btf.KindConst, false, 0), 1)
		}, "reference loop", false},
		{"prototype taking a pointer to itself", func(s *btf.Spec) {
			s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 2)
			s.AddFuncProto(0, []btf.ParamSpec{{Name: "f", Type: 1}})
			s.AddStruct(false, "s", 8, []btf.MemberSpec{{Name: "f", Type: 1}})
		}, "reference loop", false},
		{"reference past the end", func(s *btf.Spec) {
			s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 7)
		}, "past the last type", true},
		{"anonymous structs holding each other through pointers", func(s *btf.Spec) {
			// [1] struct { [2] *p }, [2] ptr -> [3] struct { [4] *q }, [4] ptr -> [1]
			s.AddStruct(false, "", 8, []btf.MemberSpec{{Name: "p", Type: 2}})
			s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 3)
			s.AddStruct(false, "", 8, []btf.MemberSpec{{Name: "q", Type: 4}})
			s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 1)
		}, "unsatisfiable type cycle", true},
		{"named struct through a pointer", func(s *btf.Spec) {
			s.AddStruct(false, "list", 8, []btf.MemberSpec{{Name: "next", Type: 2}})
			s.MustAppend(0, btf.Info(btf.KindPtr, false, 0), 1)
		}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := btf.NewSpec(nil)
			tc.build(s)
			var buf bytes.Buffer
			err := cdump.Write(&buf, s)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			path := filepath.Join(t.TempDir(), "in.btf")
			if err := os.WriteFile(path, s.Marshal(s.ByteOrder()), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				sameAsBpftool(t, buf.Bytes(), path, "")
				return
			}
			if bpftool, err := exec.LookPath("bpftool"); err == nil && tc.bpftoolFails {
				if out, err := exec.Command(bpftool, "btf", "dump", "file", path, "format", "c").CombinedOutput(); err == nil {
					t.Errorf("bpftool accepts what cdump rejects:\n%s", out)
				}
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteError checks that a failing writer's error comes back wrapped.
func TestWriteError(t *testing.T) {
	s := btf.NewSpec(nil)
	s.AddInt("int", 4, btf.IntSigned, 32)
	err := cdump.Write(failWriter{}, s)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("got %v, want the writer's error", err)
	}
}
