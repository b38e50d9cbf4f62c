package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/gobtf/gobtf/internal/classlayout"
	"github.com/gobtf/gobtf/internal/prettify"
)

// prettyFlags are pahole's data pretty-printer's options (internal/prettify).
type prettyFlags struct {
	input      optString // --prettify FILE, "-" for standard input
	headerType string    // --header_type (--header, as argp abbreviates it)
	rng        optString // --range
	seek, size optString // --seek_bytes, --size_bytes
	count      string    // --count, read with atoi
	skip       string    // --skip
}

// optString is a string option whose presence counts, as a C pointer's.
type optString struct {
	val string
	set bool
}

func (o *optString) Set(v string) error { o.val, o.set = v, true; return nil }
func (o *optString) String() string     { return o.val }
func (o *optString) Type() string       { return "string" }

func (pf *prettyFlags) register(f *pflag.FlagSet) {
	f.Var(&pf.input, "prettify", "print the records of `FILE` (- for standard input) as C initializers of the -C types")
	f.StringVar(&pf.headerType, "header_type", "", "with --prettify: the input starts with a record of `TYPE`, whose members --seek_bytes, --size_bytes and range= may name ($header.MEMBER); without -C, print that record")
	f.Var(&pf.rng, "range", "with --prettify: the header's `MEMBER`.offset and MEMBER.size say where the records are")
	f.Var(&pf.seek, "seek_bytes", "with --prettify: skip `BYTES` of input (a number or $header.MEMBER) before the records")
	f.Var(&pf.size, "size_bytes", "with --prettify: read `BYTES` of records (a number or $header.MEMBER)")
	f.StringVar(&pf.count, "count", "", "with --prettify: print at most `N` records of each type")
	f.StringVar(&pf.skip, "skip", "", "with --prettify: leave out the first `N` records of each type")
}

// openInput opens --prettify's input as pahole does, before any file is
// loaded: nil without --prettify.
func (pf *prettyFlags) openInput() (*prettify.Input, func(), error) {
	if !pf.input.set {
		return nil, func() {}, nil
	}
	if pf.input.val == "-" {
		return prettify.NewInput(os.Stdin), func() {}, nil
	}
	f, err := os.Open(pf.input.val)
	if err != nil {
		msg := err.Error()
		var errno syscall.Errno
		if errors.As(err, &errno) {
			msg = strerror(errno)
		}
		return nil, nil, &exitError{fmt.Sprintf("Failed to read input '%s': %s\n", pf.input.val, msg), 1}
	}
	return prettify.NewInput(f), func() { f.Close() }, nil
}

// shortcut is pahole's "--header TYPE" without -C: the header record alone,
// printed as -C TYPE --count 1 would print it.
func (pf *prettyFlags) shortcut(classNames *string) {
	if pf.headerType != "" && *classNames == "" && pf.input.set {
		pf.count, *classNames, pf.headerType = "1", pf.headerType, ""
	}
}

// newRun is the pretty-printing run of the -C names of opt.
func (pf *prettyFlags) newRun(l *loader, in *prettify.Input, opt classlayout.Options) runner {
	po := prettify.Options{
		HeaderType: pf.headerType,
		Skip:       uint32(atoi(pf.skip)),
		Count:      uint32(atoi(pf.count)),
		Hex:        opt.Hex,
		Verbose:    l.verbose,
		Load:       opt,
	}
	if pf.rng.set {
		po.Range = &pf.rng.val
	}
	if pf.seek.set {
		o := prettify.ParseOperand(pf.seek.val)
		po.Seek = &o
	}
	if pf.size.set {
		o := prettify.ParseOperand(pf.size.val)
		po.Size = &o
	}
	protos := make([]prettify.Prototype, len(opt.ClassNames))
	for i, n := range opt.ClassNames {
		protos[i].Name = n
		if i < len(opt.ClassArgs) {
			protos[i].Args = opt.ClassArgs[i]
		}
	}
	return prettify.NewRun(po, protos, in, l.cmd.OutOrStdout(), l.cmd.ErrOrStderr())
}
