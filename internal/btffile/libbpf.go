// libbpf's way in: OpenLibbpf opens BTF files as libbpf's btf__parse and
// btf__parse_split open them for pahole: raw BTF when the file starts with
// the BTF magic, else the .BTF section of an ELF file (on its .BTF.base
// when it has one), checked in libbpf's order (header, string section,
// kind layout section, type section, then libbpf's sanity check of names
// and referenced types), with the lines libbpf logs on the way and the
// error number it fails with.
//
// Those checks are what make libbpf refuse a module's split BTF given
// without its base ("did you forget to provide base BTF?") or on another
// kernel's base (a FUNC whose prototype ID lands on some other type), the
// refusals pahole's printing mode shows; Open reads the same files
// without them.

package btffile

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Level is a libbpf log level (enum libbpf_print_level).
type Level uint8

const (
	Warn Level = iota
	Info
	Debug
)

// Line is one line libbpf logs, without its "libbpf: " prefix and newline.
type Line struct {
	Level Level
	Text  string
}

// ErrnoFormat is LIBBPF_ERRNO__FORMAT, libbpf's error for a file that is
// neither raw BTF nor ELF.
const ErrnoFormat syscall.Errno = 4001

// LibbpfError is a file libbpf refuses, with the error number it returns (the
// negation of libbpf_get_error's value).
type LibbpfError struct {
	Path  string
	Errno syscall.Errno
}

func (e *LibbpfError) Error() string {
	if e.Errno == ErrnoFormat {
		return e.Path + ": not BTF and not an ELF file"
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Errno)
}

// OpenLibbpf reads the BTF in the file at path as btf__parse_split(path, base)
// does (btf__parse when base is nil) and returns it with the lines libbpf
// logs while reading it. A file libbpf refuses gives a *LibbpfError; other
// errors are gobtf's own about input libbpf would take but gobtf cannot
// read, and name the file.
func OpenLibbpf(path string, base *btf.Spec) (*btf.Spec, []Line, error) {
	o := &opener{path: path}
	spec, err := o.open(base)
	return spec, o.log, err
}

// opener collects what libbpf logs while it opens one file.
type opener struct {
	path string
	log  []Line
}

func (o *opener) logf(l Level, format string, args ...any) {
	o.log = append(o.log, Line{l, fmt.Sprintf(format, args...)})
}

func (o *opener) fail(errno syscall.Errno) error { return &LibbpfError{Path: o.path, Errno: errno} }

// open is btf_parse: raw BTF first; a file without the magic is read as
// ELF.
func (o *opener) open(base *btf.Spec) (*btf.Spec, error) {
	f, err := os.Open(o.path)
	if err != nil {
		return nil, o.fail(errnoOf(err))
	}
	defer f.Close()
	var magic [2]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return nil, o.fail(syscall.EIO)
	}
	if magic != [2]byte{0x9f, 0xeb} && magic != [2]byte{0xeb, 0x9f} {
		return o.openELF(base)
	}
	data, err := os.ReadFile(o.path)
	if err != nil {
		return nil, o.fail(errnoOf(err))
	}
	return o.parse(data, base)
}

// openELF is btf_parse_elf.
func (o *opener) openELF(base *btf.Spec) (*btf.Spec, error) {
	f, err := elfio.Open(o.path)
	if errors.Is(err, elfio.ErrNotELF) {
		o.logf(Warn, "failed to get EHDR from %s", o.path)
		return nil, o.fail(ErrnoFormat)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var btfSec, baseSec *elfio.Section
	for i := range f.Sections() {
		s := &f.Sections()[i]
		var field **elfio.Section
		switch s.Name {
		case ".BTF":
			field = &btfSec
		case ".BTF.base":
			field = &baseSec
		case ".BTF.ext":
			field = new(*elfio.Section)
		default:
			continue
		}
		if s.Type != elf.SHT_PROGBITS {
			o.logf(Warn, "unexpected section type (%d) of section(%d, %s) from %s", uint32(s.Type), s.Index, s.Name, o.path)
			return nil, o.fail(ErrnoFormat)
		}
		*field = s
	}
	if btfSec == nil {
		o.logf(Warn, "failed to find '.BTF' ELF section in %s", o.path)
		return nil, o.fail(syscall.ENODATA)
	}
	data, err := f.SectionData(btfSec)
	if err != nil {
		return nil, err
	}
	data = bytes.Clone(data) // the mapping goes with f
	if baseSec == nil {
		return o.parse(data, base)
	}
	baseData, err := f.SectionData(baseSec)
	if err != nil {
		return nil, err
	}
	dist, err := o.parse(bytes.Clone(baseData), nil)
	if err != nil {
		return nil, err
	}
	spec, err := o.parse(data, dist)
	if err != nil || base == nil {
		return spec, err
	}
	if spec, err = btf.Relocate(spec, base); err != nil {
		return nil, fmt.Errorf("%s: relocating .BTF from .BTF.base onto the base: %w", o.path, err)
	}
	return spec, nil
}

// parse is btf_new: libbpf's checks of the blob, then gobtf's decoding of
// the sections they found, laid out anew (libbpf reads what gobtf's
// decoder refuses: a header shorter than 24 bytes, whose missing fields
// it takes as zero, any version and flags).
func (o *opener) parse(data []byte, base *btf.Spec) (*btf.Spec, error) {
	b, err := o.check(data, base)
	if err != nil {
		return nil, err
	}
	spec, err := btf.Parse(b.canonical(), base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.path, err)
	}
	return spec, nil
}

// errnoOf returns the error number under an os error, EIO if none.
func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}
