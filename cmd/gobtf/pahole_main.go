package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/classlayout"
	"github.com/gobtf/gobtf/internal/dwarf"
	"github.com/gobtf/gobtf/internal/dwarf2btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/kernelbtf"
	"github.com/gobtf/gobtf/internal/pahole"
	"github.com/gobtf/gobtf/internal/prettify"
	"github.com/gobtf/gobtf/internal/tuning"
)

// systemFor returns the machine whose kernel pahole's defaults look at;
// tests point its Root at a directory of theirs.
var systemFor = kernelbtf.Host

// runPahole is pahole's main after its command line is read: the checks
// it makes, in its order, then -J or the printing mode.
func runPahole(cmd *cobra.Command, o *encodeOptions, p *printOptions, args []string) error {
	out := cmd.OutOrStdout()
	sys := systemFor()
	if p.runningKernel {
		path, ok := sys.FindVmlinux()
		if !ok {
			return &exitError{"pahole: couldn't find a vmlinux that matches the running kernel\n" +
				"HINT: Maybe you're inside a container or missing a debuginfo package?\n", 1}
		}
		_, err := fmt.Fprintln(out, path)
		return err
	}
	langs, err := o.languages()
	if err != nil {
		return err
	}
	if p.numericVersion {
		_, err := fmt.Fprintln(out, numericVersion())
		return err
	}
	if p.hashBits > 31 {
		return &exitError{fmt.Sprintf("Invalid --hashbits value (%d) should be less than 32\n", p.hashBits), 1}
	}
	in, closeInput, err := p.pretty.openInput()
	if err != nil {
		return err
	}
	defer closeInput()
	if o.encode || o.showSupported {
		return runEncode(cmd, o, args)
	}
	p.pretty.shortcut(&p.classNames)
	opt, err := p.options()
	if err != nil {
		return err
	}
	opt.Verbose = o.verbose
	if len(langs.IDs) > 0 {
		opt.SkipLanguage = langs.Skips
	}
	l := &loader{cmd: cmd, sys: sys, opt: opt, verbose: o.verbose, hashBits: p.hashBits, pretty: &p.pretty, input: in}
	defer l.untune()
	if cmd.Flags().Changed("format_path") {
		l.formats = &p.format
	}
	if o.base != "" {
		if l.base, err = l.openBase(o.base); err != nil {
			return err
		}
		btfOnly := "btf" // a base means BTF, whatever -F says
		l.formats = &btfOnly
	}
	return l.main(p.classNames, args)
}

// loader is pahole's printing mode: which files it reads, in which
// formats, and what it says when it finds nothing.
type loader struct {
	cmd      *cobra.Command
	sys      kernelbtf.System
	opt      classlayout.Options
	verbose  bool
	hashBits uint8
	formats  *string   // -F's list; nil: dwarf, btf, ctf
	base     *btf.Spec // --btf_base, or the vmlinux BTF under a module's
	run      runner
	pretty   *prettyFlags    // --prettify's options
	input    *prettify.Input // --prettify's input; nil without
	// restoreGC puts back the collector's settings loadDWARF changed
	// (tuning.ForLayoutView), nil while it has not.
	restoreGC func()
}

// runner prints the files of a command line in turn: the layout view
// (classlayout.Run) or, with --prettify and -C, the data pretty-printer
// (prettify.Run).
type runner interface {
	Print(src classlayout.Source) error
	Finish() error
}

// untune puts back the collector's settings loadDWARF changed.
func (l *loader) untune() {
	if l.restoreGC != nil {
		l.restoreGC()
	}
}

