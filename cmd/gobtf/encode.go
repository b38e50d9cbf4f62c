package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// encodeOptions holds pahole's BTF-encoding flags as gobtf accepts them.
type encodeOptions struct {
	encode   bool   // -J, --btf_encode
	detached string // --btf_encode_detached=FILE
	base     string // --btf_base=FILE
	features []string
	jobs     int
}

func (o *encodeOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVarP(&o.encode, "btf_encode", "J", false, "encode BTF from the file's DWARF")
	f.StringVar(&o.detached, "btf_encode_detached", "", "write raw BTF to `FILE` instead of a .BTF section")
	f.StringVar(&o.base, "btf_base", "", "encode split BTF on top of the base BTF in `FILE` (ELF or raw)")
	f.StringArrayVar(&o.features, "btf_features", nil, "comma-separated `LIST` of BTF features to encode")
	f.IntVarP(&o.jobs, "jobs", "j", 0, "convert compilation units with `N` parallel workers (bare -j: one per CPU)")
	f.Lookup("jobs").NoOptDefVal = "0"
}

// errNotYet is returned while the DWARF-to-BTF conversion is not part of
// gobtf yet; it keeps builds that call gobtf from mistaking it for success.
var errNotYet = errors.New("DWARF to BTF encoding is not implemented yet in this build")

func runEncode(cmd *cobra.Command, o *encodeOptions, args []string) error {
	if !o.encode {
		if len(args) == 0 {
			return cmd.Help()
		}
		return usageError{fmt.Errorf("nothing to do for %s: gobtf only encodes BTF (pass -J)", args[0])}
	}
	if len(args) != 1 {
		return usageError{errors.New("-J needs exactly one input FILE")}
	}
	return fmt.Errorf("%s: %w", args[0], errNotYet)
}
