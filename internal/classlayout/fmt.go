package classlayout

import "strconv"

// null stands for C's NULL string where pahole tells it from "" (a NULL
// suffix prints nothing, an empty one a space).
const null = "\x00"

// orEmpty is C's "s ?: """.
func orEmpty(s string) string {
	if s == null {
		return ""
	}
	return s
}

// orNull maps an anonymous name to null, as pahole's loaders do.
func orNull(s string) string {
	if s == "" {
		return null
	}
	return s
}

const tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"

func (p *Printer) str(s string) { p.buf = append(p.buf, s...) }

func (p *Printer) byte1(c byte) { p.buf = append(p.buf, c) }

// tabs prints n tabs, at most 16 ("%.*s" of pahole's tabs string).
func (p *Printer) tabs(n int) {
	if n > len(tabs) {
		n = len(tabs)
	}
	if n > 0 {
		p.str(tabs[:n])
	}
}

// padRight is "%-*s": left-justified in |w| (C takes a negative width as
// its absolute value with the '-' flag).
func (p *Printer) padRight(s string, w int) {
	if w < 0 {
		w = -w
	}
	p.str(s)
	for i := len(s); i < w; i++ {
		p.byte1(' ')
	}
}

// padLeft is "%*s": right-justified in w, left-justified in -w when w < 0.
func (p *Printer) padLeft(s string, w int) {
	if w < 0 {
		p.padRight(s, -w)
		return
	}
	for i := len(s); i < w; i++ {
		p.byte1(' ')
	}
	p.str(s)
}

func (p *Printer) uint(v uint64) { p.buf = strconv.AppendUint(p.buf, v, 10) }

func (p *Printer) int(v int64) { p.buf = strconv.AppendInt(p.buf, v, 10) }

// numW prints v right-justified in w: "%*u", or "%#*x" in hex mode, where
// C prints 0 without the 0x.
func (p *Printer) numW(v uint64, w int, hex bool) {
	var b [24]byte
	var s []byte
	if hex {
		if v == 0 {
			s = append(b[:0], '0')
		} else {
			s = strconv.AppendUint(append(b[:0], "0x"...), v, 16)
		}
	} else {
		s = strconv.AppendUint(b[:0], v, 10)
	}
	for i := len(s); i < w; i++ {
		p.byte1(' ')
	}
	p.buf = append(p.buf, s...)
}

func plural(n int64, s string) string {
	if n != 1 {
		return s
	}
	return ""
}

// capture runs fn with the output going to a fresh buffer and returns what
// it printed.
func (p *Printer) capture(fn func()) string {
	saved := p.buf
	p.buf = make([]byte, 0, 128)
	fn()
	s := string(p.buf)
	p.buf = saved
	return s
}

// trunc is snprintf's truncation into a buffer of n bytes.
func trunc(s string, n int) string {
	if len(s) >= n {
		return s[:n-1]
	}
	return s
}