// main is the rest of pahole's main: the files of the command line (the
// running kernel's without any) loaded in turn and printed as they load;
// when one fails and no class was named, the first operand, unless it is
// a file, is taken as the class names and the running kernel read.
func (l *loader) main(classList string, files []string) error {
	first := true
	for {
		opt := l.opt
		if classList != "" {
			if err := setClassNames(&opt, classList, l.verbose, l.cmd.OutOrStdout()); err != nil {
				return err
			}
		}
		if first && l.base == nil && len(files) > 0 && l.sys.IsSysfsModule(files[0]) {
			var err error
			if l.base, err = l.openBase(l.sys.VmlinuxBTF()); err != nil {
				return err
			}
		}
		first = false
		if l.input != nil && classList != "" {
			l.run = l.pretty.newRun(l, l.input, opt)
		} else {
			l.run = classlayout.NewRun(opt, l.cmd.OutOrStdout(), l.cmd.ErrOrStderr())
		}
		failed, errno, err := l.loadFiles(files)
		if err != nil {
			return err
		}
		if errno == 0 {
			return l.run.Finish()
		}
		if classList == "" {
			if len(files) == 0 {
				return &exitError{"pahole: couldn't find any debug information on this system.\n", 1}
			}
			if syscall.Access(files[0], 4 /* R_OK */) == nil {
				return &exitError{fmt.Sprintf("pahole: file '%s' has no %s type information.\n", files[0], l.formatName("supported")), 1}
			}
			classList, files = files[0], nil
			continue
		}
		if len(files) > 0 {
			return &exitError{fmt.Sprintf("pahole: %s: %s\n", files[failed], strerror(errno)), 1}
		}
		sp := ""
		if l.formats != nil {
			sp = " "
		}
		return &exitError{fmt.Sprintf("pahole: couldn't find any%s%s debug information on this system.\n", sp, l.formatName("")), 1}
	}
}

// formatName is -F's list as pahole names it in messages, or def.
func (l *loader) formatName(def string) string {
	if l.formats == nil {
		return def
	}
	return *l.formats
}

// strerror is glibc's text for the error numbers pahole's loader ends with.
func strerror(e syscall.Errno) string {
	switch e {
	case syscall.EINVAL:
		return "Invalid argument"
	case syscall.ENOTSUP:
		return "Operation not supported"
	}
	s := e.Error()
	return strings.ToUpper(s[:1]) + s[1:]
}

// openBase reads a base BTF as pahole's btf__parse does, before any file
// is loaded: libbpf logs with its default printer then.
func (l *loader) openBase(path string) (*btf.Spec, error) {
	spec, log, err := btffile.OpenLibbpf(path, nil)
	l.logLibbpf(log, l.verbose)
	var le *btffile.LibbpfError
	if errors.As(err, &le) {
		return nil, &exitError{fmt.Sprintf("Failed to parse base BTF '%s': %d\n", path, -int(le.Errno)), 1}
	}
	return spec, err
}

// logLibbpf writes what libbpf logged, as pahole's printer of it shows
// it: every level once the BTF loader has set its printer (or with -V),
// else what libbpf's default printer shows (warnings and information, or
// as LIBBPF_LOG_LEVEL says).
func (l *loader) logLibbpf(log []btffile.Line, all bool) {
	max := btffile.Info
	if all {
		max = btffile.Debug
	} else if v, ok := os.LookupEnv("LIBBPF_LOG_LEVEL"); ok && len(log) > 0 {
		switch strings.ToLower(v) {
		case "warn":
			max = btffile.Warn
		case "debug":
			max = btffile.Debug
		case "info":
		default:
			fmt.Fprintf(l.cmd.ErrOrStderr(), "libbpf: unrecognized 'LIBBPF_LOG_LEVEL' envvar value: '%s', should be one of 'warn', 'debug', or 'info'.\n", v)
		}
	}
	for _, line := range log {
		if line.Level <= max {
			fmt.Fprintf(l.cmd.ErrOrStderr(), "libbpf: %s\n", line.Text)
		}
	}
}

// loadFiles is cus__load_files: each file in turn, stopping at the first
// that fails, whose index it returns with the error number; no file means
// the running kernel's. Errors are gobtf's about input it cannot read.
func (l *loader) loadFiles(files []string) (failed int, errno syscall.Errno, err error) {
	if len(files) == 0 {
		errno, err = l.loadRunningKernel()
		return 0, errno, err
	}
	for i, f := range files {
		if errno, err = l.load(f); err != nil || errno != 0 {
			return i, errno, err
		}
	}
	return 0, 0, nil
}

// loadRunningKernel is cus__load_running_kernel: the kernel's BTF when -F
// allows BTF, else (or if it does not load) the vmlinux of the running
// kernel found by its build ID, in -F's formats.
func (l *loader) loadRunningKernel() (syscall.Errno, error) {
	btfOnly := l.formats != nil && *l.formats == "btf"
	if l.formats == nil || strings.Contains(*l.formats, "btf") {
		path := l.sys.VmlinuxBTF()
		if syscall.Access(path, 4 /* R_OK */) == nil {
			if ok, err := l.loadAs("btf", path); err != nil || ok {
				return 0, err
			}
		}
	}
	if btfOnly {
		return syscall.EINVAL, nil
	}
	vmlinux, ok := l.sys.FindVmlinux()
	if !ok {
		return syscall.EINVAL, nil // pahole tries to load no file, and fails
	}
	return l.load(vmlinux)
}

