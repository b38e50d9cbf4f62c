package elfio

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/testutil"
)

// smallObject builds a small x86-64 relocatable object in dir.
func smallObject(t *testing.T, dir string) string {
	t.Helper()
	return buildInput(t, dir, "small.o", "gcc", "-g", "-c")
}

// bigObject returns an object of about size bytes: smallObject plus a
// section of filler written by WriteSections itself.
func bigObject(t *testing.T, dir string, size int) string {
	t.Helper()
	obj := smallObject(t, dir)
	if err := WriteSections(obj, []NewSection{{Name: ".filler", Data: testData(size, 5)}}); err != nil {
		t.Fatal(err)
	}
	return obj
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// checkIntact fails unless path holds want and is the only file in its
// directory (no temporary file left).
func checkIntact(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed (%d bytes, was %d)", path, len(got), len(want))
	}
	if names := dirNames(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("files left beside %s: %v", path, names)
	}
}

func TestWriteSectionsErrors(t *testing.T) {
	dir := t.TempDir()
	obj := smallObject(t, dir)
	exe := buildInput(t, dir, "exe", "gcc", "-g", "-no-pie")
	text := []byte("not an ELF file at all, just text that is long enough for a header......")
	notELF := filepath.Join(dir, "text")
	if err := os.WriteFile(notELF, text, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		path string
		secs []NewSection
		want []string // substrings of the error
	}{
		{"missing file", filepath.Join(dir, "nope"), []NewSection{{Name: ".BTF"}}, []string{"nope", "no such file"}},
		{"not ELF", notELF, []NewSection{{Name: ".BTF"}}, []string{notELF, "not an ELF file"}},
		{"empty name", obj, []NewSection{{Name: ""}}, []string{obj, "empty name"}},
		{"twice", obj, []NewSection{{Name: ".BTF"}, {Name: ".BTF"}}, []string{obj, ".BTF", "twice"}},
		{"bad alignment", obj, []NewSection{{Name: ".BTF", Align: 3}}, []string{obj, ".BTF", "power of two"}},
		{"name table", obj, []NewSection{{Name: ".shstrtab"}}, []string{obj, ".shstrtab", "name table"}},
		{"symbol table", obj, []NewSection{{Name: ".symtab"}}, []string{obj, ".symtab", "type"}},
		{"relocated", obj, []NewSection{{Name: ".text"}}, []string{obj, ".text", ".rela.text", "relocations"}},
		{"allocated", exe, []NewSection{{Name: ".text", Data: []byte{1}}}, []string{exe, ".text", "allocated", "offset 0x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := os.ReadFile(c.path)
			err := WriteSections(c.path, c.secs)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			after, _ := os.ReadFile(c.path)
			if !bytes.Equal(before, after) {
				t.Error("the file changed")
			}
		})
	}
	// An allocated section may be rewritten in place with data of its size.
	t.Run("allocated same size", func(t *testing.T) {
		ef := mustOpenELF(t, exe)
		size := ef.Section(".rodata").Size
		ef.Close()
		writeAndCheck(t, exe, []NewSection{{Name: ".rodata", Data: testData(int(size), 7), Align: ef.Section(".rodata").Addralign}})
	})
	for _, name := range dirNames(t, dir) {
		if isTempName(name, "small.o") || isTempName(name, "exe") {
			t.Errorf("temporary file left: %s", name)
		}
	}
}

// TestWriteSectionsCorrupt feeds truncated and byte-flipped objects to
// WriteSections: it must not panic, and when it fails the file must be
// untouched.
func TestWriteSectionsCorrupt(t *testing.T) {
	dir := t.TempDir()
	obj := smallObject(t, dir)
	orig, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	f := mustReadELF(t, obj)
	shEnd := int(f.shoff) + f.shnum*f.shentsize
	work := filepath.Join(t.TempDir(), "w.o")
	var mutants [][]byte
	for _, n := range []int{0, 3, 16, 40, 63, 64, int(f.shoff), int(f.shoff) + 70, shEnd - 1, len(orig) / 2} {
		mutants = append(mutants, orig[:n])
	}
	// Flip every byte of the ELF header and of the section header table.
	flip := func(i int, v byte) {
		m := bytes.Clone(orig)
		m[i] = v
		mutants = append(mutants, m)
	}
	for i := range 64 {
		flip(i, orig[i]^0xff)
		flip(i, 0)
	}
	step := 3
	if testing.Short() {
		step = 17
	}
	for i := int(f.shoff); i < shEnd; i += step {
		flip(i, orig[i]^0x80)
		flip(i, 0xff)
	}
	failed := 0
	for _, m := range mutants {
		if err := os.WriteFile(work, m, 0o644); err != nil {
			t.Fatal(err)
		}
		err := WriteSections(work, []NewSection{{Name: ".BTF", Data: []byte{1, 2, 3}}})
		if err != nil {
			failed++
			got, _ := os.ReadFile(work)
			if !bytes.Equal(got, m) {
				t.Fatalf("failed (%v) but changed the file", err)
			}
			if !strings.Contains(err.Error(), work) {
				t.Errorf("error %q does not name the file", err)
			}
		}
	}
	t.Logf("%d corrupt inputs, %d rejected, the rest written without panic", len(mutants), failed)
	if failed == 0 {
		t.Error("no corrupt input was rejected")
	}
}

