// Package btffile is the one way BTF comes in from a file: raw BTF, or the
// .BTF section of an ELF file (decompressed if need be), standalone or split
// on a base, and an ELF file's .BTF on the distilled base of its .BTF.base
// section, relocated onto the base when one is given, as libbpf (1.5 and
// later) and the kernel read an out-of-tree module. Every command that reads
// BTF reads it here; what differs from one to the other is only where the
// bytes live (Memory). Errors name the file, and the section for ELF input.
package btffile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Memory says where a File's bytes live, which is the one difference the
// commands need between their ways of reading BTF.
type Memory uint8

const (
	// Copy reads the bytes into memory of the File's own (the default).
	Copy Memory = iota
	// Mapped uses a private, copy-on-write mapping of the file where it
	// can be mapped (a raw file whole, an ELF file's uncompressed .BTF),
	// so that nothing is copied: for BTF read much and written little, a
	// base that every module's encoding reads (elfio.MapBTF).
	Mapped
	// Loading loads raw BTF into fresh private memory on Options.Workers
	// goroutines while it is parsed (load.go): for input that is rewritten
	// in place, as deduplication does. ELF input is read as Copy reads it.
	Loading
)

// Options say how a file's BTF is read.
type Options struct {
	// Base is the BTF the file's types are split on (a module's, on the
	// kernel's); nil for base BTF.
	Base *btf.Spec

	// DistilledBase reads an ELF file's .BTF.base section, when it has
	// one, as libbpf does: its .BTF is split on that distilled base, and,
	// with Base set, relocated onto Base (btf.Relocate), as the kernel
	// relocates a module's BTF when it loads it. Without it, .BTF.base is
	// ignored.
	DistilledBase bool

	Memory  Memory
	Workers int // Loading's goroutines (at least 1)
}

// File is BTF read from a file.
type File struct {
	Spec *btf.Spec

	// Distilled says the file's .BTF was read on its .BTF.base.
	Distilled bool

	release func()
}

// Close gives back the memory the File's bytes live in (Mapped, Loading);
// the Spec must not be used afterwards. It may be called from another
// goroutine than the one that opened the File, and more than once.
func (f *File) Close() {
	if f.release != nil {
		f.release()
	}
}

// ParseError is the error of BTF that does not decode: the file, the
// section it was read from ("" for raw BTF) and what is wrong.
type ParseError struct {
	Path    string
	Section string
	Err     error
}

