package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/core"
	"github.com/gobtf/gobtf/internal/elfio"
)

// minCoreOptions are the flags of "gobtf gen min_core_btf".
type minCoreOptions struct {
	strict   bool
	verbose  bool
	debug    bool
	baseBTF  string   // --base-btf: the vmlinux; the first argument is then a module
	modules  []string // --module, in order
	splitDir string   // --split-output
	archive  archiveFlags
}

// newMinCoreBTFCmd builds "gobtf gen min_core_btf", bpftool's generator of
// minimized BTF for CO-RE objects.
func newMinCoreBTFCmd() *cobra.Command {
	var o minCoreOptions
	cmd := &cobra.Command{
		Use: "min_core_btf [--strict] [-v] [-d] [-B VMLINUX] [--module FILE]... [--split-output DIR] INPUT OUTPUT OBJECT...",
		Example: `  gobtf gen min_core_btf vmlinux.btf min.btf a.bpf.o b.bpf.o
  gobtf gen min_core_btf --base-btf vmlinux.btf xfs.ko --module nf_conntrack.ko min.btf a.bpf.o
  gobtf gen min_core_btf -B vmlinux.btf /sys/kernel/btf/xfs --split-output min/ a.bpf.o`,
		Short: "Write the part of a kernel's BTF that CO-RE objects need, as bpftool gen min_core_btf does",
		Long: `min_core_btf reads the BTF of a kernel in INPUT (raw BTF, or an ELF file with
a .BTF section), computes every CO-RE relocation of the BPF objects OBJECT...
against it as libbpf does, and writes to OUTPUT, as raw BTF, only the types
and struct members those relocations use: a few kilobytes that libbpf takes
in place of the kernel's BTF (btf_custom_path) and that give every
relocation the result it gets on INPUT. Where bpftool 7.1's "bpftool gen
min_core_btf INPUT OUTPUT OBJECT..." succeeds, OUTPUT is the same bytes.

Every kind of relocation is computed (field offset, size, existence,
signedness and shifts; type existence, size, match and ID; enumerator
existence and value, of enums and enum64), with libbpf's candidate rules:
names compared up to a ___flavor suffix, every candidate tried, ambiguity
decided as libbpf decides it. Type tags, declaration tags and forward
declarations in INPUT are handled, also for type matches, where bpftool
fails. gobtf checks OUTPUT by relocating every object against it again;
where a relocation would come out otherwise (bpftool keeps only the first
of several matching candidates), it keeps what that relocation needs.
OUTPUT's types are renumbered, so a target type ID relocation
(bpf_core_type_id_kernel) gives OUTPUT's ID of the type, as with bpftool.

Kernel modules: with --base-btf VMLINUX (-B), the first argument (INPUT) is
a module's split BTF on VMLINUX (raw, as /sys/kernel/btf/<module> holds it,
or a .ko file); --module FILE adds more modules (also without --base-btf,
on INPUT). Candidates are searched as libbpf searches a running kernel
with those modules loaded: in the vmlinux first, and in the modules only
for a local type of which the vmlinux has no candidate. OUTPUT is then one
standalone BTF, the vmlinux's kept types and then each module's, that
gives every relocation the result it gets on that kernel; since libbpf
searches a btf_custom_path file alone, a kept module type whose name is
that of a local type the vmlinux has a candidate for is renamed
"<module>__<name>" (reported on stderr), so that it is no candidate, and
the check fails any relocation with a candidate in OUTPUT that the
kernel's search would not find. With --split-output DIR in place of
OUTPUT, gobtf writes DIR/vmlinux.btf, the minimized vmlinux BTF, and
DIR/<module>.btf, each module's minimized split BTF on it (nothing is
renamed), for loaders that take a vmlinux and module BTF apart.

Nothing is dropped silently: each relocation that finds no candidate, no
matching candidate, or an ambiguous one is reported on stderr with its
object, program, kind, access string and type, and the vmlinux and
modules searched, and a count ends the report. Existence checks
(bpf_core_field_exists, bpf_core_type_exists, bpf_core_type_matches,
bpf_core_enum_value_exists) that answer "no" are reported as "absent":
that answer is what they are for. With --strict, any other unresolved,
ambiguous or failed relocation is an error: gobtf exits 1 and OUTPUT is
not written.

A bad object (not a BPF object, no .BTF or .BTF.ext, corrupt records, an
access string that does not parse or fit its types) is an error naming
the object, section and offset; OUTPUT is not written. OUTPUT is written
through a temporary file renamed into place.

-v lists on stdout, per object, the types (by INPUT's IDs, and each
module's) and members its relocations keep. -d prints libbpf's debug
lines of every relocation (the local access, each candidate, matching or
not), worded as "bpftool -d gen min_core_btf" prints them, for
comparison.`,
		Args: cobra.ArbitraryArgs, // parseMinCoreArgs checks them
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.archive.on {
				return runMinCoreArchive(cmd, o, args)
			}
			return runMinCoreBTF(cmd, o, args)
		},
	}
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1, writing nothing, when a relocation is unresolved, ambiguous or failed")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "list on stdout what each object keeps of INPUT")
	cmd.Flags().BoolVarP(&o.debug, "debug", "d", false, "print libbpf's debug lines of every relocation on stderr, as \"bpftool -d\" does (prefixed \"debug: \")")
	cmd.Flags().StringVarP(&o.baseBTF, "base-btf", "B", "", "the vmlinux BTF in `VMLINUX`; the first argument is then a module's BTF on it")
	cmd.Flags().StringArrayVar(&o.modules, "module", nil, "also search the module BTF in `FILE` (split on the vmlinux), after the vmlinux; repeatable")
	cmd.Flags().StringVar(&o.splitDir, "split-output", "", "write `DIR`/vmlinux.btf and DIR/<module>.btf, split on it, in place of OUTPUT")
	addArchiveFlags(cmd, &o.archive)
	return cmd
}

