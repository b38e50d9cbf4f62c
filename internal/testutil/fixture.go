package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CCompiler returns gcc, or clang where gcc is missing, and skips the test
// when neither is installed; why says what the compiler is for.
func CCompiler(t testing.TB, why string) string {
	t.Helper()
	for _, name := range []string{"gcc", "clang"} {
		if cc, err := exec.LookPath(name); err == nil {
			return cc
		}
	}
	t.Skipf("skipping: no C compiler (gcc or clang) %s", why)
	return ""
}

// Compile runs the compiler cc with args in dir ("" for the current
// folder), skipping the test when cc is not installed. A failing run is
// returned as an error naming the command, with its output, for the caller
// to fail or skip on.
func Compile(t testing.TB, dir, cc string, args ...string) error {
	t.Helper()
	path, err := exec.LookPath(cc)
	if err != nil {
		t.Skipf("skipping: %s is not installed", cc)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
	}
	return nil
}

// CompileC writes the C source src to dir/in.c and compiles it with debug
// information and the given flags into dir/in.o, whose path it returns. It
// skips the test when there is no C compiler (CCompiler) and fails it when
// the compilation fails.
func CompileC(t testing.TB, dir, src string, flags ...string) string {
	t.Helper()
	cc := CCompiler(t, "to build the test's object")
	c, obj := filepath.Join(dir, "in.c"), filepath.Join(dir, "in.o")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Compile(t, "", cc, append(append([]string{"-g"}, flags...), "-c", c, "-o", obj)...); err != nil {
		t.Fatal(err)
	}
	return obj
}

// BuildFixture compiles the fixture src into out by the "// build:" command
// on src's first line, in which $SRC, $OUT, $DIR (src's folder), $LTOLD
// and the variables of vars are substituted. $LTOLD is the flag clang's
// link-time optimization needs for its own linker (-fuse-ld=lld), empty for
// other compilers. The test is skipped when the compiler vars["CC"] (or,
// for $LTOLD with clang, ld.lld) is not installed. A failing command is
// returned as an error with its output, for the caller to fail or skip on.
func BuildFixture(t testing.TB, src, out string, vars map[string]string) error {
	t.Helper()
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(text), "\n")
	cmdline, ok := strings.CutPrefix(line, "// build: ")
	if !ok {
		t.Fatalf("%s: the first line has no build command", src)
	}
	cc := vars["CC"]
	if cc != "" {
		if _, err := exec.LookPath(cc); err != nil {
			t.Skipf("skipping: %s is not installed", cc)
		}
	}
	ltoLD := ""
	if cc == "clang" && strings.Contains(cmdline, "$LTOLD") {
		if _, err := exec.LookPath("ld.lld"); err != nil {
			t.Skip("skipping: clang LTO needs ld.lld (lld) installed")
		}
		ltoLD = "-fuse-ld=lld"
	}
	args := strings.Fields(os.Expand(cmdline, func(v string) string {
		switch v {
		case "SRC":
			return src
		case "OUT":
			return out
		case "DIR":
			return filepath.Dir(src)
		case "LTOLD":
			return ltoLD
		}
		return vars[v]
	}))
	if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}
