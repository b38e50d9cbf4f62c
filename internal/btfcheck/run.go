package btfcheck

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Options configure a check.
type Options struct {
	// Base is the vmlinux (raw BTF or ELF) modules are checked on; empty
	// lets Run find it (see Run).
	Base string
	// As forces a check on every file.
	As As
	// Kernel is the version whose rules apply.
	Kernel Kernel
	// Lint looks for what the kernel accepts but is wrong (lint.go).
	Lint bool
	// AllFaults lists every fault found, not only the kernel's first.
	AllFaults bool
	// Workers bounds the files checked at once; 0 means GOMAXPROCS.
	Workers int
	// SysfsDir is where the running kernel publishes its BTF;
	// empty means /sys/kernel/btf.
	SysfsDir string
}

// UsageError is an error in what Run was asked to do (a module without a
// base, an empty directory), as opposed to a fault in a file.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// sysfsBTF is where the running kernel publishes its BTF.
const sysfsBTF = "/sys/kernel/btf"

func isSysfs(path string) bool {
	return strings.HasPrefix(filepath.Clean(path), sysfsBTF+"/")
}

// moduleExts are the file names a directory walk checks.
var moduleExts = []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"}

// Run checks the files and directories in paths (directories are walked for
// kernel modules: .ko, .ko.xz, .ko.zst, .ko.gz) and calls emit with each
// file's Result, in the order of paths and, within a directory, of file
// names. Files are read and checked on opts.Workers goroutines.
//
// A module is checked on the vmlinux BTF given as opts.Base; else on the
// vmlinux among paths; else, for a module under /lib/modules/VERSION/, on
// that tree's build/vmlinux, or on the running kernel's BTF
// (/sys/kernel/btf/vmlinux) when VERSION is the running kernel's; a file
// under /sys/kernel/btf is checked on /sys/kernel/btf/vmlinux. A module
// with none of these is a *UsageError, as are a directory without modules
// and an unusable --base: Run returns it before checking anything.
func Run(paths []string, opts Options, emit func(Result)) error {
	files, err := expand(paths)
	if err != nil {
		return err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opts.Kernel.Major == 0 {
		opts.Kernel = Newest()
	}
	sysfs := opts.SysfsDir
	if sysfs == "" {
		sysfs = sysfsBTF
	}
	p := &planner{opts: opts, sysfs: sysfs, bases: map[string]*baseBTF{}}

	// Read the files named on the command line first: a vmlinux among
	// them is the modules' base.
	inputs := make([]*input, len(files))
	readErrs := make([]error, len(files))
	for i, f := range files {
		if f.explicit {
			inputs[i], readErrs[i] = readInput(f.path)
		}
	}
	if err := p.findBase(files, inputs); err != nil {
		return err
	}

	results := make([]Result, len(files))
	done := make([]chan struct{}, len(files))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(files) {
					return
				}
				results[i] = p.check(files[i], inputs[i], readErrs[i])
				inputs[i] = nil
				close(done[i])
			}
		}()
	}
	for i := range files {
		<-done[i]
		emit(results[i])
		results[i] = Result{}
	}
	wg.Wait()
	return nil
}

// file is one file Run checks.
type file struct {
	path     string
	explicit bool // named on the command line rather than found in a directory
}

// expand lists the files of paths: files as given, directories walked for
// modules, sorted by path.
func expand(paths []string) ([]file, error) {
	var out []file
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			out = append(out, file{path: p, explicit: true}) // reported as the file's error
			continue
		}
		if !fi.IsDir() {
			out = append(out, file{path: p, explicit: true})
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && slices.ContainsFunc(moduleExts, func(ext string) bool { return strings.HasSuffix(path, ext) }) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, &UsageError{Msg: fmt.Sprintf("walking %s: %v", p, err)}
		}
		if len(found) == 0 {
			return nil, &UsageError{Msg: fmt.Sprintf("%s: no kernel modules (.ko, .ko.xz, .ko.zst, .ko.gz) in this directory", p)}
		}
		slices.Sort(found)
		for _, f := range found {
			out = append(out, file{path: f})
		}
	}
	return out, nil
}

// readInput reads a file's BTF.
func readInput(path string) (*input, error) {
	f, err := elfio.ReadBTFFile(path)
	if err != nil {
		return nil, err
	}
	return &input{path: path, file: f}, nil
}

// planner decides each file's check and base.
type planner struct {
	opts  Options
	sysfs string

	explicitBase *baseBTF // --base, or the vmlinux among the inputs
	mu           sync.Mutex
	bases        map[string]*baseBTF // by path, loaded once
}