// minCoreArgs are min_core_btf's files, from its arguments and flags.
type minCoreArgs struct {
	vmlinux string
	modules []string
	output  string // "" with --split-output
	objects []string
}

// parseMinCoreArgs sorts the arguments into files (see the command's usage).
func parseMinCoreArgs(o minCoreOptions, args []string) (minCoreArgs, error) {
	var a minCoreArgs
	want := 3
	if o.splitDir != "" {
		want = 2
	}
	if len(args) < want {
		first, second := "INPUT", " OUTPUT"
		if o.baseBTF != "" {
			first = "MODULE"
		}
		if o.splitDir != "" {
			second = ""
		}
		return a, usageError{fmt.Errorf("min_core_btf: expected %s%s OBJECT..., got %d argument(s) (usage: gobtf gen min_core_btf [-B VMLINUX] [--module FILE]... [--split-output DIR] INPUT OUTPUT OBJECT...)", first, second, len(args))}
	}
	a.vmlinux, a.modules = o.baseBTF, o.modules
	if o.baseBTF != "" {
		a.modules = append([]string{args[0]}, o.modules...)
	} else {
		a.vmlinux = args[0]
	}
	args = args[1:]
	if o.splitDir == "" {
		a.output, args = args[0], args[1:]
	}
	a.objects = args
	return a, nil
}