// load is cus__load_file: path read in the first of -F's formats that has
// it (by default DWARF, then BTF, then CTF) and printed. Its error number
// is EINVAL when no format has it, ENOTSUP when -F names a format that
// does not exist before one that does.
func (l *loader) load(path string) (syscall.Errno, error) {
	formats := []string{"dwarf", "btf", "ctf"}
	if l.formats != nil {
		formats = strings.Split(*l.formats, ",")
	}
	for _, f := range formats {
		if f != "dwarf" && f != "btf" && f != "ctf" {
			return syscall.ENOTSUP, nil
		}
		ok, err := l.loadAs(f, path)
		if err != nil || ok {
			return 0, err
		}
	}
	return syscall.EINVAL, nil
}

// loadAs reads path in one format and prints it; ok is false when the
// file has nothing in that format, as pahole's loader for it fails.
func (l *loader) loadAs(format, path string) (ok bool, err error) {
	switch format {
	case "dwarf":
		return l.loadDWARF(path)
	case "btf":
		return l.loadBTF(path)
	}
	return l.loadCTF(path)
}

// maxDWARFHashBits is the largest --hashbits pahole's DWARF loader takes.
const maxDWARFHashBits = 21

func (l *loader) loadDWARF(path string) (bool, error) {
	if l.hashBits > maxDWARFHashBits {
		return false, nil
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	dw, ok, err := classlayout.OpenDWARF(path)
	if errors.Is(err, elfio.ErrNotELF) || (err == nil && !ok) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer dw.Close()
	if l.restoreGC == nil {
		l.restoreGC = tuning.ForLayoutView()
	}
	err = l.run.Print(dw)
	var ae *classlayout.ArgsError
	if errors.As(err, &ae) {
		// pahole's DWARF loader fails with EINVAL, which ends pahole.
		return true, &exitError{fmt.Sprintf("pahole: %s: %s\n", path, strerror(syscall.EINVAL)), 1}
	}
	return true, err
}

func (l *loader) loadBTF(path string) (bool, error) {
	spec, log, err := btffile.OpenLibbpf(path, l.base)
	l.logLibbpf(log, true)
	var le *btffile.LibbpfError
	if errors.As(err, &le) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, l.run.Print(classlayout.BTFSource(path, spec))
}

// loadCTF is pahole's CTF loader, which gobtf cannot read: it finds no
// CTF in the files of Linux, says what pahole says of a file it cannot
// open as ELF, and refuses, rather than skips, a file that has CTF.
func (l *loader) loadCTF(path string) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, nil
	}
	if !fi.Mode().IsRegular() {
		fmt.Fprintf(l.cmd.ErrOrStderr(), "ctf__new: cannot read %s ELF file.\n", path)
		return false, nil
	}
	f, err := elfio.Open(path)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	if f.Section(".SUNW_ctf") != nil {
		return false, fmt.Errorf("%s: section .SUNW_ctf: CTF is not implemented by gobtf", path)
	}
	return false, nil
}

// languages resolves --lang and --lang_exclude (or PAHOLE_LANG_EXCLUDE
// without them) as pahole's languages__init does: an unknown name ends
// pahole, in its words.
func (o *encodeOptions) languages() (dwarf2btf.LanguageFilter, error) {
	list, exclude := o.langList, o.langs.Exclude
	if !o.langsGiven {
		env, ok := os.LookupEnv("PAHOLE_LANG_EXCLUDE")
		if !ok {
			return dwarf2btf.LanguageFilter{}, nil
		}
		list, exclude = env, true
	}
	var ids []dwarf.Lang
	for _, name := range strings.Split(list, ",") {
		id, err := pahole.ParseLanguages(name)
		if err != nil {
			return dwarf2btf.LanguageFilter{}, &exitError{fmt.Sprintf("pahole: unknown language \"%s\"\n", name), 1}
		}
		ids = append(ids, id...)
	}
	return dwarf2btf.LanguageFilter{IDs: ids, Exclude: exclude}, nil
}