// findBase loads --base, or finds the vmlinux among the files named on the
// command line, and makes sure every module has a base.
func (p *planner) findBase(files []file, inputs []*input) error {
	if p.opts.Base != "" {
		b := p.loadBase(p.opts.Base)
		if b.err != nil {
			return &UsageError{Msg: "--base: " + b.err.Error()}
		}
		p.explicitBase = b
	} else {
		for i, in := range inputs {
			if in != nil && pathFor(in.path, in.file, false) == btf.PathVmlinux && in.file.BTF != nil {
				b := p.baseFrom(files[i].path, in.file.BTF)
				if b.err == nil {
					p.explicitBase = b
					break
				}
			}
		}
	}
	for i, f := range files {
		if in := inputs[i]; in != nil && !p.needsBase(in) {
			continue
		} else if in == nil && f.explicit {
			continue // unreadable: reported as its error
		}
		if p.implicitBase(f.path) == "" {
			return &UsageError{Msg: fmt.Sprintf("%s: a kernel module's BTF is split on its vmlinux's BTF; give the vmlinux with --base (or among the files to check)", f.path)}
		}
	}
	return nil
}

// isSplit reports whether an input is split BTF by its form: an ELF
// relocatable file (a module), a module's file under /sys/kernel/btf, or,
// when --base is given, a raw file not named vmlinux.
func (p *planner) isSplit(in *input) bool {
	return pathFor(in.path, in.file, p.opts.Base != "") == btf.PathModule
}

// needsBase reports whether an input is checked on a vmlinux base: a module
// on every path but load with a distilled base of its own.
func (p *planner) needsBase(in *input) bool {
	switch p.pathOf(in) {
	case btf.PathModule:
		return true
	case btf.PathLoad:
		return p.isSplit(in) && in.file.Base == nil
	}
	return false
}

// pathOf is the check an input gets.
func (p *planner) pathOf(in *input) btf.KernelPath {
	switch p.opts.As {
	case AsModule:
		return btf.PathModule
	case AsVmlinux:
		return btf.PathVmlinux
	case AsLoad:
		return btf.PathLoad
	}
	return pathFor(in.path, in.file, p.opts.Base != "")
}

// implicitBase returns the path of the base a module at path is checked on
// when the command line gives none: "" when there is none.
func (p *planner) implicitBase(path string) string {
	if p.explicitBase != nil {
		return p.explicitBase.path
	}
	if isSysfs(path) {
		return filepath.Join(p.sysfs, "vmlinux")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	const tree = "/lib/modules/"
	i := strings.LastIndex(abs, tree)
	if i < 0 {
		return ""
	}
	version, _, _ := strings.Cut(abs[i+len(tree):], "/")
	if version == "" {
		return ""
	}
	if build := filepath.Join(abs[:i+len(tree)], version, "build", "vmlinux"); fileExists(build) {
		return build
	}
	if r, err := runningRelease(); err == nil && r == version {
		return filepath.Join(p.sysfs, "vmlinux")
	}
	return ""
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// loadBase reads and decodes the base at path, once.
func (p *planner) loadBase(path string) *baseBTF {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.bases[path]; ok {
		return b
	}
	f, err := elfio.ReadBTFFile(path)
	var b *baseBTF
	switch {
	case err != nil:
		b = &baseBTF{path: path, err: err}
	case f.ELF && f.BTF == nil:
		b = &baseBTF{path: path, err: fmt.Errorf("%s: %w", path, elfio.ErrNoBTF)}
	default:
		b = p.decodeBase(path, f.BTF)
	}
	p.bases[path] = b
	return b
}

// baseFrom makes a base of BTF already read from path.
func (p *planner) baseFrom(path string, data []byte) *baseBTF {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.decodeBase(path, data)
	p.bases[path] = b
	return b
}

// decodeBase decodes a base, and checks it as the kernel checks its own
// BTF at boot: a vmlinux whose BTF the kernel refuses has none, and then
// takes no module's BTF either.
func (p *planner) decodeBase(path string, data []byte) *baseBTF {
	s, err := btf.Parse(data, nil)
	if err != nil {
		return &baseBTF{path: path, err: fmt.Errorf("base %s: %w", path, err)}
	}
	b := &baseBTF{path: path, data: data, spec: s}
	if _, faults := btf.CheckKernel(data, nil, btf.ValidateOptions{Path: btf.PathVmlinux, Rules: p.opts.Kernel.Rules}); len(faults) > 0 {
		b.refused = faults[0]
	}
	return b
}

// check reads (if need be) and checks one file.
func (p *planner) check(f file, in *input, readErr error) Result {
	if in == nil && readErr == nil {
		in, readErr = readInput(f.path)
	}
	if readErr != nil {
		return Result{File: f.path, Err: readErr}
	}
	in.as = p.pathOf(in)
	if in.as == btf.PathVmlinux && p.isSplit(in) {
		return Result{File: f.path, Err: errors.New(f.path + ": a module's split BTF has no vmlinux check; use --as module or --as load")}
	}
	if p.needsBase(in) {
		bp := p.implicitBase(in.path)
		if bp == "" {
			return Result{File: f.path, Err: errors.New(f.path + ": no vmlinux BTF to check this module on; give it with --base")}
		}
		if in.base = p.loadBase(bp); in.base.path == in.path {
			return Result{File: f.path, Err: errors.New(f.path + ": a file cannot be its own base")}
		}
	}
	return checkFile(in, p.opts)
}
