// Package btfcheck checks BTF as the kernel will check it: a vmlinux's as
// at boot, a module's as when the module is loaded (on its vmlinux's BTF,
// through its distilled base where the kernel reads one), and any BTF as
// BPF_BTF_LOAD does, by the rules of a given kernel version, and reports
// each rejection in the kernel's words. It reads package btf's CheckKernel
// for the kernel's checks; this package picks the path and the base for
// each file, relocates distilled bases, runs many files in parallel and
// looks for what the kernel accepts but is wrong (lint.go).
package btfcheck

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
)

// As picks the kernel check a file gets.
type As uint8

const (
	// AsDefault follows the input: a module (an ELF relocatable file, or
	// split BTF) gets the module check, a vmlinux (an ELF executable, or
	// raw BTF named vmlinux) the vmlinux check, other raw BTF the
	// BPF_BTF_LOAD check.
	AsDefault As = iota
	AsModule
	AsVmlinux
	AsLoad
)

// ParseAs reads --as's value.
func ParseAs(s string) (As, error) {
	switch s {
	case "":
		return AsDefault, nil
	case "module":
		return AsModule, nil
	case "vmlinux":
		return AsVmlinux, nil
	case "load":
		return AsLoad, nil
	}
	return 0, fmt.Errorf("--as %q: want module, vmlinux or load", s)
}

// Fault is one rejection: the fault as package btf reports it, the part of
// the file it is in, and the lines the kernel's log shows for it.
type Fault struct {
	*btf.ValidationError
	// Section is ".BTF" or ".BTF.base" (a raw file's BTF is ".BTF"), or
	// "" for the relocation of .BTF onto the vmlinux's BTF.
	Section string
	// Log is what the kernel logs: the verifier log's closing lines on
	// the load path, the kernel log's lines on the others.
	Log []string
}

// Result is the verdict on one file.
type Result struct {
	File   string
	As     btf.KernelPath
	Kernel Kernel
	// Accepted is the kernel's verdict; Faults lists why not, the first
	// being where the kernel stops (with Options.AllFaults, every fault
	// found).
	Accepted bool
	Faults   []Fault
	// Note says what was not checked and why ("no .BTF section: the
	// kernel loads the module without BTF").
	Note string
	// Lint lists what the kernel accepts but is wrong (Options.Lint).
	Lint []Finding
	// Err is set when the file could not be checked at all (unreadable,
	// not BTF, no base); the other fields are then unset.
	Err error
}

// input is one file to check, read.
type input struct {
	path string
	file *elfio.BTFFile
	as   btf.KernelPath
	base *baseBTF // the vmlinux BTF a module is split on
}

// baseBTF is a vmlinux's BTF as a base: its bytes and their decoding.
type baseBTF struct {
	path string
	data []byte
	spec *btf.Spec
	err  error
	// refused is the fault for which the kernel refuses the base's BTF
	// at boot, or nil.
	refused *btf.ValidationError
	baseIndex
}

// checkFile checks one input by the options' kernel.
func checkFile(in *input, opts Options) Result {
	r := Result{File: in.path, As: in.as, Kernel: opts.Kernel}
	vo := btf.ValidateOptions{Path: in.as, Rules: opts.Kernel.Rules, AllFaults: opts.AllFaults}
	data := in.file.BTF
	switch {
	case in.file.ELF && data == nil && in.as == btf.PathModule:
		r.Accepted = true
		r.Note = "no .BTF section: the kernel loads the module without BTF"
		return r
	case in.file.ELF && data == nil:
		r.Err = fmt.Errorf("%s: %w", in.path, elfio.ErrNoBTF)
		return r
	case in.file.ELF && len(data) == 0 && in.as == btf.PathModule:
		r.Accepted = true
		r.Note = "empty .BTF section: the kernel loads the module without BTF"
		return r
	}
	if in.as != btf.PathVmlinux && in.base != nil && in.base.err != nil {
		r.Err = in.base.err
		return r
	}
	var spec *btf.Spec
	switch in.as {
	case btf.PathVmlinux:
		var faults []*btf.ValidationError
		spec, faults = btf.CheckKernel(data, nil, vo)
		r.addFaults(faults, ".BTF", spec, "", false)
	case btf.PathModule:
		spec = checkModule(&r, in, vo, opts.Kernel)
	case btf.PathLoad:
		spec = checkLoad(&r, in, vo)
	}
	r.Accepted = len(r.Faults) == 0
	if opts.Lint && r.Accepted && spec != nil {
		r.Lint = lint(in, spec, opts)
	}
	return r
}

