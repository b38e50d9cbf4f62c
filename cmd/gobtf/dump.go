package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/btffile"
	"github.com/gobtf/gobtf/internal/tuning"
)

func init() { subcommands = append(subcommands, newDumpCmd) }

// newDumpCmd builds "gobtf dump", which prints BTF like
// "bpftool [-B BASE] btf dump file FILE".
func newDumpCmd() *cobra.Command {
	var base, format string
	var cf *cFlags
	cmd := &cobra.Command{
		Use:   "dump [--base FILE] [--format raw|c] FILE",
		Short: "Print every BTF type, in the format of bpftool btf dump file",
		Long: `dump prints every type of the BTF in FILE (raw BTF, or an ELF file with a .BTF
section), one per line with its members, values or parameters on indented
lines below it, byte for byte as "bpftool btf dump file FILE" does.

With --base, FILE is split BTF on top of the base BTF in that file (raw or
ELF), as for kernel modules; only FILE's own types are printed, as with
"bpftool -B BASE btf dump file FILE". A module's file under /sys/kernel/btf
is read on /sys/kernel/btf/vmlinux unless --base is given.

An ELF FILE with a .BTF.base section (an out-of-tree module built with the
distilled_base feature) is read as libbpf 1.5 and later read it: its .BTF on
that distilled base, or, with --base, relocated onto BASE as the kernel does
when it loads the module.

With --format c, dump prints the types as a C header instead (every type,
a split file's base types too), byte for byte as
"bpftool btf dump file FILE format c" does: the vmlinux.h of BPF programs.
The header is Debian's bpftool 7.1's; --bpftool 7.6 prints bpftool 7.6's
(types sorted, kfunc prototypes), with --unsorted and --root_id as
bpftool's "unsorted" and "root_id".`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDump(cmd, base, format, args[0], cf)
		},
	}
	cmd.Flags().StringVarP(&base, "base", "B", "", "read FILE as split BTF on top of the base BTF in `BASE` (raw or ELF)")
	cmd.Flags().StringVar(&format, "format", "raw", "output `FORMAT`: raw (bpftool's text dump) or c (a C header)")
	cf = addCFlags(cmd)
	return cmd
}

// The running kernel's BTF: the vmlinux's, and one split file per module
// (this machine's; the commands go through systemFor, which tests move).
const (
	sysfsBTFDir     = "/sys/kernel/btf/"
	sysfsVmlinuxBTF = sysfsBTFDir + "vmlinux"
)

// runDump loads the (base and) BTF file and writes its dump to the command's
// output. Like bpftool, it reads a module's file under /sys/kernel/btf on the
// running kernel's vmlinux BTF when no base is given.
func runDump(cmd *cobra.Command, basePath, format, path string, cf *cFlags) error {
	if format != "raw" && format != "c" {
		return fmt.Errorf("unknown --format %q (want raw or c)", format)
	}
	if format == "c" {
		defer tuning.WithoutCollection()()
	}
	sys := systemFor()
	if basePath == "" && strings.HasPrefix(path, sys.SysfsDir()) && path != sys.SysfsVmlinux() {
		basePath = sys.SysfsVmlinux()
	}
	var base *btf.Spec
	if basePath != "" {
		var err error
		if base, err = loadDumpSpec(basePath, nil); err != nil {
			return err
		}
	}
	spec, err := loadDumpSpec(path, base)
	if err != nil {
		return err
	}
	if format == "c" {
		return writeC(cmd.OutOrStdout(), path, spec, cf)
	}
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	if err := spec.Dump(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("btf: writing dump: %w", err)
	}
	return nil
}

// loadDumpSpec reads the BTF of a raw BTF or ELF file (split on base, when
// not nil), an ELF file's .BTF.base as libbpf reads it (btffile). Every
// error names the file.
func loadDumpSpec(path string, base *btf.Spec) (*btf.Spec, error) {
	f, err := btffile.Open(path, btffile.Options{Base: base, DistilledBase: true})
	if err != nil {
		return nil, err
	}
	spec := f.Spec
	if base == nil && !f.Distilled && len(spec.Strings().Bytes()) > 0 && spec.Strings().Bytes()[0] != 0 {
		// Split BTF without its base: its strings do not start with the
		// empty string a base BTF's do. libbpf refuses it, and bpftool
		// says only that.
		return nil, fmt.Errorf("failed to load BTF from %s: Invalid argument", path)
	}
	return spec, nil
}
