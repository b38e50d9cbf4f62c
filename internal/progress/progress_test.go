package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestNewNotTerminal: a file, a pipe and a buffer get no bar, and a nil
// bar's methods do nothing.
func TestNewNotTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, out := range map[string]any{"file": f, "pipe": w, "buffer": &bytes.Buffer{}} {
		var b *Bar
		switch o := out.(type) {
		case *os.File:
			b = New(o, 3)
		case *bytes.Buffer:
			b = New(o, 3)
		}
		if b != nil {
			t.Errorf("%s: a bar, want none", name)
		}
		b.Step("x")
		b.Clear()
	}
}

// TestNewTerminal: a pseudo-terminal's master side answers TCGETS, so it
// gets a bar.
func TestNewTerminal(t *testing.T) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("skipping: no pseudo-terminal: %v", err)
	}
	defer m.Close()
	if New(m, 3) == nil {
		t.Error("no bar on a pseudo-terminal")
	}
}

// TestDraw: the bar fills with the count, is cut to the width, redraws at
// the last item even within the interval, and Clear erases it.
func TestDraw(t *testing.T) {
	var buf bytes.Buffer
	b := &Bar{w: &buf, width: 40, total: 4}
	b.Step("first")
	b.Step("second") // within the interval: not drawn
	b.Step("third")
	b.Step("a very long name of the last item, longer than the width")
	b.Clear()
	frames := strings.Split(buf.String(), "\r")
	want := []string{"", "[===>         ] 1/4 first\x1b[K", "[=============] 4/4 a very long name of\x1b[K", "\x1b[K"}
	if len(frames) != len(want) {
		t.Fatalf("frames %q, want %q", frames, want)
	}
	for i := range want {
		if frames[i] != want[i] {
			t.Errorf("frame %d: %q, want %q", i, frames[i], want[i])
		}
	}
}
