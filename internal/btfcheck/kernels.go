package btfcheck

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
)

// Kernel is a kernel version whose BTF rules gobtf checks by.
type Kernel struct {
	// Major and Minor are the version the rules are those of.
	Major, Minor int
	// Rules are the verifier rules of that version.
	Rules btf.KernelRules
	// DistilledBase: module loading reads a module's .BTF.base (its
	// distilled base) and relocates the module's BTF from it onto the
	// vmlinux's; without it, .BTF.base is ignored and .BTF is read as
	// split BTF on the vmlinux's.
	DistilledBase bool
}

// String returns the version as "MAJOR.MINOR".
func (k Kernel) String() string { return fmt.Sprintf("%d.%d", k.Major, k.Minor) }

// less reports whether k is an earlier version than o.
func (k Kernel) less(o Kernel) bool {
	return k.Major < o.Major || k.Major == o.Major && k.Minor < o.Minor
}

// The rule differences, each with the first version that has it
// (docs/compatibility.md gives the evidence): a DATASEC name may be any
// printable string from 6.9 on (an identifier before); kind_flag may be set
// on TYPE_TAG and DECL_TAG from 6.15 on; module loading reads .BTF.base
// from 6.11 on.
var (
	datasecPrintableSince = Kernel{Major: 6, Minor: 9}
	tagKindFlagSince      = Kernel{Major: 6, Minor: 15}
	distilledBaseSince    = Kernel{Major: 6, Minor: 11}
)

// knownKernels are the versions whose rules gobtf read from their sources
// (Debian's linux-source-6.1 and -6.12) or checked against the kernel (the
// verifier of a running 6.18), oldest first; gobtf checks by the rules of
// versions from the first to the last.
var knownKernels = []Kernel{rulesOf(6, 1), rulesOf(6, 12), rulesOf(6, 18)}

// rulesOf returns version major.minor with its rules.
func rulesOf(major, minor int) Kernel {
	k := Kernel{Major: major, Minor: minor}
	k.Rules.DatasecIdentNames = k.less(datasecPrintableSince)
	k.Rules.TagKindFlagRefused = k.less(tagKindFlagSince)
	k.DistilledBase = !k.less(distilledBaseSince)
	return k
}

// Newest returns the newest kernel gobtf knows, the default.
func Newest() Kernel { return knownKernels[len(knownKernels)-1] }

// KnownVersions lists the versions gobtf knows, for messages and help.
func KnownVersions() []string {
	var out []string
	for _, k := range knownKernels {
		out = append(out, k.String())
	}
	return out
}

// ParseKernel returns the rules of a kernel version given as
// "MAJOR.MINOR[.anything]" (a release string such as 6.1.0-56-cloud-amd64
// will do), or "running" for the running kernel's release. A version before
// 6.1, or after the newest gobtf knows, is an error, since its rules may
// differ in ways gobtf has not read.
func ParseKernel(v string) (Kernel, error) {
	if v == "running" {
		r, err := runningRelease()
		if err != nil {
			return Kernel{}, fmt.Errorf("--kernel running: %w", err)
		}
		k, err := ParseKernel(r)
		if err != nil {
			return Kernel{}, fmt.Errorf("--kernel running (%s): %w", r, err)
		}
		return k, nil
	}
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return Kernel{}, fmt.Errorf("--kernel %q: want MAJOR.MINOR (e.g. 6.1) or running", v)
	}
	major, err1 := strconv.Atoi(f[0])
	minorText := f[1]
	if i := strings.IndexFunc(minorText, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minorText = minorText[:i]
	}
	minor, err2 := strconv.Atoi(minorText)
	if err1 != nil || err2 != nil {
		return Kernel{}, fmt.Errorf("--kernel %q: want MAJOR.MINOR (e.g. 6.1) or running", v)
	}
	want := Kernel{Major: major, Minor: minor}
	if want.less(knownKernels[0]) {
		return Kernel{}, fmt.Errorf("--kernel %s: gobtf knows the BTF rules of %s and later", v, knownKernels[0])
	}
	if Newest().less(want) {
		return Kernel{}, fmt.Errorf("--kernel %s: gobtf knows the BTF rules up to %s (%s); a newer kernel's may differ",
			v, Newest(), strings.Join(KnownVersions(), ", "))
	}
	return rulesOf(major, minor), nil
}

// osRelease is where Linux tells its release.
var osRelease = "/proc/sys/kernel/osrelease"

// runningRelease returns the running kernel's release (uname -r).
func runningRelease() (string, error) {
	b, err := os.ReadFile(osRelease)
	if err != nil {
		return "", fmt.Errorf("reading the running kernel's release: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
