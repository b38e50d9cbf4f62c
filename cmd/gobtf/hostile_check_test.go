package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/testutil"
	"github.com/gobtf/gobtf/internal/testutil/dwarfgen"
)

// checkHostileCase is a hostile input to gobtf check: files, and the exit
// status they must end in (1: rejected, with a verdict on stdout; 2: not
// checked, with one line per such file on stderr).
type checkHostileCase struct {
	name  string
	setup func(t *testing.T, dir string) []string // the arguments after "check"
	code  int
	want  string // a substring of the output (stdout, then stderr)
}

// TestHostileCheck runs gobtf check as a separate process on truncated,
// oversized, cyclic and absurd inputs: each must end in a verdict or a
// one-line error naming the file, exit 1 or 2 as it should, within the
// time and memory bounds, without a crash, leaving the input as it was.
func TestHostileCheck(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base := btf.NewSpec(nil)
	i := base.AddInt("int", 4, btf.IntSigned, 32)
	base.AddRef(btf.KindPtr, "", i)
	baseBlob := base.Marshal(binary.LittleEndian)
	withBase := func(dir string, args ...string) []string {
		return append([]string{"--base", writeInput(t, dir, "vmlinux.btf", baseBlob)}, args...)
	}
	module := func(btfData, distData []byte) []byte {
		secs := []dwarfgen.Section{{Name: ".BTF", Data: btfData}}
		if distData != nil {
			secs = append(secs, dwarfgen.Section{Name: ".BTF.base", Data: distData})
		}
		return dwarfgen.RelocatableELF(secs...)
	}
	cases := []checkHostileCase{
		{name: "empty file", code: 1, want: "hdr_len not found", setup: func(t *testing.T, dir string) []string {
			return []string{writeInput(t, dir, "empty.btf", nil)}
		}},
		{name: "type section claiming 4 GiB", code: 1, want: "Total section length too long", setup: func(t *testing.T, dir string) []string {
			b := append([]byte(nil), baseBlob...)
			binary.LittleEndian.PutUint32(b[12:], 0xfffffff0)
			return []string{writeInput(t, dir, "huge.btf", b)}
		}},
		{name: "struct claiming 65535 members at the end of the section", code: 1, want: "meta_left:", setup: func(t *testing.T, dir string) []string {
			s := btf.NewSpec(nil)
			s.AddInt("int", 4, btf.IntSigned, 32)
			b := s.Marshal(binary.LittleEndian)
			binary.LittleEndian.PutUint32(b[24+4:], btf.Info(btf.KindStruct, false, 0xffff))
			return []string{writeInput(t, dir, "vlen.btf", b)}
		}},
		{name: "TYPEDEF cycle in a module", code: 1, want: "Max chain length or cycle detected", setup: func(t *testing.T, dir string) []string {
			s := btf.NewSpec(base)
			s.AddRef(btf.KindTypedef, "a", 4)
			s.AddRef(btf.KindTypedef, "b", 3)
			return withBase(dir, writeInput(t, dir, "cycle.ko", module(s.Marshal(binary.LittleEndian), nil)))
		}},
		{name: "ARRAY cycle under a member of a distilled module", code: 1, want: "never ends", setup: func(t *testing.T, dir string) []string {
			dist := btf.NewSpec(nil)
			dist.AddInt("int", 4, btf.IntSigned, 32)
			s := btf.NewSpec(dist)
			s.AddStruct(false, "s", 8, []btf.MemberSpec{{Name: "a", Type: 3}})
			s.AddArray(3, 1, 2) // an array of itself
			return withBase(dir, writeInput(t, dir, "arrays.ko", module(s.Marshal(binary.LittleEndian), dist.Marshal(binary.LittleEndian))))
		}},
		{name: "a million types", code: 0, want: "1 accepted", setup: func(t *testing.T, dir string) []string {
			s := btf.NewSpec(base)
			for range 1 << 20 {
				s.AddRef(btf.KindPtr, "", 1)
			}
			return withBase(dir, writeInput(t, dir, "many.ko", module(s.Marshal(binary.LittleEndian), nil)))
		}},
		{name: "a million types, load check", code: 1, want: "Exceeded max num of types", setup: func(t *testing.T, dir string) []string {
			s := btf.NewSpec(nil)
			s.AddInt("int", 4, btf.IntSigned, 32)
			for range 1 << 20 {
				s.AddRef(btf.KindPtr, "", 1)
			}
			return []string{"--as", "load", writeInput(t, dir, "many.btf", s.Marshal(binary.LittleEndian))}
		}},
		{name: "zstd bomb", code: 2, want: "decompresses to more than", setup: func(t *testing.T, dir string) []string {
			var b bytes.Buffer
			w, _ := zstd.NewWriter(&b)
			zero := make([]byte, 1<<20)
			for range 200 {
				w.Write(zero)
			}
			w.Close()
			return withBase(dir, writeInput(t, dir, "bomb.ko.zst", b.Bytes()))
		}},
		{name: "truncated xz module", code: 2, want: "xz-compressed", setup: func(t *testing.T, dir string) []string {
			var b bytes.Buffer
			w, _ := xz.NewWriter(&b)
			w.Write(module(baseBlob, nil))
			w.Close()
			return withBase(dir, writeInput(t, dir, "trunc.ko.xz", b.Bytes()[:b.Len()/2]))
		}},
		{name: ".BTF past the end of the module", code: 2, want: "beyond", setup: func(t *testing.T, dir string) []string {
			m := module(baseBlob, nil)
			return withBase(dir, writeInput(t, dir, "short.ko", m[:len(m)-200]))
		}},
		{name: "FIFO and symbolic-link loop in a module tree", code: 0, want: "1 accepted", setup: func(t *testing.T, dir string) []string {
			tree := filepath.Join(dir, "tree")
			os.MkdirAll(filepath.Join(tree, "sub"), 0o755)
			s := btf.NewSpec(base)
			s.AddRef(btf.KindPtr, "", 1)
			writeInput(t, tree, "ok.ko", module(s.Marshal(binary.LittleEndian), nil))
			if err := syscall.Mkfifo(filepath.Join(tree, "fifo.ko"), 0o644); err != nil {
				t.Skipf("skipping: mkfifo: %v", err)
			}
			os.Symlink("..", filepath.Join(tree, "sub", "loop"))
			return withBase(dir, tree)
		}},
	}
	// The shared vmlinux BTF cut at random points.
	if data, err := os.ReadFile(filepath.Join(testutil.SharedDir(t), "reference", testutil.VmlinuxName+".kbuild.btf")); err == nil {
		rng := rand.New(rand.NewPCG(7, 7))
		for range 8 {
			n := rng.IntN(len(data))
			cases = append(cases, checkHostileCase{name: fmt.Sprintf("vmlinux BTF cut at %d", n), code: 1, setup: func(t *testing.T, dir string) []string {
				return []string{writeInput(t, dir, "cut.btf", data[:n])}
			}})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.setup(t, dir)
			in := args[len(args)-1]
			before := fileState(t, in)
			r := runCheckChild(t, exe, args...)
			if panicRE.MatchString(r.stderr + r.stdout) {
				t.Fatalf("gobtf crashed:\n%s%s", r.stdout, r.stderr)
			}
			if r.code != c.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			if c.want != "" && !strings.Contains(r.stdout+r.stderr, c.want) {
				t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", c.want, r.stdout, r.stderr)
			}
			for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
				if l != "" && (!strings.HasPrefix(l, "gobtf: ") || !strings.Contains(l, dir)) {
					t.Errorf("stderr line %q does not name the file", l)
				}
			}
			if after := fileState(t, in); after != before {
				t.Errorf("input changed: %s -> %s", before, after)
			}
			checkBounds(t, r.childResult)
		})
	}
}

// checkChildResult is a gobtf check run: runChild's result and stdout.
type checkChildResult struct {
	childResult
	stdout string
}

// runCheckChild runs "gobtf check args" as runChild runs gobtf, keeping
// its standard output too.
func runCheckChild(t *testing.T, exe string, args ...string) checkChildResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{"check"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := checkChildResult{childResult{stderr: stderr.String(), wall: time.Since(start)}, stdout.String()}
	if ctx.Err() != nil {
		t.Fatalf("gobtf check %s: no result within %v (hang)", strings.Join(args, " "), childTimeout)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running gobtf: %v", err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10
	}
	return r
}