// runMinCoreBTF minimizes the kernel's BTF for the objects and writes the
// output.
func runMinCoreBTF(cmd *cobra.Command, o minCoreOptions, args []string) error {
	a, err := parseMinCoreArgs(o, args)
	if err != nil {
		return err
	}
	// Everything read lives to the end, and little is garbage: collecting
	// would only cost time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	// The vmlinux is read where it lies, in a private mapping of the file
	// (as the -J pipeline reads a base), kept to the end.
	vf, err := btffile.Open(a.vmlinux, btffile.Options{Memory: btffile.Mapped})
	if err != nil {
		return err
	}
	defer vf.Close()
	spec := vf.Spec
	if err := checkStandaloneBTF(a.vmlinux, spec); err != nil {
		return err
	}
	ptr := inputPointerSize(a.vmlinux, spec)
	target := core.NewTarget(a.vmlinux, spec, ptr)
	mods, err := openModules(spec, a.modules)
	if err != nil {
		return err
	}
	var targets []*core.Target
	names := map[string]string{}
	for i, m := range mods {
		name := moduleFileName(a.modules[i])
		if prev, dup := names[name]; dup && o.splitDir != "" {
			return usageError{fmt.Errorf("min_core_btf: --split-output: modules %s and %s are both named %s", prev, a.modules[i], name)}
		}
		names[name] = a.modules[i]
		targets = append(targets, core.NewTarget(name, m, ptr))
	}
	mz := core.NewMinimizer(target, targets...)
	stderr := bufio.NewWriter(cmd.ErrOrStderr())
	defer stderr.Flush()
	if o.debug {
		mz.Log = func(line string) { fmt.Fprintf(stderr, "debug: %s\n", line) }
	}
	for _, path := range a.objects {
		obj, err := btfext.ReadObject(path)
		if err != nil {
			return err
		}
		if _, err := mz.Add(obj); err != nil {
			return err
		}
	}
	var out *core.Output
	if o.splitDir != "" {
		out, err = mz.BuildSplit()
	} else {
		out, err = mz.Build()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", a.vmlinux, err)
	}
	for _, r := range out.Renamed {
		fmt.Fprintf(stderr, "gobtf: %s: %s %s [%d] of module %s is named %s in the output: the vmlinux has a candidate for local types named %s, so a running kernel does not search modules for them\n",
			a.output, strings.ToLower(r.Module.Types.Spec.Type(r.ID).Kind().String()), r.Name, r.ID, r.Module.Name, r.NewName, r.Name)
	}
	c := reportRelocations(stderr, mz, out, o.verbose)
	if o.verbose {
		w := bufio.NewWriter(cmd.OutOrStdout())
		listKept(w, mz)
		if err := w.Flush(); err != nil {
			return err
		}
	}
	dest := a.output
	if dest == "" {
		dest = o.splitDir
	}
	if o.strict && c.errors() > 0 {
		return fmt.Errorf("min_core_btf: --strict: %d relocation(s) unresolved, ambiguous or failed; %s not written", c.errors(), dest)
	}
	stderr.Flush()
	if o.splitDir == "" {
		return elfio.WriteFile(a.output, out.Spec.Marshal(binary.NativeEndian))
	}
	return writeSplitOutput(o.splitDir, out, targets)
}

// writeSplitOutput writes --split-output's files: dir/vmlinux.btf and, per
// module, dir/<module>.btf.
func writeSplitOutput(dir string, out *core.Output, mods []*core.Target) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := elfio.WriteFile(filepath.Join(dir, "vmlinux.btf"), out.Spec.Marshal(binary.NativeEndian)); err != nil {
		return err
	}
	for i, m := range mods {
		if err := elfio.WriteFile(filepath.Join(dir, m.Name+".btf"), out.Modules[i].Marshal(binary.NativeEndian)); err != nil {
			return err
		}
	}
	return nil
}

// moduleFileName is the name of the module whose BTF is in the file at
// path: its base name without ".ko", ".btf" or a compression suffix, dashes
// made underscores, as kbuild names modules (/sys/kernel/btf/<module> is
// the name itself).
func moduleFileName(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".xz", ".zst", ".gz", ".ko", ".btf", ".raw"} {
		name = strings.TrimSuffix(name, ext)
	}
	return strings.ReplaceAll(name, "-", "_")
}

// inputPointerSize returns the pointer size libbpf takes for INPUT
// (core.FilePointerSize of its first bytes).
func inputPointerSize(path string, spec *btf.Spec) uint32 {
	var head [elf.EI_NIDENT]byte
	if f, err := os.Open(path); err == nil {
		f.ReadAt(head[:], 0) // a shorter file is not ELF
		f.Close()
	}
	return core.FilePointerSize(head[:], spec)
}

