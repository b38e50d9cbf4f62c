package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/core"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/merge"
)

func init() { subcommands = append(subcommands, newBTFCmd) }

// newBTFCmd builds "gobtf btf", the parent of the commands that make BTF
// files out of BTF files: merge.
func newBTFCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "btf COMMAND",
		Short: "Make BTF files out of BTF files (merge)",
		Long: `btf holds the commands that make BTF files out of BTF files:

  merge   a vmlinux BTF and module BTFs as one deduplicated "super BTF"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usageError{fmt.Errorf("btf: unknown command %q (usage: %s)", args[0], cmd.UseLine())}
		},
	}
	m := newBTFMergeCmd()
	m.Args = usageArgs(m.Args)
	c.AddCommand(m)
	return c
}

// newBTFMergeCmd builds "gobtf btf merge".
func newBTFMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUTPUT BASE SPLIT...",
		Short: "Merge a vmlinux BTF and module BTFs into one deduplicated standalone BTF",
		Long: `merge reads the vmlinux BTF in BASE (raw BTF, or an ELF file with a .BTF
section) and the split BTF of each module SPLIT on it (raw, as
/sys/kernel/btf/<module> holds it, or a .ko file's .BTF; a .BTF.base
section is relocated onto BASE as libbpf does), joins them into one
standalone BTF (BASE's types, then each module's, in order) and
deduplicates it with libbpf's btf__dedup: the "super BTF" that libbpf
takes as btf_custom_path for objects reading module types. A type two
modules define alike becomes one, one they define differently stays two,
and a module type equal to a vmlinux type becomes the vmlinux type.

For one module, OUTPUT is what libbpf makes of btf__add_btf of BASE, then
of SPLIT, then btf__dedup. OUTPUT is raw BTF in BASE's byte order, written
through a temporary file renamed into place.`,
		Args: cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBTFMerge(args[0], args[1], args[2:])
		},
	}
}

// runBTFMerge merges base and the modules at paths into output.
func runBTFMerge(output, base string, paths []string) error {
	bf, err := btffile.Open(base, btffile.Options{})
	if err != nil {
		return err
	}
	if err := checkStandaloneBTF(base, bf.Spec); err != nil {
		return err
	}
	mods, err := openModules(bf.Spec, paths)
	if err != nil {
		return err
	}
	out, _, err := merge.Merge(bf.Spec, mods)
	if err != nil {
		return fmt.Errorf("%s: %w", output, err)
	}
	return elfio.WriteFile(output, out.Marshal(bf.Spec.ByteOrder()))
}

// openModules reads the split BTF of each module file on base, a
// .BTF.base section relocated onto it.
func openModules(base *btf.Spec, paths []string) ([]*btf.Spec, error) {
	var mods []*btf.Spec
	for _, p := range paths {
		f, err := btffile.Open(p, btffile.Options{Base: base, DistilledBase: true})
		if err != nil {
			return nil, err
		}
		mods = append(mods, f.Spec)
	}
	return mods, nil
}

// checkStandaloneBTF refuses, naming the file, BTF that libbpf cannot read
// without a base (a module's split BTF given as the vmlinux).
func checkStandaloneBTF(path string, spec *btf.Spec) error {
	if err := core.CheckStandalone(spec); err != nil {
		return fmt.Errorf("%s: not standalone BTF: %w", path, err)
	}
	return nil
}
