package btfcheck

import "github.com/gobtf/gobtf/internal/btf"

// Finding is one lint finding: what the kernel accepts but is wrong.
type Finding struct {
	Check   string // "base-mismatch", "duplicate", "base-copy", "dangling"
	Certain string // how sure: "certain", "likely", "possible"
	Msg     string
}

// lint runs the lint checks on an accepted file's BTF.
func lint(in *input, s *btf.Spec, opts Options) []Finding { return nil }