// relocCounts counts the relocations by what they came to.
type relocCounts struct {
	total, resolved, local, absent, unresolved, ambiguous, failed, mismatched int
}

// errors counts the relocations --strict refuses.
func (c relocCounts) errors() int { return c.unresolved + c.ambiguous + c.failed + c.mismatched }

// reportRelocations writes one line per relocation that was not resolved
// (and, with verbose, per relocation for which more than bpftool keeps was
// kept), then the counts when anything was reported or verbose is set.
func reportRelocations(w io.Writer, mz *core.Minimizer, out *core.Output, verbose bool) relocCounts {
	var c relocCounts
	for _, or := range mz.Objects {
		for i := range or.Relocs {
			r := &or.Relocs[i]
			c.total++
			switch {
			case r.Outcome == core.Resolved:
				c.resolved++
				continue
			case r.Outcome == core.LocalOnly:
				c.local++
				continue
			case r.Answered():
				c.absent++
				fmt.Fprintf(w, "gobtf: %s: absent: %s\n", describeReloc(or, r), reason(mz.Target, r))
			case r.Outcome == core.Ambiguous:
				c.ambiguous++
				fmt.Fprintf(w, "gobtf: %s: ambiguous: %s\n", describeReloc(or, r), reason(mz.Target, r))
			case r.Outcome == core.Failed:
				c.failed++
				fmt.Fprintf(w, "gobtf: %s: failed: %s\n", describeReloc(or, r), reason(mz.Target, r))
			default:
				c.unresolved++
				fmt.Fprintf(w, "gobtf: %s: unresolved: %s\n", describeReloc(or, r), reason(mz.Target, r))
			}
		}
	}
	if verbose {
		for _, m := range out.Widened {
			fmt.Fprintf(w, "gobtf: %s: kept every candidate that matched this and the relocations of the same type before it, not only the first as bpftool does: with the first alone, the output relocates it otherwise\n",
				describeReloc(m.Object, m.Reloc))
		}
	}
	for _, m := range out.Mismatches {
		c.mismatched++
		if len(m.Extra) > 0 {
			var names []string
			for _, x := range m.Extra {
				t := x.Target.Types.Spec.Type(x.ID)
				names = append(names, fmt.Sprintf("%s %s [%d] of %s", strings.ToLower(t.Kind().String()), x.Target.Types.Spec.Name(t), x.ID, x.Target.Name))
			}
			fmt.Fprintf(w, "gobtf: %s: the output has candidates the kernel's search would not find: %s\n", describeReloc(m.Object, m.Reloc), strings.Join(names, ", "))
			continue
		}
		fmt.Fprintf(w, "gobtf: %s: the output relocates it otherwise than %s (%s, value %d; output: %s, value %d)\n",
			describeReloc(m.Object, m.Reloc), mz.Target.Name, m.Reloc.Outcome, m.Reloc.New.Val, m.Got.Outcome, m.Got.New.Val)
	}
	if c.errors()+c.absent > 0 || verbose {
		fmt.Fprintf(w, "gobtf: min_core_btf: %d relocation(s) in %d object(s): %d resolved, %d local, %d absent (existence checks answered no), %d unresolved, %d ambiguous, %d failed",
			c.total, len(mz.Objects), c.resolved, c.local, c.absent, c.unresolved, c.ambiguous, c.failed)
		if c.mismatched > 0 {
			fmt.Fprintf(w, ", %d relocated otherwise by the output", c.mismatched)
		}
		fmt.Fprintln(w)
	}
	return c
}

