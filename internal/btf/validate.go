package btf

import (
	"fmt"
	"math"
)

// This file holds the driver of the semantic validator. The validator applies
// the rules of the Linux kernel's BTF verifier (kernel/bpf/btf.c, reached by
// the BPF_BTF_LOAD command) so that a Spec it accepts is one the kernel
// accepts too, and a Spec it rejects is one the kernel rejects. It runs the
// kernel's passes in the kernel's order, so that for a blob with several
// faults the first one reported is the one the kernel reports:
//
//  1. the string section (validate_names.go);
//  2. per-type "meta" checks in ID order: info word, name offsets, name rules,
//     vlen, kind_flag, INT encoding, member and DATASEC entry layout
//     (validate_meta.go);
//  3. resolution in ID order: every referenced type exists and has the kind
//     the referrer needs, sizes are known, members fit, no reference loops
//     (validate_resolve.go, validate_members.go);
//  4. modifier chains: at most 32 long, TYPE_TAGs first (validate_resolve.go).
//
// Header and section-layout rules, which need the raw bytes, are checked by
// [ValidateBlob] (validate_blob.go).

// Kernel limits (include/uapi/linux/btf.h and kernel/bpf/btf.c).
const (
	// KernelMaxTypeID is BTF_MAX_TYPE, the kernel's limit on type IDs: a
	// type ID above it is invalid in a reference, and the kernel's type
	// table (void included) holds at most this many entries, so the highest
	// ID it accepts is KernelMaxTypeID-1.
	KernelMaxTypeID = 0x000fffff

	// KernelMaxNameOffset is BTF_MAX_NAME_OFFSET, the highest string offset
	// the kernel accepts.
	KernelMaxNameOffset = 0x00ffffff

	// KernelMaxBlobSize is BTF_MAX_SIZE, the largest blob BPF_BTF_LOAD
	// accepts.
	KernelMaxBlobSize = 16 << 20

	// KernelMaxNameLen is KSYM_NAME_LEN, the longest identifier or section
	// name the kernel accepts.
	KernelMaxNameLen = 512

	// kernelPtrSize is sizeof(void *) of the 64-bit kernels the rules are
	// taken from: the size the kernel gives a PTR.
	kernelPtrSize = 8

	// maxResolveDepth is MAX_RESOLVE_DEPTH, the depth of the kernel's
	// explicit resolution stack.
	maxResolveDepth = 32

	// maxModifierChain is how many modifiers the kernel follows in one
	// chain before it reports a cycle.
	maxModifierChain = 32
)

// ValidationError reports a BTF rule the kernel's verifier enforces and a
// Spec (or blob) breaks. ID, Kind and Name identify the offending type; ID is
// 0 for errors about the blob as a whole (header, sections, string section).
// Rule says what is wrong in this package's words; Kernel is the reason the
// kernel's log gives for the same fault, formatted as the kernel formats it
// (e.g. "Invalid name", "Invalid kind:20", "Invalid arg#2"), and Form says
// how the kernel's log line is built around it (see [LogForm]). Kernel is
// empty for faults the kernel refuses without a log line.
type ValidationError struct {
	ID     TypeID
	Kind   Kind
	Name   string
	Rule   string
	Kernel string

	// NameOff is the type's name offset: the kernel's log prints
	// "(anon)" for offset 0 only, and the (possibly empty) string at any
	// other.
	NameOff uint32

	// Form is the shape of the kernel's log line, Index the member,
	// enumerator or DATASEC entry it names (for FormMember and FormVsi),
	// and Resolve whether the kernel found the fault in its resolve pass
	// (where a member's line follows its container's). MemberType is the
	// type ID the kernel's line gives a FormMember member: its own, or,
	// past a typedef or modifier, the type that resolves to.
	Form       LogForm
	Index      int
	Resolve    bool
	MemberType TypeID

	// Errno is the error number the kernel returns (22 for EINVAL).
	Errno int
}

// Error formats the error as
// "btf: type [ID] KIND 'name': rule", or "btf: rule" when ID is 0.
func (e *ValidationError) Error() string {
	if e.ID == 0 {
		return "btf: " + e.Rule
	}
	name := "(anon)"
	if e.Name != "" {
		name = "'" + e.Name + "'"
	}
	return fmt.Sprintf("btf: type [%d] %s %s: %s", e.ID, e.Kind, name, e.Rule)
}

// LogForm is how the kernel's BTF log states a fault: which of its logging
// helpers (kernel/bpf/btf.c) writes the line.
type LogForm uint8

