package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

// writeStageEnv, set beside childEnv, names the stage of its atomic write
// (elfio.WriteHook) at which the child stops, saying so on stdout, until
// it is killed.
const writeStageEnv = "GOBTF_TEST_WRITE_STAGE"

// stopAtWriteStage makes this process stop at the named stage of a write.
func stopAtWriteStage(stage string) {
	elfio.WriteHook = func(s string) {
		if s == stage {
			os.Stdout.WriteString("at " + s + "\n")
			time.Sleep(time.Hour)
		}
	}
}

// TestDedupKilled kills "gobtf dedup" with SIGKILL at each stage of writing
// OUT: OUT keeps its old contents, nothing but the writer's temporary name
// (after "linked", the instant between naming the finished file and
// renaming it) is left beside it, and the next run removes that and
// writes OUT.
func TestDedupKilled(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(testutil.RepoRoot(), "testdata", "classlayout", "layout.gcc.btf")
	for _, stage := range []string{"created", "written", "synced", "linked"} {
		t.Run(stage, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.btf")
			if err := os.WriteFile(out, []byte("before"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "dedup", in, out)
			cmd.Env = append(os.Environ(), childEnv+"=1", writeStageEnv+"="+stage)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "at "+stage+"\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("gobtf said %q, want it to stop at %s", line, stage)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if got, _ := os.ReadFile(out); string(got) != "before" {
				t.Fatalf("OUT changed after a kill at %s", stage)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != "out.btf" && !(stage == "linked" && strings.HasPrefix(e.Name(), ".out.btf.gobtf-")) {
					t.Errorf("left beside OUT: %s", e.Name())
				}
			}
			if r := runChild(t, exe, nil, "dedup", in, out); r.code != 0 {
				t.Fatalf("the next run: exit %d, %s", r.code, r.stderr)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("after the next run, %d files in OUT's folder", len(ents))
			}
			if got, _ := os.ReadFile(out); bytes.Equal(got, []byte("before")) {
				t.Error("the next run did not write OUT")
			}
		})
	}
}

// TestDedupFullDisk: "gobtf dedup" writing to a full file system fails
// with one line naming OUT (ENOSPC), and leaves OUT and its folder as they
// were.
func TestDedupFullDisk(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in := testutil.Reference(t, "vmlinux-6.1.0-56-cloud-amd64.kbuild.btf") // 5 MB of output
	dir := testutil.MountTmpfs(t, "1m")
	out := filepath.Join(dir, "out.btf")
	if err := os.WriteFile(out, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runChild(t, exe, nil, "dedup", in, out)
	expectFailure(t, r, out, "no space left on device")
	if got, _ := os.ReadFile(out); string(got) != "before" {
		t.Error("OUT changed")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in OUT's folder, want OUT alone", len(ents))
	}
}