// describeReloc names a relocation: object, program (or section), kind,
// local type and access.
func describeReloc(or *core.ObjectResult, r *core.RelocReport) string {
	where := "program " + r.Program
	if r.Program == "" {
		where = "section " + r.Section
	}
	ls := r.Local
	t := ls.Types.Spec.Type(ls.Root)
	name := ls.Types.Spec.Name(t)
	if name == "" {
		name = "(anonymous)"
	}
	s := fmt.Sprintf("%s: %s: %s relocation #%d on %s %s", or.Object.Name, where, r.Reloc.Kind, r.Index, strings.ToLower(t.Kind().String()), name)
	switch {
	case r.Reloc.Kind.IsField():
		s += fmt.Sprintf(", access %s (%s)", ls.RawString(), ls.Path())
	case r.Reloc.Kind.IsEnumval():
		s += fmt.Sprintf(", enumerator %s", ls.Access[0].Name)
	}
	return s
}

// reason says why a relocation was not resolved, and what libbpf does
// with the instruction then.
func reason(target *core.Target, r *core.RelocReport) string {
	var why string
	switch r.Outcome {
	case core.NoCandidate:
		t := r.Local.Types.Spec.Type(r.Local.Root)
		name := r.Local.Types.Spec.Name(t)
		verb := "has"
		if len(r.Searched) > 1 {
			verb = "have"
		}
		why = fmt.Sprintf("%s %s no %s named %s", searchedNames(target, r), verb, strings.ToLower(t.Kind().String()), name[:core.EssentialNameLen(name)])
	case core.NoMatch:
		why = fmt.Sprintf("none of the %d candidate(s) in %s matches", r.Candidates, searchedNames(target, r))
	default:
		why = r.Err.Error()
	}
	switch {
	case r.New.Poison:
		why += " (instruction poisoned)"
	case r.Outcome == core.NoCandidate || r.Outcome == core.NoMatch:
		why += fmt.Sprintf(" (value %d)", r.New.Val)
	default:
		why += " (libbpf rejects the object)"
	}
	return why
}

// searchedNames names the BTF a relocation's candidates were searched in:
// the vmlinux, and the modules when they were searched too.
func searchedNames(target *core.Target, r *core.RelocReport) string {
	if len(r.Searched) <= 1 {
		return target.Name
	}
	var mods []string
	for _, t := range r.Searched[1:] {
		mods = append(mods, t.Name)
	}
	return fmt.Sprintf("%s and module(s) %s", target.Name, strings.Join(mods, ", "))
}

// listKept writes, per object, its relocation counts and the types and
// members of INPUT it keeps (IDs are INPUT's), then those of each module
// (IDs are the module's, after its name).
func listKept(w io.Writer, mz *core.Minimizer) {
	for _, or := range mz.Objects {
		members := 0
		var lines []string
		for i, marks := range append([]*core.Marks{or.Marks}, or.ModuleMarks...) {
			spec := marks.Target.Types.Spec
			prefix := ""
			if i > 0 {
				prefix = marks.Target.Name + " "
			}
			marks.Types(func(id btf.TypeID) {
				if i > 0 && id < spec.FirstID() {
					return // in the vmlinux's list
				}
				t := spec.Type(id)
				line := fmt.Sprintf("  %s[%d] %s %s", prefix, id, t.Kind(), quoteName(spec.Name(t)))
				if t.Kind() == btf.KindStruct || t.Kind() == btf.KindUnion {
					var names []string
					for i := range t.Vlen() {
						if marks.HasMember(id, i) {
							names = append(names, quoteName(spec.Strings().String(t.Member(i).NameOff)))
						}
					}
					members += len(names)
					line += fmt.Sprintf(" size=%d members: %s", t.Size(), strings.Join(names, " "))
				}
				lines = append(lines, line)
			})
		}
		fmt.Fprintf(w, "%s: %d relocation(s), keeps %d type(s) and %d member(s):\n", or.Object.Name, len(or.Relocs), len(lines), members)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
}

// quoteName puts a name in single quotes, as bpftool's dump does, with
// "(anon)" for the empty name.
func quoteName(n string) string {
	if n == "" {
		n = "(anon)"
	}
	return "'" + n + "'"
}