func mustReadELF(t *testing.T, path string) *elfFile {
	t.Helper()
	fd, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	fi, _ := fd.Stat()
	f, err := readELF(fd, uint64(fi.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWriteSectionsNoSpace: a full file system and a read-only one give a
// clear error naming the file, and leave it and its directory unchanged,
// with the unnamed and the named temporary file alike.
func TestWriteSectionsNoSpace(t *testing.T) {
	src := bigObject(t, t.TempDir(), 600<<10)
	orig, _ := os.ReadFile(src)
	for _, tmpfile := range []bool{true, false} {
		mode := map[bool]string{true: "O_TMPFILE", false: "named temporary file"}[tmpfile]
		t.Run("full disk, "+mode, func(t *testing.T) {
			defer func(v bool) { useTmpfile = v }(useTmpfile)
			useTmpfile = tmpfile
			dir := testutil.MountTmpfs(t, "1m")
			path := filepath.Join(dir, "big.o")
			copyFile(t, src, path)
			err := WriteSections(path, []NewSection{{Name: ".BTF", Data: testData(100<<10, 1)}})
			if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v, want ENOSPC naming %s", err, path)
			}
			t.Logf("error: %v", err)
			checkIntact(t, path, orig)
		})
		t.Run("read-only, "+mode, func(t *testing.T) {
			defer func(v bool) { useTmpfile = v }(useTmpfile)
			useTmpfile = tmpfile
			dir := testutil.MountTmpfs(t, "4m")
			path := filepath.Join(dir, "big.o")
			copyFile(t, src, path)
			if msg, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
				t.Skipf("skipping: cannot remount read-only: %v %s", err, msg)
			}
			err := WriteSections(path, []NewSection{{Name: ".BTF", Data: testData(100, 1)}})
			if err == nil || !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v, want EROFS naming %s", err, path)
			}
			t.Logf("error: %v", err)
			checkIntact(t, path, orig)
		})
	}
}

// TestWriteHelperProcess is not a test: TestWriteSectionsKilled runs the
// test binary with GOBTF_WRITE_HELPER set, and this function then writes a
// section, stopping at the stage named in GOBTF_WRITE_STAGE until killed.
func TestWriteHelperProcess(t *testing.T) {
	path := os.Getenv("GOBTF_WRITE_HELPER")
	if path == "" {
		t.Skip("helper process for TestWriteSectionsKilled")
	}
	stage := os.Getenv("GOBTF_WRITE_STAGE")
	useTmpfile = os.Getenv("GOBTF_WRITE_NAMED") == ""
	WriteHook = func(s string) {
		if s == stage {
			os.Stdout.WriteString("at " + s + "\n")
			time.Sleep(time.Hour)
		}
	}
	err := WriteSections(path, []NewSection{{Name: ".BTF", Data: testData(1<<20, 8)}})
	os.Stdout.WriteString("done\n")
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteSectionsKilled kills a writing process at each stage and checks
// that the target is intact. With O_TMPFILE nothing is left behind except
// after "linked" (the instant between naming the finished temporary file and
// renaming it); with a named temporary file a SIGKILL leaves it, SIGTERM
// does not. Either leftover is removed by the next WriteSections.
func TestWriteSectionsKilled(t *testing.T) {
	src := bigObject(t, t.TempDir(), 32<<20)
	orig, _ := os.ReadFile(src)
	cases := []struct {
		stage    string
		named    bool
		sig      syscall.Signal
		leftover bool
	}{
		{"created", false, syscall.SIGKILL, false},
		{"copied", false, syscall.SIGKILL, false},
		{"written", false, syscall.SIGKILL, false},
		{"synced", false, syscall.SIGKILL, false},
		{"linked", false, syscall.SIGKILL, true},
		{"created", true, syscall.SIGKILL, true},
		{"written", true, syscall.SIGKILL, true},
		{"synced", true, syscall.SIGKILL, true},
		{"copied", true, syscall.SIGTERM, false},
		{"written", true, syscall.SIGINT, false},
	}
	for _, c := range cases {
		name := c.stage + map[bool]string{true: " named", false: " O_TMPFILE"}[c.named] + " " + c.sig.String()
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "target.o")
			copyFile(t, src, path)
			cmd := exec.Command(os.Args[0], "-test.run=^TestWriteHelperProcess$")
			cmd.Env = append(os.Environ(), "GOBTF_WRITE_HELPER="+path, "GOBTF_WRITE_STAGE="+c.stage)
			if c.named {
				cmd.Env = append(cmd.Env, "GOBTF_WRITE_NAMED=1")
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "at "+c.stage+"\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("helper said %q, want it to stop at %s", line, c.stage)
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != c.sig {
				t.Fatalf("helper ended with %v, want killed by %v", err, c.sig)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, orig) {
				t.Fatalf("target changed after %v at %s", c.sig, c.stage)
			}
			names := dirNames(t, dir)
			var temps []string
			for _, n := range names {
				if n != "target.o" {
					if !isTempName(n, "target.o") {
						t.Errorf("unexpected file %s", n)
					}
					temps = append(temps, n)
				}
			}
			if c.leftover != (len(temps) > 0) {
				t.Errorf("files left: %v; a leftover expected: %v", temps, c.leftover)
			}
			// The next write succeeds and removes the leftover.
			if err := WriteSections(path, []NewSection{{Name: ".BTF", Data: []byte("x")}}); err != nil {
				t.Fatal(err)
			}
			if names := dirNames(t, dir); len(names) != 1 {
				t.Errorf("after the next write: %v", names)
			}
		})
	}
}

