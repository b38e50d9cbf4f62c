package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newGenCmd) }

// newGenCmd builds "gobtf gen", the parent of bpftool's generators that
// gobtf has: min_core_btf.
func newGenCmd() *cobra.Command {
	gen := &cobra.Command{
		Use:   "gen COMMAND",
		Short: "Generate BTF for BPF programs, as bpftool gen does",
		Long: `gen holds the generators of "bpftool gen" that gobtf has:

  min_core_btf   the BTF a set of CO-RE BPF objects needs of a kernel's BTF`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usageError{fmt.Errorf("gen: unknown command %q (usage: %s)", args[0], cmd.UseLine())}
		},
	}
	min := newMinCoreBTFCmd()
	min.Args = usageArgs(min.Args)
	gen.AddCommand(min)
	return gen
}