// checkLoad is BPF_BTF_LOAD on the file's BTF, standalone or, for split
// BTF, merged with its base (its vmlinux, or its own distilled base) as
// btfload hands split BTF to the kernel. It returns the file's BTF on its
// base when accepted.
func checkLoad(r *Result, in *input, vo btf.ValidateOptions) *btf.Spec {
	data := in.file.BTF
	var baseData []byte
	var base *btf.Spec
	switch {
	case in.base != nil:
		baseData, base = in.base.data, in.base.spec
	case in.file.Base != nil:
		var faults []*btf.ValidationError
		base, faults = btf.CheckKernel(in.file.Base, nil, vo)
		r.addFaults(faults, ".BTF.base", base, "", true)
		if len(faults) > 0 {
			return nil
		}
		baseData = in.file.Base
	default:
		spec, faults := btf.CheckKernel(data, nil, vo)
		r.addFaults(faults, ".BTF", spec, "", true)
		return spec
	}
	merged, f := btf.MergeSplit(baseData, data)
	if f != nil {
		r.addFaults([]*btf.ValidationError{f}, ".BTF", nil, "", true)
		return nil
	}
	spec, faults := btf.CheckKernel(merged, nil, vo)
	r.addFaults(faults, ".BTF", spec, "", true)
	if len(faults) > 0 {
		return nil
	}
	// Lint reads the split types on their base.
	split, _ := btf.CheckKernel(data, base, btf.ValidateOptions{Path: btf.PathModule, Rules: vo.Rules})
	return split
}

// addFaults records faults found in section of the file, with the log lines
// of the path (load: the verifier log; otherwise the kernel log, naming the
// module when the file is one).
func (r *Result) addFaults(faults []*btf.ValidationError, section string, s *btf.Spec, module string, load bool) {
	for _, f := range faults {
		var log []string
		if load {
			log = VerifierLog(f, s)
		} else {
			log = KernelLog(f, s, module)
		}
		r.Faults = append(r.Faults, Fault{ValidationError: f, Section: section, Log: log})
	}
}

// checkModule is module loading (btf_parse_module): the module's .BTF split
// on the vmlinux's BTF or, where the kernel reads it, on the module's
// .BTF.base, whose types are then relocated onto the vmlinux's. It returns
// the module's BTF on the vmlinux's base when that could be built.
func checkModule(r *Result, in *input, vo btf.ValidateOptions, k Kernel) *btf.Spec {
	name := in.file.ModName
	if name == "" {
		name = moduleName(in.path)
	}
	if rf := in.base.refused; rf != nil {
		// btf_parse_module gets the vmlinux's parse error.
		f := &btf.ValidationError{Form: btf.FormSilent, Errno: rf.Errno,
			Rule: fmt.Sprintf("the kernel refuses the vmlinux BTF (%s) at boot, so it has none to read a module's on", Line(rf))}
		r.addFaults([]*btf.ValidationError{f}, ".BTF", nil, name, false)
		return nil
	}
	base := in.base.spec
	if in.file.Base != nil && k.DistilledBase {
		bo := vo
		bo.Path = btf.PathVmlinux
		dist, faults := btf.CheckKernel(in.file.Base, nil, bo)
		r.addFaults(faults, ".BTF.base", dist, name, false)
		if len(faults) > 0 {
			return nil
		}
		split, faults := btf.CheckKernel(in.file.BTF, dist, vo)
		r.addFaults(faults, ".BTF", split, name, false)
		if len(faults) > 0 {
			return nil
		}
		moved, f := relocate(split, base)
		if f != nil {
			r.addFaults([]*btf.ValidationError{f}, "", nil, name, false)
			return nil
		}
		return moved
	}
	spec, faults := btf.CheckKernel(in.file.BTF, base, vo)
	r.addFaults(faults, ".BTF", spec, name, false)
	return spec
}

// moduleName is the name of the module in a file without a .modinfo name:
// its base name without ".ko" (and a compression suffix), dashes made
// underscores, as kbuild names modules.
func moduleName(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".xz", ".zst", ".gz"} {
		name = strings.TrimSuffix(name, ext)
	}
	name = strings.TrimSuffix(name, ".ko")
	return strings.ReplaceAll(name, "-", "_")
}