func mustOpenELF(t *testing.T, path string) *elf.File {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWriteFile: a new file gets 0644 less the umask, an existing one
// keeps its mode; a folder that is missing, a target that is a folder, a
// full file system and a read-only one are errors naming the target that
// leave the folder as it was.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.btf")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0)
	syscall.Umask(old)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644&^os.FileMode(old) {
		t.Errorf("new file mode %v, want %v", fi.Mode().Perm(), 0o644&^os.FileMode(old))
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want 0600 kept", fi.Mode().Perm())
	}
	checkIntact(t, path, []byte("two"))
	missing := filepath.Join(dir, "no", "out.btf")
	if err := WriteFile(missing, nil); err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing folder: %v", err)
	}
	if err := WriteFile(dir, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("folder: %v", err)
	}
	for _, tmpfile := range []bool{true, false} {
		func() {
			defer func(v bool) { useTmpfile = v }(useTmpfile)
			useTmpfile = tmpfile
			full := testutil.MountTmpfs(t, "1m")
			target := filepath.Join(full, "out.btf")
			if err := os.WriteFile(target, []byte("before"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := WriteFile(target, testData(2<<20, 3))
			if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), target) {
				t.Fatalf("full disk (O_TMPFILE %v): error %v, want ENOSPC naming %s", tmpfile, err, target)
			}
			checkIntact(t, target, []byte("before"))
		}()
	}
}

// TestWriteFileHelperProcess is not a test: TestWriteFileKilled runs the
// test binary with GOBTF_WRITEFILE_HELPER set, and this function then
// writes the file, stopping at the stage named in GOBTF_WRITE_STAGE until
// killed.
func TestWriteFileHelperProcess(t *testing.T) {
	path := os.Getenv("GOBTF_WRITEFILE_HELPER")
	if path == "" {
		t.Skip("helper process for TestWriteFileKilled")
	}
	stage := os.Getenv("GOBTF_WRITE_STAGE")
	useTmpfile = os.Getenv("GOBTF_WRITE_NAMED") == ""
	WriteHook = func(s string) {
		if s == stage {
			os.Stdout.WriteString("at " + s + "\n")
			time.Sleep(time.Hour)
		}
	}
	if err := WriteFile(path, testData(1<<20, 9)); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFileKilled kills a process writing a file with WriteFile at
// each stage: the target keeps its old contents, and what is left beside
// it (the named temporary file, after a SIGKILL) is removed by the next
// write.
func TestWriteFileKilled(t *testing.T) {
	for _, c := range []struct {
		stage string
		named bool
	}{{"created", false}, {"written", false}, {"synced", false}, {"linked", false}, {"created", true}, {"written", true}, {"synced", true}} {
		t.Run(fmt.Sprintf("%s named=%v", c.stage, c.named), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.btf")
			if err := os.WriteFile(path, []byte("before"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileHelperProcess$")
			cmd.Env = append(os.Environ(), "GOBTF_WRITEFILE_HELPER="+path, "GOBTF_WRITE_STAGE="+c.stage)
			if c.named {
				cmd.Env = append(cmd.Env, "GOBTF_WRITE_NAMED=1")
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, _ := bufio.NewReader(out).ReadString('\n'); line != "at "+c.stage+"\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("helper said %q, want it to stop at %s", line, c.stage)
			}
			cmd.Process.Kill()
			cmd.Wait()
			if got, _ := os.ReadFile(path); string(got) != "before" {
				t.Fatalf("target changed after a kill at %s", c.stage)
			}
			for _, n := range dirNames(t, dir) {
				if n != "out.btf" && !isTempName(n, "out.btf") {
					t.Errorf("unexpected file %s", n)
				}
			}
			if err := WriteFile(path, []byte("after")); err != nil {
				t.Fatal(err)
			}
			checkIntact(t, path, []byte("after"))
		})
	}
}
