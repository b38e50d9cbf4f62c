package prettify

import (
	"bufio"
	"io"
	"os"
)

// Input is the data --prettify reads, a file or a pipe, read front to back
// as pahole reads its FILE: it knows how far it has read (ftell's answer,
// -1 on a pipe, as glibc's ftell answers there) and skips forward by
// reading, or by seeking where the file can.
type Input struct {
	r        *bufio.Reader
	f        *os.File // nil when the input is not a file
	pos      int64    // bytes read from the start (plus start)
	seekable bool     // ftell works: a file, or stdin from one
	size     int64    // a regular file's size, for skipping by seeking; -1
}

// inputBuffer is the read-ahead: records are read from it in place.
const inputBuffer = 1 << 20

// NewInput reads r. When r is an *os.File that can seek (a file, or
// standard input redirected from one), positions are the file's, from
// where it stands now.
func NewInput(r io.Reader) *Input {
	in := &Input{r: bufio.NewReaderSize(r, inputBuffer), size: -1}
	if f, ok := r.(*os.File); ok {
		in.f = f
		if off, err := f.Seek(0, io.SeekCurrent); err == nil {
			in.seekable, in.pos = true, off
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				in.size = fi.Size()
			}
		}
	}
	return in
}

// Tell is ftell: the position of the next byte, -1 where there is none.
func (in *Input) Tell() int64 {
	if !in.seekable {
		return -1
	}
	return in.pos
}

// ReadFull is fread(b, len(b), 1): whether b was filled. A short read
// still uses up what it read, as fread does.
func (in *Input) ReadFull(b []byte) bool {
	n, err := io.ReadFull(in.r, b)
	in.pos += int64(n)
	return err == nil && len(b) > 0
}

// Skip is pahole's pipe_seek: n bytes passed over; false when the input
// ends before (or n is negative).
func (in *Input) Skip(n int64) bool {
	switch {
	case n < 0:
		return false
	case n == 0:
		return true
	}
	if in.size >= 0 && n > int64(in.r.Buffered()) {
		// A regular file: seek instead of reading, up to its end.
		start := in.pos
		target := min(start+n, in.size)
		if target < start {
			target = start // n overflows: the end is nearer
		}
		if _, err := in.f.Seek(target, io.SeekStart); err == nil {
			in.r.Reset(in.f)
			in.pos = target
			return target-start == n
		}
	}
	d, err := in.r.Discard(int(min(n, 1<<62)))
	in.pos += int64(d)
	return err == nil && int64(d) == n
}