// relocate moves a module's BTF from its distilled base onto the vmlinux's
// as the kernel does (btf_relocate), reporting in the kernel's order what
// it refuses and where the kernel's relocation goes wrong on BTF that its
// earlier checks let through: a reference to a type past the module's last
// (the kernel reads past the end of its ID map, or follows a null type) and
// a cycle through arrays among the types a struct member embeds (the
// kernel's walk never ends).
func relocate(split, base *btf.Spec) (*btf.Spec, *btf.ValidationError) {
	moved, err := btf.Relocate(split, base)
	var ve *btf.ValidationError
	if err != nil {
		var ok bool
		if ve, ok = err.(*btf.ValidationError); !ok {
			return nil, &btf.ValidationError{Form: btf.FormSilent, Rule: err.Error(), Errno: 22}
		}
		if strings.HasPrefix(ve.Kernel, "type [") {
			return nil, ve // the distilled base's kinds, checked first
		}
	}
	if f := embeddedWalkFault(split); f != nil {
		return nil, f
	}
	if ve != nil && !strings.HasPrefix(ve.Kernel, "string ") {
		return nil, ve
	}
	if f := refRangeFault(split); f != nil {
		return nil, f
	}
	if ve != nil {
		return nil, ve
	}
	return moved, nil
}

// embeddedWalkFault follows, as btf_mark_embedded_composite_type_ids does,
// each struct or union member's type through modifiers, typedefs, type tags
// and arrays, and reports a type ID it meets that is not a type, or a walk
// that never ends.
func embeddedWalkFault(s *btf.Spec) *btf.ValidationError {
	n := s.TypeCount()
	for i := range s.NumTypes() {
		t := s.Own(i)
		if k := t.Kind(); k != btf.KindStruct && k != btf.KindUnion {
			continue
		}
		id := s.FirstID() + btf.TypeID(i)
		for m := range t.Vlen() {
			next := t.Member(m).Type
			for steps := btf.TypeID(0); next != 0; steps++ {
				if next > n {
					return &btf.ValidationError{ID: id, Kind: t.Kind(), Name: s.Name(t), Form: btf.FormSilent, Errno: 22,
						Rule: fmt.Sprintf("relocating: member %d's type leads to type ID %d, past the module's last type %d; the kernel's relocation follows a null type there (a crash)", m, next, n)}
				}
				if steps > n {
					return &btf.ValidationError{ID: id, Kind: t.Kind(), Name: s.Name(t), Form: btf.FormSilent, Errno: 22,
						Rule: fmt.Sprintf("relocating: member %d's type leads into a cycle through arrays; the kernel's relocation never ends there (the module load hangs)", m)}
				}
				u := s.Type(next)
				switch u.Kind() {
				case btf.KindConst, btf.KindRestrict, btf.KindVolatile, btf.KindTypedef, btf.KindTypeTag:
					next = u.Ref()
				case btf.KindArray:
					next, _, _ = u.Array()
				default:
					next = 0
				}
			}
		}
	}
	return nil
}

// refRangeFault reports the first type ID a module's type refers to that
// is past its last type, where the kernel's relocation reads its ID map out
// of bounds.
func refRangeFault(s *btf.Spec) *btf.ValidationError {
	n := s.TypeCount()
	var f *btf.ValidationError
	for i := 0; i < s.NumTypes() && f == nil; i++ {
		t := s.Own(i)
		t.ForEachTypeRef(func(w *uint32) {
			if *w > n && f == nil {
				f = &btf.ValidationError{ID: s.FirstID() + btf.TypeID(i), Kind: t.Kind(), Name: s.Name(t), Form: btf.FormSilent, Errno: 22,
					Rule: fmt.Sprintf("relocating: refers to type ID %d, past the module's last type %d; the kernel's relocation reads past the end of its ID map there (undefined behaviour)", *w, n)}
			}
		})
	}
	return f
}

// pathFor picks the check a file gets by default.
func pathFor(path string, f *elfio.BTFFile, haveBase bool) btf.KernelPath {
	switch {
	case f.ELF && f.Type == elf.ET_REL:
		return btf.PathModule
	case f.ELF:
		return btf.PathVmlinux
	case isSysfs(path) && filepath.Base(path) == "vmlinux":
		return btf.PathVmlinux
	case isSysfs(path):
		return btf.PathModule
	case strings.HasPrefix(filepath.Base(path), "vmlinux"):
		return btf.PathVmlinux
	case haveBase:
		return btf.PathModule
	}
	return btf.PathLoad
}
