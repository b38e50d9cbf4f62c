// Package core computes the CO-RE relocations of BPF objects against
// kernel BTF as libbpf does, and minimizes that BTF to what the relocations
// need as bpftool's "gen min_core_btf" does.
//
// A Target is a BTF searched for candidates; a Relocator computes one
// object's relocations (candidate search over an ordered list of targets,
// local and candidate specs, values, ambiguity), with libbpf's per-object
// candidate cache; Marks holds what resolved relocations need of a target,
// and Build copies it into a new BTF; a Minimizer does the whole job for
// a set of objects and checks its output by relocating them against it,
// for a vmlinux alone or with modules searched after it (one standalone
// output, or the modules split on the minimized vmlinux).
// Nothing here reads files: objects come from package btfext, BTF from
// package btf.
package core
