package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btfext"
	"github.com/gobtf/gobtf/internal/core"
	"github.com/gobtf/gobtf/internal/elfio"
)

// minCoreOptions are the flags of "gobtf gen min_core_btf".
type minCoreOptions struct {
	strict  bool
	verbose bool
	debug   bool
	archive archiveFlags
}

// newMinCoreBTFCmd builds "gobtf gen min_core_btf", bpftool's generator of
// minimized BTF for CO-RE objects.
func newMinCoreBTFCmd() *cobra.Command {
	var o minCoreOptions
	cmd := &cobra.Command{
		Use:   "min_core_btf [--strict] [-v] [-d] INPUT OUTPUT OBJECT...",
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

Nothing is dropped silently: each relocation that finds no candidate, no
matching candidate, or an ambiguous one is reported on stderr with its
object, program, kind, access string and type, and a count ends the
report. Existence checks (bpf_core_field_exists, bpf_core_type_exists,
bpf_core_type_matches, bpf_core_enum_value_exists) that answer "no" are
reported as "absent": that answer is what they are for. With --strict,
any other unresolved, ambiguous or failed relocation is an error: gobtf
exits 1 and OUTPUT is not written.

A bad object (not a BPF object, no .BTF or .BTF.ext, corrupt records, an
access string that does not parse or fit its types) is an error naming
the object, section and offset; OUTPUT is not written. OUTPUT is written
through a temporary file renamed into place.

-v lists on stdout, per object, the types (by INPUT's IDs) and members its
relocations keep. -d prints libbpf's debug lines of every relocation (the
local access, each candidate, matching or not), worded as "bpftool -d gen
min_core_btf" prints them, for comparison.`,
		Args: cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.archive.on {
				return runMinCoreArchive(cmd, o, args[0], args[1], args[2:])
			}
			return runMinCoreBTF(cmd, o, args[0], args[1], args[2:])
		},
	}
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1, writing nothing, when a relocation is unresolved, ambiguous or failed")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "list on stdout what each object keeps of INPUT")
	cmd.Flags().BoolVarP(&o.debug, "debug", "d", false, "print libbpf's debug lines of every relocation on stderr, as \"bpftool -d\" does (prefixed \"debug: \")")
	addArchiveFlags(cmd, &o.archive)
	return cmd
}

// runMinCoreBTF minimizes INPUT for the objects and writes OUTPUT.
func runMinCoreBTF(cmd *cobra.Command, o minCoreOptions, input, output string, objects []string) error {
	// Everything read lives to the end, and little is garbage: collecting
	// would only cost time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	// INPUT is read where it lies, in a private mapping of the file (as
	// the -J pipeline reads a base, elfio.MapBTF), kept to the end.
	data, release, err := elfio.MapBTF(input)
	if err != nil {
		return err
	}
	defer release()
	spec, err := btf.ParseInPlace(data, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	if err := core.CheckStandalone(spec); err != nil {
		return fmt.Errorf("%s: not standalone BTF: %w", input, err)
	}
	target := core.NewTarget(input, spec, inputPointerSize(input, spec))
	mz := core.NewMinimizer(target)
	stderr := bufio.NewWriter(cmd.ErrOrStderr())
	defer stderr.Flush()
	if o.debug {
		mz.Log = func(line string) { fmt.Fprintf(stderr, "debug: %s\n", line) }
	}
	for _, path := range objects {
		obj, err := btfext.ReadObject(path)
		if err != nil {
			return err
		}
		if _, err := mz.Add(obj); err != nil {
			return err
		}
	}
	out, err := mz.Build()
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	c := reportRelocations(stderr, mz, out, o.verbose)
	if o.verbose {
		w := bufio.NewWriter(cmd.OutOrStdout())
		listKept(w, mz)
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if o.strict && c.errors() > 0 {
		return fmt.Errorf("min_core_btf: --strict: %d relocation(s) unresolved, ambiguous or failed; %s not written", c.errors(), output)
	}
	stderr.Flush()
	return elfio.WriteFile(output, out.Spec.Marshal(binary.NativeEndian))
}

// inputPointerSize returns the pointer size libbpf takes for INPUT: its ELF
// class's for an ELF file, else the size of its "long" (core.GuessPointerSize).
func inputPointerSize(path string, spec *btf.Spec) uint32 {
	if f, err := elfio.Open(path); err == nil {
		defer f.Close()
		if f.Class == elf.ELFCLASS32 {
			return 4
		}
		return 8
	}
	return core.GuessPointerSize(spec)
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
		why = fmt.Sprintf("%s has no %s named %s", target.Name, strings.ToLower(t.Kind().String()), name[:core.EssentialNameLen(name)])
	case core.NoMatch:
		why = fmt.Sprintf("none of the %d candidate(s) in %s matches", r.Candidates, target.Name)
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

// listKept writes, per object, its relocation counts and the types and
// members of INPUT it keeps (IDs are INPUT's).
func listKept(w io.Writer, mz *core.Minimizer) {
	spec := mz.Target.Types.Spec
	for _, or := range mz.Objects {
		members := 0
		var lines []string
		or.Marks.Types(func(id btf.TypeID) {
			t := spec.Type(id)
			line := fmt.Sprintf("  [%d] %s %s", id, t.Kind(), quoteName(spec.Name(t)))
			if t.Kind() == btf.KindStruct || t.Kind() == btf.KindUnion {
				var names []string
				for i := range t.Vlen() {
					if or.Marks.HasMember(id, i) {
						names = append(names, quoteName(spec.Strings().String(t.Member(i).NameOff)))
					}
				}
				members += len(names)
				line += fmt.Sprintf(" size=%d members: %s", t.Size(), strings.Join(names, " "))
			}
			lines = append(lines, line)
		})
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
