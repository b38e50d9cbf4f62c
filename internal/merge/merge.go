// Package merge makes a "super BTF": a kernel's vmlinux BTF and the split
// BTF of any number of its modules joined into one standalone BTF and
// deduplicated, as libbpf does it for one module (btf__add_btf of the
// vmlinux, then of the module, then btf__dedup). It reads no files: the
// Specs come from package btffile.
package merge

import (
	"fmt"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dedup"
)

// Merge joins base (standalone) and modules (each split on base) with
// btf.Flatten, in that order, and deduplicates the result with libbpf's
// algorithm (package dedup). A type that two modules define alike becomes
// one; one they define differently stays two, as it does in libbpf; and a
// module type equal to a base type becomes the base type. The inputs are
// not modified. The result is marshalled with the 32-byte header libbpf
// 1.8 writes (its layout fields zero), so its bytes are libbpf's.
func Merge(base *btf.Spec, modules []*btf.Spec) (*btf.Spec, *dedup.Stats, error) {
	flat, err := btf.Flatten(base, modules)
	if err != nil {
		return nil, nil, err
	}
	out, st, err := dedup.Dedup(flat, dedup.Options{InPlace: true})
	if err != nil {
		return nil, nil, fmt.Errorf("deduplicating the merged BTF: %w", err)
	}
	out.SetHeaderLen(btf.LayoutHeaderLen)
	return out, st, nil
}