const (
	// FormType: "[ID] KIND name <the kind's details> reason"
	// (btf_verifier_log_type).
	FormType LogForm = iota
	// FormBasic: "[ID] KIND name reason" (btf_verifier_log_basic).
	FormBasic
	// FormPlain: "[ID] reason", no kind or name (btf_verifier_log with the
	// type ID): the type's own words are not trusted yet.
	FormPlain
	// FormBlob: "reason" alone (btf_verifier_log): header, sections,
	// strings, modifier chains.
	FormBlob
	// FormMember: "\tname type_id=N bits_offset=M reason", the member
	// Index of the STRUCT/UNION ID (btf_verifier_log_member).
	FormMember
	// FormVsi: "\t type_id=N offset=M size=S reason", the entry Index of
	// the DATASEC ID (btf_verifier_log_vsi).
	FormVsi
	// FormSilent: the kernel refuses the BTF without a log line.
	FormSilent
	// FormWarn: a warning line of its own (pr_warn), not a verifier log
	// line: the relocation of a module's BTF onto the vmlinux's.
	FormWarn
)

// Kernel error numbers the verifier returns.
const (
	errnoENOENT   = 2
	errnoE2BIG    = 7
	errnoEEXIST   = 17
	errnoEINVAL   = 22
	errnoELOOP    = 40
	errnoENOTSUPP = 524
)

// ValidateOptions adjusts [Spec.ValidateWith].
type ValidateOptions struct {
	// IgnoreLimits lifts the kernel's size limits: the type-count and
	// type-ID limit (KernelMaxTypeID), the string-offset limit
	// (KernelMaxNameOffset) and, for ValidateBlob, the blob size limit
	// (KernelMaxBlobSize). Every other rule still applies. A vmlinux
	// before deduplication (about 3.4 M types) breaks the type limit by
	// design; this option validates it as if the kernel had no limit.
	IgnoreLimits bool

	// LayoutSection applies, in ValidateBlob, the header rules of the
	// kernels that know the kind layout section (layout.go; bpf-next since
	// March 2026). Without it the rules are those of earlier kernels, this
	// machine's 6.18 among them: a header byte past the 24th that is not
	// zero is refused.
	LayoutSection bool

	// Path is the kernel check whose rules apply: BPF_BTF_LOAD's (the
	// default), or the lighter ones of module loading and of the
	// vmlinux's own BTF at boot, which run only the per-type and
	// modifier-chain passes, over the Spec's own types.
	Path KernelPath

	// Rules are the rule differences between kernel versions; the zero
	// value is the newest kernels' rules.
	Rules KernelRules

	// OwnTypes checks only the Spec's own types, on the load path too,
	// resolving base types only as far as own types reach them: the base
	// is taken as checked. (The module and vmlinux paths always do so.)
	OwnTypes bool

	// AllFaults makes CheckKernel go on past the first fault, which is
	// where the kernel stops, and report the further faults it finds:
	// every type's per-type faults, and the resolve and modifier-chain
	// faults of the types no earlier fault involves.
	AllFaults bool
}

// KernelPath is one of the three places where the kernel checks BTF.
type KernelPath uint8

const (
	// PathLoad is BPF_BTF_LOAD (btf_parse): every pass, and the limits.
	PathLoad KernelPath = iota
	// PathModule is a module's BTF at module load (btf_parse_module): the
	// header, the string section, the per-type checks and the modifier
	// chains of the module's own types; no resolve pass, no blob size
	// limit, no check of the type section's alignment or emptiness.
	PathModule
	// PathVmlinux is the vmlinux's BTF at boot (btf_parse_vmlinux), and a
	// module's distilled base (.BTF.base): PathModule's checks on
	// standalone BTF.
	PathVmlinux
)

// String returns the path's name as gobtf check's --as spells it.
func (p KernelPath) String() string {
	switch p {
	case PathModule:
		return "module"
	case PathVmlinux:
		return "vmlinux"
	}
	return "load"
}

// KernelRules are the verifier rules that differ between the kernel
// versions the validator knows. Each field is set for the older behaviour,
// so the zero value is the newest kernels'. docs/compatibility.md gives each
// one's first version.
type KernelRules struct {
	// DatasecIdentNames: a DATASEC's name must be a C identifier (dots
	// allowed), as for other kinds, rather than any printable string.
	DatasecIdentNames bool

	// TagKindFlagRefused: kind_flag is refused on TYPE_TAG and DECL_TAG,
	// which later kernels accept (it marks a GCC __attribute__).
	TagKindFlagRefused bool
}

// Validate applies the kernel verifier's rules to the Spec and returns the
// first broken one as a *ValidationError, or nil. A split Spec is checked
// together with its base, as the kernel checks base and split types
// concatenated into one blob; a fault in the base is reported with its base
// type ID.
//
// Validate enforces the kernel's limits, so a Spec with more than
// KernelMaxTypeID-1 types (void excluded) fails with an error naming that
// limit. Use ValidateWith and [ValidateOptions.IgnoreLimits] to check such a
// Spec against every other rule.
//
// Validate runs in time linear in the number of types and string bytes and
// allocates a few slices of one byte and two words per type; it does not
// recurse, so reference chains of any length are safe.
func (s *Spec) Validate() error { return s.ValidateWith(ValidateOptions{}) }

