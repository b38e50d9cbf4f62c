package unxz

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ulikunitz/xz"
)

// testInputs are data of the kinds xz meets: text-like and repetitive
// (long matches, reps), random (uncompressed LZMA2 chunks), a mix, empty,
// and larger than one LZMA2 chunk (2 MiB unpacked).
func testInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	var text bytes.Buffer
	words := []string{"struct ", "task_struct", " {\n", "\tint pid;\n", "};\n", "list_head", "0xeB9F", "\x00\x00\x00\x01"}
	for text.Len() < 2<<20+1000 {
		text.WriteString(words[rng.IntN(len(words))])
	}
	mix := append(append([]byte{}, text.Bytes()[:200<<10]...), random[:100<<10]...)
	mix = append(mix, text.Bytes()[:50<<10]...)
	return map[string][]byte{
		"empty":  {},
		"byte":   {42},
		"text":   text.Bytes(),
		"random": random,
		"mix":    mix,
		"zeros":  make([]byte, 1<<20),
	}
}

// xzCLI compresses data with the xz command and args, or skips.
func xzCLI(t *testing.T, data []byte, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("skipping: the xz command is not installed")
	}
	cmd := exec.Command("xz", append([]string{"-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xz %v: %v", args, err)
	}
	return out
}

// TestDecodeXZ decodes what the xz command writes with each check, preset,
// block size and lc/lp/pb setting, one stream, concatenated streams and
// stream padding: the bytes must be the input's.
func TestDecodeXZ(t *testing.T) {
	variants := map[string][]string{
		"default":   nil,
		"crc32":     {"--check=crc32"},
		"sha256":    {"--check=sha256"},
		"none":      {"--check=none"},
		"0":         {"-0"},
		"6e":        {"-6e"},
		"blocks":    {"--block-size=100KiB"},
		"lc0lp2pb0": {"--lzma2=lc=0,lp=2,pb=0"},
		"lc4":       {"--lzma2=lc=4,lp=0,pb=4"},
		"dict4k":    {"--lzma2=dict=4KiB"},
		"threads":   {"-T2", "--block-size=1MiB"},
	}
	for name, data := range testInputs() {
		for v, args := range variants {
			t.Run(name+"/"+v, func(t *testing.T) {
				c := xzCLI(t, data, args...)
				got, err := Decode(c, 1<<30)
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("decoded %d bytes, not the %d bytes compressed", len(got), len(data))
				}
			})
		}
	}
	t.Run("streams", func(t *testing.T) {
		a, b := []byte("first stream\n"), bytes.Repeat([]byte("second "), 1000)
		c := append(append(xzCLI(t, a), 0, 0, 0, 0), xzCLI(t, b, "--check=crc32")...)
		got, err := Decode(c, 1<<30)
		if err != nil || !bytes.Equal(got, append(a, b...)) {
			t.Fatalf("two streams with padding: %d bytes, %v", len(got), err)
		}
	})
}

// TestDecodeUlikunitz decodes what ulikunitz/xz's writer writes (another
// encoder than xz's).
func TestDecodeUlikunitz(t *testing.T) {
	for name, data := range testInputs() {
		var buf bytes.Buffer
		w, err := xz.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(buf.Bytes(), 1<<30)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
	}
}

// TestDecodeRefuses checks the errors: other filters are ErrUnsupported,
// the limit is ErrTooLarge, and every truncation and every flipped byte of
// a small file is an error (the checks catch what decoding does not),
// never a panic.
func TestDecodeRefuses(t *testing.T) {
	data := testInputs()["mix"]
	if _, err := Decode(xzCLI(t, data, "--x86", "--lzma2"), 1<<30); !errors.Is(err, ErrUnsupported) {
		t.Errorf("BCJ x86 filter: %v, want ErrUnsupported", err)
	}
	if _, err := Decode(xzCLI(t, data), len(data)-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit one byte short: %v, want ErrTooLarge", err)
	}
	small := xzCLI(t, []byte("struct task_struct { int pid; }; struct task_struct t;\n"))
	for n := range len(small) {
		if _, err := Decode(small[:n], 1<<20); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", n, len(small))
		}
	}
	for i := range small {
		c := bytes.Clone(small)
		c[i] ^= 0x40
		if _, err := Decode(c, 1<<20); err == nil {
			t.Errorf("byte %d flipped: no error", i)
		}
	}
	if _, err := Decode(append(bytes.Clone(small), 'x'), 1<<20); err == nil {
		t.Error("trailing garbage: no error")
	}
}

// TestDecodeBenchArchive decodes the bench archive's BTFHub files
// (scripts/btfhub-bench-archive.sh), when they are there, against xz.
func TestDecodeBenchArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode")
	}
	home, _ := os.UserHomeDir()
	files, _ := filepath.Glob(filepath.Join(home, ".cache/gobtf-test/btfhub-bench/archive/debian/12/*/*.btf.tar.xz"))
	if len(files) == 0 {
		t.Skip("skipping: no bench archive (scripts/btfhub-bench-archive.sh makes it)")
	}
	for _, f := range files[:min(len(files), 6)] {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(data, 1<<30)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, err := exec.Command("xz", "-dc", f).Output()
		if err != nil {
			t.Skipf("skipping: xz -dc: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes decoded, xz gives %d", f, len(got), len(want))
		}
	}
}

// FuzzDecode decodes arbitrary bytes: no panic, and whatever decodes must
// decode to the same bytes through ulikunitz/xz's reader.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "a", "struct task_struct { int pid; };\nstruct task_struct t;\n"} {
		var buf bytes.Buffer
		w, _ := xz.NewWriter(&buf)
		w.Write([]byte(s))
		w.Close()
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data, 1<<20)
		if err != nil {
			return
		}
		r, err := xz.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Decode accepts what ulikunitz/xz refuses: %v", err)
		}
		want, err := io.ReadAll(io.LimitReader(r, 1<<21))
		if err != nil {
			t.Fatalf("Decode accepts what ulikunitz/xz refuses: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Decode gives %d bytes, ulikunitz/xz %d", len(got), len(want))
		}
	})
}
