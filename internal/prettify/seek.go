package prettify

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/classlayout"
)

// The input's positioning before a type's records, as pahole's
// prototype__stdio_fprintf_value does it, in its words. Each returns
// false after reporting what stopped it.

// seekRange is range= (--range, or the type's argument): the header's
// RANGE.offset and RANGE.size members are where the records are and how
// many bytes they take. done says that a range was asked for, ok that it
// was applied.
func (r *Run) seekRange(p *proto, spec *walkSpec) (ok, done bool) {
	var rng string
	switch {
	case r.opt.Range != nil:
		rng = *r.opt.Range
	case p.Args.Has&classlayout.HasRange != 0:
		rng = p.Args.Range
	default:
		return false, false
	}
	h := r.header
	if h == nil {
		if r.opt.HeaderType != "" {
			fmt.Fprintf(r.errw, "pahole: --header_type=%s not found\n", r.opt.HeaderType)
		} else {
			fmt.Fprintf(r.errw, "pahole: range (%s) requires --header\n", rng)
		}
		return false, true
	}
	member := rng + ".offset"
	seek, ok := h.intValue(member)
	if !ok {
		fmt.Fprintf(r.errw, "pahole: couldn't read the '%s' member of '%s' for evaluating range=%s\n", member, r.opt.HeaderType, rng)
		return false, true
	}
	read := r.in.Tell()
	if seek < read {
		fmt.Fprintf(r.errw, "pahole: can't go back in input, already read %d bytes, can't go to position %s\n", uint64(read), hexC(uint64(seek)))
		return false, true
	}
	if r.opt.Verbose {
		fmt.Fprintf(r.w, "pahole: range.seek_bytes evaluated from range=%s is %s \n", rng, hexC(uint64(seek)))
	}
	seek -= read
	member = rng + ".size"
	size, ok := h.intValue(member)
	if !ok {
		fmt.Fprintf(r.errw, "pahole: couldn't read the '%s' member of '%s' for evaluating range=%s\n", member, r.opt.HeaderType, rng)
		return false, true
	}
	spec.sizeBytes = uint64(size)
	if r.opt.Verbose {
		fmt.Fprintf(r.w, "pahole: range.size_bytes evaluated from range=%s is %s \n", rng, hexC(uint64(size)))
	}
	return r.skip(seek), true
}

// skip passes over n bytes of the input, or says it could not.
func (r *Run) skip(n int64) bool {
	if r.in.Skip(n) {
		return true
	}
	seek := r.opt.Seek
	fmt.Fprintf(r.errw, "Couldn't --seek_bytes %s (%d\n", cstr(seek != nil, textOf(seek)), uint64(n))
	return false
}

// textOf is an operand's text, "" for none.
func textOf(o *Operand) string {
	if o == nil {
		return ""
	}
	return o.Text
}

// headerOperand evaluates a "$header." operand of option (seek_bytes or
// size_bytes), reporting why it cannot be.
func (r *Run) headerOperand(option string, o *Operand) (int64, bool) {
	if r.header == nil {
		fmt.Fprintf(r.errw, "pahole: --%s (%s) makes reference to --header but it wasn't specified\n", option, o.Text)
		return 0, false
	}
	v, ok := r.header.intValue(o.Member)
	if !ok {
		fmt.Fprintf(r.errw, "pahole: couldn't read the '%s' member of '%s' for evaluating --%s=%s\n", o.Member, r.opt.HeaderType, option, o.Text)
		return 0, false
	}
	return v, true
}

// seekBytes is --seek_bytes: a number, or a header member, from the start
// of the input (after the header, when there is one, which was read).
func (r *Run) seekBytes() bool {
	o := r.opt.Seek
	if o == nil {
		return true
	}
	seek := o.Number
	if o.IsHeader() {
		v, ok := r.headerOperand("seek_bytes", o)
		if !ok {
			return false
		}
		seek = v
		if r.opt.Verbose {
			fmt.Fprintf(r.w, "pahole: seek bytes evaluated from --seek_bytes=%s is %s \n", o.Text, hexC(uint64(seek)))
		}
		if seek < int64(len(r.header.data)) {
			fmt.Fprintf(r.errw, "pahole: seek bytes evaluated from --seek_bytes=%s is less than the header type size\n", o.Text)
			return false
		}
	}
	if r.header != nil {
		seek -= r.in.Tell()
	}
	return r.skip(seek)
}

// sizeBytes is --size_bytes: how many bytes of records to read.
func (r *Run) sizeBytes(spec *walkSpec) bool {
	o := r.opt.Size
	if o == nil {
		return true
	}
	size := o.Number
	if o.IsHeader() {
		v, ok := r.headerOperand("size_bytes", o)
		if !ok {
			return false
		}
		size = v
		if r.opt.Verbose {
			fmt.Fprintf(r.w, "pahole: size bytes evaluated from --size_bytes=%s is %s \n", o.Text, hexC(uint64(size)))
		}
	}
	spec.sizeBytes = uint64(size)
	return true
}