func (e *ParseError) Error() string {
	if e.Section != "" {
		return e.Path + ": section " + e.Section + ": " + e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// Open reads the BTF of the file at path as o says.
func Open(path string, o Options) (*File, error) {
	switch o.Memory {
	case Mapped:
		data, release, err := elfio.MapBTF(path)
		if err != nil {
			return nil, err
		}
		spec, err := btf.ParseInPlace(data, o.Base)
		if err != nil {
			release()
			return nil, &ParseError{Path: path, Err: err}
		}
		return &File{Spec: spec, release: release}, nil
	case Loading:
		return openLoading(path, o)
	}
	if o.DistilledBase {
		data, dist, err := elfio.ReadSplitBTF(path)
		if err != nil {
			return nil, err // ReadSplitBTF's errors name the file
		}
		return parse(path, data, dist, o)
	}
	data, err := elfio.ReadBTF(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data, nil, o)
}

// Read reads BTF from r, of size bytes, as Open reads a file named name
// (which errors name): the bytes are read whole (Memory is Copy).
func Read(r io.ReaderAt, size int64, name string, o Options) (*File, error) {
	if size < 0 || size != int64(int(size)) {
		return nil, fmt.Errorf("%s: size %d", name, size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(r, 0, size), data); err != nil {
		return nil, fmt.Errorf("%s: reading: %w", name, err)
	}
	return Bytes(data, name, o)
}

// Bytes reads the BTF held in data as Read reads it, without a copy: the
// File's Spec may alias data, which the caller gives up (it must not
// change it afterwards).
func Bytes(data []byte, name string, o Options) (*File, error) {
	if !elfio.IsELF(data) {
		return parse(name, data, nil, o)
	}
	f, err := elfio.NewFile(name, data)
	if err != nil {
		return nil, err
	}
	btfData, err := f.SectionBTF(".BTF")
	if err != nil {
		return nil, err
	}
	if btfData == nil {
		return nil, fmt.Errorf("%s: %w", name, elfio.ErrNoBTF)
	}
	var dist []byte
	if o.DistilledBase {
		if dist, err = f.SectionBTF(".BTF.base"); err != nil {
			return nil, err
		}
	}
	return parse(name, btfData, dist, o)
}

// parse decodes data, bytes of the caller's own, as the BTF of path: on
// dist, a distilled base, when it is not nil.
func parse(path string, data, dist []byte, o Options) (*File, error) {
	if dist == nil {
		spec, err := btf.ParseInPlace(data, o.Base)
		if err != nil {
			return nil, &ParseError{Path: path, Err: err}
		}
		return &File{Spec: spec}, nil
	}
	distBase, err := btf.Parse(dist, nil)
	if err != nil {
		return nil, &ParseError{Path: path, Section: ".BTF.base", Err: err}
	}
	spec, err := btf.Parse(data, distBase)
	if err != nil {
		return nil, &ParseError{Path: path, Section: ".BTF (on .BTF.base)", Err: err}
	}
	if o.Base != nil {
		if spec, err = btf.Relocate(spec, o.Base); err != nil {
			return nil, fmt.Errorf("%s: relocating .BTF from .BTF.base onto the base: %w", path, err)
		}
	}
	return &File{Spec: spec, Distilled: true}, nil
}

// openLoading is Open with Loading memory.
func openLoading(path string, o Options) (*File, error) {
	in, err := openInput(path, max(o.Workers, 1))
	if err != nil {
		return nil, err
	}
	var once sync.Once
	release := func() { once.Do(in.release) }
	spec, err := btf.ParseInPlaceLoading(in.data, o.Base, in.ready)
	if lerr := in.wait(); lerr != nil {
		release()
		return nil, fmt.Errorf("%s: %w", path, lerr)
	}
	if err != nil {
		release()
		return nil, &ParseError{Path: path, Err: err}
	}
	return &File{Spec: spec, release: release}, nil
}

// inputBTF is the BTF of a file, possibly still loading.
type inputBTF struct {
	data    []byte
	ready   func(end int) int // as btf.ParseInPlaceLoading wants it; nil: data is complete
	wait    func() error      // waits until data is complete; the first read error
	release func()            // waits, then frees data
}

// openInput returns the BTF bytes of the file at path. Raw BTF is loaded
// into fresh private memory by workers goroutines while the caller parses
// it (see loading). ELF input is read and its .BTF section extracted.
func openInput(path string, workers int) (*inputBTF, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	var l *loading
	if fi.Size() > 0 && fi.Size() <= 1<<31 && !elfio.IsELF(magic[:n]) && fi.Mode().IsRegular() {
		l, err = startLoading(f, int(fi.Size()), workers)
	}
	if l == nil || err != nil {
		f.Close()
		data, err := elfio.ReadBTF(path)
		if err != nil {
			return nil, err
		}
		return &inputBTF{data: data, wait: func() error { return nil }, release: func() {}}, nil
	}
	wait := sync.OnceValue(func() error {
		err := l.wait()
		f.Close()
		return err
	})
	return &inputBTF{data: l.data, ready: l.ready, wait: wait, release: func() { wait(); l.release() }}, nil
}

// IsParseError reports whether err is BTF that does not decode (rather
// than a file that cannot be read), and returns the ParseError.
func IsParseError(err error) (*ParseError, bool) {
	var pe *ParseError
	ok := errors.As(err, &pe)
	return pe, ok
}
