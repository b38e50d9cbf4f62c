// Package progress draws a one-line progress bar on a terminal: a count of
// items done out of a total and the item last done, redrawn in place at
// most every tenth of a second, and erased when the work ends. Where the
// writer is not a terminal (a file, a pipe), a Bar draws nothing, so logs
// and scripts see only the commands' own output.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar is a progress bar; its methods may be called from several
// goroutines. The zero of a *Bar (nil) draws nothing.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	total int
	done  int
	last  time.Time
	drawn bool
}

// interval is the shortest time between two redraws.
const interval = 100 * time.Millisecond

// New returns a bar counting to total, drawn on w when w is a terminal,
// else nil (which draws nothing).
func New(w io.Writer, total int) *Bar {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	width, ok := terminalWidth(f)
	if !ok {
		return nil
	}
	if width < 20 {
		width = 80
	}
	return &Bar{w: w, width: width, total: total}
}

// Step counts one more item done, named item, and redraws the bar when the
// last redraw is older than interval or the count reaches the total.
func (b *Bar) Step(item string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done++
	now := time.Now()
	if now.Sub(b.last) < interval && b.done < b.total {
		return
	}
	b.last = now
	b.draw(item)
}

// Clear erases the bar, so that what is written next starts a clean line.
func (b *Bar) Clear() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

// draw writes the bar over the line: "[=====>    ] 12/40 item", cut to
// the terminal's width.
func (b *Bar) draw(item string) {
	count := fmt.Sprintf(" %d/%d ", b.done, b.total)
	cells := min(30, b.width/3)
	fill := cells
	if b.total > 0 {
		fill = cells * b.done / b.total
	}
	bar := strings.Repeat("=", fill)
	if fill < cells {
		bar += ">" + strings.Repeat(" ", cells-fill-1)
	}
	line := "[" + bar + "]" + count + item
	if r := []rune(line); len(r) > b.width-1 {
		line = string(r[:b.width-1])
	}
	fmt.Fprint(b.w, "\r"+line+"\x1b[K")
	b.drawn = true
}
