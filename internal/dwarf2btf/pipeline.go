package dwarf2btf

import (
	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/hugemem"
)

// Pipeline is the work that runs beside a conversion and that the
// conversion reports to as it goes: a caller's deduplication stream and
// string order, and its tuning of the process (package encoder fills it).
// A nil field is not called.
type Pipeline struct {
	// Converting is called once the units have been indexed and the ELF
	// side (symbols, function table) read, as the conversion of the units
	// starts, with merged set when they are converted as one (LTO and dwz
	// files, see merged.go). What is allocated before is long-lived
	// (abbreviation tables, symbols), so a caller may hold the garbage
	// collector off until then; a merged conversion holds every unit's
	// records at once and outgrows its buffers many times over.
	Converting func(merged bool)

	// Joined is called each time the output has grown by a unit's types,
	// and during the function encoding after every so many functions
	// (namesPerReport), on the goroutine that appends them and before the
	// next append: the output's types so far are final then (a
	// dedup.Stream's Add). The types appended last (the rest of the
	// functions, data sections) are not reported.
	Joined func(out *btf.Spec)

	// SavedStrings is called on the joining goroutine for each unit whose
	// function candidates name strings, in unit order, before Joined
	// reports the unit: strs are the strings pahole enters into its string
	// table as it saves the unit's functions (each candidate's parameter
	// names, then its decl tag values, in the unit's function order; see
	// funcs.SavedStrings), and at is the ID of the first type pahole adds
	// after them, the unit's first variable or the type after the unit's
	// last. The strings stay valid after the call.
	SavedStrings func(at btf.TypeID, strs []string)

	// BeforeUnit is called by each converter before it takes its next
	// unit, holding nothing of the conversion (a dedup.Stream's Hold,
	// which may keep it waiting while the stream catches up).
	BeforeUnit func()
}

// OutputSize returns the room to reserve in the Spec a conversion of
// infoSize bytes of .debug_info joins its units into: about 0.2 BTF words
// per .debug_info byte and 10 words per type for a kernel. Reserved in
// fresh memory, the part never used costs nothing.
func OutputSize(infoSize uint64) (types, words int) {
	return int(infoSize/32) + 16, int(infoSize/4) + 64
}

// newOutput returns an empty Spec with OutputSize's room for infoSize
// bytes of .debug_info, for a conversion given none.
func newOutput(infoSize int) *btf.Spec {
	out := btf.NewSpec(nil)
	out.Reserve(OutputSize(uint64(infoSize)))
	return out
}

// prefaultWindow is how far ahead of the joiner its output is faulted in:
// room for a few of the largest units, and little memory if unused.
const prefaultWindow = 8 << 20

// prefaultAhead starts faulting in, on other goroutines, the storage out
// has reserved for further types, up to prefaultWindow bytes of words (and
// proportionally fewer offsets) past what is in use (see hugemem.Ahead):
// the joiner writes every unit's types into out, and faulting its memory
// in elsewhere keeps it from holding up the converters on a machine where
// fresh memory is slow. The joiner calls advance after its appends and
// stop once it is done, and nothing may append to out before stop has
// returned (stop gives back the memory past the types); out's contents are
// the same as without.
func prefaultAhead(out *btf.Spec) (advance, stop func()) {
	offs, words := out.Storage()
	wa := hugemem.StartAhead(words, prefaultWindow)
	oa := hugemem.StartAhead(offs, prefaultWindow/8)
	advance = func() {
		wa.Advance(4 * len(out.Words()))
		oa.Advance(4 * out.NumTypes())
	}
	stop = func() {
		wa.Stop()
		oa.Stop()
	}
	return advance, stop
}
