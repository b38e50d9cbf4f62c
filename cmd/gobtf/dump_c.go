package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/cdump"
)

// cFlags are the options of "gobtf dump --format c", named after bpftool's.
type cFlags struct {
	bpftool  string
	unsorted bool
	roots    []uint
}

// addCFlags registers the C header's options on the dump command.
func addCFlags(cmd *cobra.Command) *cFlags {
	f := &cFlags{}
	cmd.Flags().StringVar(&f.bpftool, "bpftool", "7.1", "with --format c, print as bpftool `VERSION` does: 7.1 (Debian's) or 7.6 (sorted types, kfunc prototypes)")
	cmd.Flags().BoolVar(&f.unsorted, "unsorted", false, `with --format c --bpftool 7.6, keep the types in ID order (bpftool's "format c unsorted")`)
	cmd.Flags().UintSliceVar(&f.roots, "root_id", nil, `with --format c, print only type `+"`ID`"+` and what it needs (repeatable; bpftool 7.6's "root_id")`)
	return f
}

// writeC prints spec, read from path, as a C header with the options f
// holds. Errors about the types name the file.
func writeC(w io.Writer, path string, spec *btf.Spec, f *cFlags) error {
	var opts cdump.Options
	switch f.bpftool {
	case "7.1":
		if f.unsorted {
			return fmt.Errorf("--unsorted needs --bpftool 7.6 (bpftool 7.1 does not sort)")
		}
	case "7.6":
		opts.Bpftool76, opts.Unsorted = true, f.unsorted
	default:
		return fmt.Errorf("unknown --bpftool %q (want 7.1 or 7.6)", f.bpftool)
	}
	for _, id := range f.roots {
		opts.RootIDs = append(opts.RootIDs, btf.TypeID(id))
	}
	if err := cdump.WriteOptions(w, spec, opts); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