// ValidateWith is Validate with options. With opts.Path other than
// PathLoad it applies that path's rules (see [KernelPath]) to the Spec's own
// types.
func (s *Spec) ValidateWith(opts ValidateOptions) error {
	v := newValidator(s, opts)
	v.own = opts.Path != PathLoad || opts.OwnTypes
	if err := v.checkStrings(); err != nil {
		return err
	}
	if opts.Path == PathLoad && v.layers[0].spec.NumTypes() == 0 {
		return blobErrorf("No type found", "type section is empty")
	}
	var first error
	stop := func(err error) bool {
		first = err
		return err == nil
	}
	if v.runMetas(stop) && (opts.Path != PathLoad || v.runResolve(stop)) {
		v.runChains(stop)
	}
	return first
}

// layer is one Spec of a base chain with the first ID it owns.
type layer struct {
	spec    *Spec
	firstID TypeID
}

// validator holds the state of one validation. Its per-type arrays are
// indexed by type ID over the whole chain (base types included, index 0 is
// void).
type validator struct {
	s      *Spec
	opts   ValidateOptions
	layers []layer  // innermost base first
	own    bool     // check only the last layer's types (module and vmlinux paths)
	failed []TypeID // types with per-type faults, which the resolve pass skips (AllFaults)
	n      TypeID   // highest type ID of the chain
	strs   *StringTable

	maxRef     TypeID // highest type ID accepted in a reference
	maxNameOff uint32 // highest string offset accepted

	// names memoises name checks per string offset (see validate_names.go).
	names []uint8

	// Resolution state, as the kernel keeps it: visit state, the ID a
	// type resolves to (the first type with a size, or its target), and the
	// resolved size (of arrays).
	state   []uint8
	resID   []uint32
	resSize []uint32

	stack [maxResolveDepth]vertex
	top   int
	mode  resolveMode
}

func newValidator(s *Spec, opts ValidateOptions) *validator {
	v := &validator{s: s, opts: opts, n: s.TypeCount(), strs: s.strs}
	for p := s; p != nil; p = p.base {
		v.layers = append(v.layers, layer{p, p.firstID})
	}
	for i, j := 0, len(v.layers)-1; i < j; i, j = i+1, j-1 {
		v.layers[i], v.layers[j] = v.layers[j], v.layers[i]
	}
	v.maxRef, v.maxNameOff = KernelMaxTypeID, KernelMaxNameOffset
	if opts.IgnoreLimits {
		v.maxRef, v.maxNameOff = math.MaxUint32, math.MaxUint32
	}
	return v
}

// voidType stands for type ID 0: its kind, KindUnknown, is one no real type
// has.
var voidType = Type{0, 0, 0}

// typ returns the type with the given ID, voidType for 0 and nil for an ID
// beyond the chain.
func (v *validator) typ(id TypeID) Type {
	if id == 0 {
		return voidType
	}
	if id > v.n {
		return nil
	}
	for i := len(v.layers) - 1; ; i-- {
		l := v.layers[i]
		if id >= l.firstID {
			return l.spec.typeAt(int(id - l.firstID))
		}
	}
}

// errorf builds the ValidationError for type id.
func (v *validator) errorf(id TypeID, t Type, kernel, format string, args ...any) *ValidationError {
	e := &ValidationError{ID: id, Kernel: kernel, Rule: fmt.Sprintf(format, args...), Errno: errnoEINVAL}
	if len(t) > 0 {
		e.Kind = t.Kind()
		e.NameOff = t[0]
		name, ok := v.strs.Lookup(t[0])
		if !ok && t[0] != 0 {
			name = InvalidNameOffset
		}
		e.Name = name
	}
	return e
}

// InvalidNameOffset is the name the kernel's log gives a type whose name
// offset lies outside the string section.
const InvalidNameOffset = "(invalid-name-offset)"

// formErrorf is errorf for a fault the kernel logs in another form than
// FormType.
func (v *validator) formErrorf(form LogForm, id TypeID, t Type, kernel, format string, args ...any) *ValidationError {
	e := v.errorf(id, t, kernel, format, args...)
	e.Form = form
	return e
}

// blobErrorf builds a ValidationError about the blob as a whole.
func blobErrorf(kernel, format string, args ...any) *ValidationError {
	return &ValidationError{Kernel: kernel, Rule: fmt.Sprintf(format, args...), Form: FormBlob, Errno: errnoEINVAL}
}
