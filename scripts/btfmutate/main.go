// Command btfmutate writes copies of a kernel module whose .BTF section is
// randomly mutated in place (the mutations of the kernel-oracle tests:
// internal/testutil.Mutator), for the module-load comparison of
// scripts/kbuild-check.sh: each copy is loaded into a guest kernel and
// checked with gobtf check --as module.
//
// Usage:
//
//	btfmutate -base VMLINUX -n N [-seed S] -out DIR MODULE.ko
//	btfmutate -compare CONSOLE -gobtf GOBTF -base VMLINUX DIR
//
// The first form writes DIR/NNNN.ko for N mutations and DIR/manifest, one
// line per copy: its name and what was changed. The second reads what the
// guest printed for each copy (CONSOLE: "MUT NAME loaded|failed", the kernel
// log's BTF lines "MUTLOG NAME line", "MUTEND NAME") and compares it with
// GOBTF check --kernel 6.1 --as module --base VMLINUX on the same copy: the
// verdict, and for rejections the kernel's log lines (trailing blanks
// aside, which the console may drop). It prints the counts and each
// disagreement, and exits 1 on any.
package main

import (
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/elfio"
	"github.com/gobtf/gobtf/internal/testutil"
)

func main() {
	base := flag.String("base", "", "the vmlinux (ELF or raw BTF) the module's BTF is split on")
	n := flag.Int("n", 100, "number of mutated copies")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", "", "output directory")
	compare := flag.String("compare", "", "compare the guest's CONSOLE log with gobtf check")
	gobtf := flag.String("gobtf", "gobtf", "the gobtf binary (-compare)")
	flag.Parse()
	if *compare != "" {
		if flag.NArg() != 1 || *base == "" {
			fmt.Fprintln(os.Stderr, "usage: btfmutate -compare CONSOLE -gobtf GOBTF -base VMLINUX DIR")
			os.Exit(2)
		}
		ok, err := compareGuest(*compare, *gobtf, *base, flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "btfmutate:", err)
			os.Exit(1)
		}
		if !ok {
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 1 || *base == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: btfmutate -base VMLINUX -n N [-seed S] -out DIR MODULE.ko")
		os.Exit(2)
	}
	if err := run(*base, flag.Arg(0), *out, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "btfmutate:", err)
		os.Exit(1)
	}
}

func run(basePath, ko, out string, n int, seed uint64) error {
	bf, err := elfio.ReadBTFFile(basePath)
	if err != nil {
		return err
	}
	base, err := btf.Parse(bf.BTF, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", basePath, err)
	}
	data, err := os.ReadFile(ko)
	if err != nil {
		return err
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", ko, err)
	}
	sec := ef.Section(".BTF")
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return fmt.Errorf("%s: no .BTF section", ko)
	}
	lo, hi := sec.Offset, sec.Offset+sec.Size
	m, err := testutil.NewMutator(data[lo:hi], base)
	if err != nil {
		return fmt.Errorf("%s: .BTF: %w", ko, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	manifest, err := os.Create(filepath.Join(out, "manifest"))
	if err != nil {
		return err
	}
	defer manifest.Close()
	cp := make([]byte, len(data))
	for i := range n {
		blob, what := m.Mutate(rng)
		copy(cp, data)
		copy(cp[lo:hi], blob)
		name := fmt.Sprintf("%04d.ko", i)
		if err := os.WriteFile(filepath.Join(out, name), cp, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(manifest, "%s %s\n", name, what)
	}
	return manifest.Close()
}
