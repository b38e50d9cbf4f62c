package classlayout

import "strings"

// Units calls fn with the model of each unit of src that opt's language
// filter keeps, in order, as pahole's loader hands its stealer one unit
// after another, until fn returns false or an error. The models are built
// for -C (every type, those inside function bodies too); fn may keep the
// ones it needs.
func Units(src Source, opt *Options, fn func(m *Model) (more bool, err error)) error {
	for i := range src.numUnits() {
		if opt.SkipLanguage != nil && opt.SkipLanguage(src.unitLang(i)) {
			continue
		}
		m, err := src.loadUnit(i, opt, false)
		if err != nil {
			return err
		}
		more, err := fn(m)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// ArgsAbortFails says whether -C arguments that cannot apply to their type
// end a run over src with an error, as pahole's DWARF loader ends it
// (EINVAL), rather than leaving the name not found, as with BTF.
func ArgsAbortFails(src Source) bool { return src.badArgsFail() }

// SourcePath is the path that names src in errors.
func SourcePath(src Source) string { return src.path() }

// ArgsError is a -C name whose arguments cannot apply to its type, in a
// DWARF file: pahole's DWARF loader fails there (EINVAL), which ends
// pahole.
type ArgsError struct{ Path, Name string }

func (e *ArgsError) Error() string {
	return e.Path + ": the arguments of -C " + e.Name + " do not apply to its type"
}

// ClassListError is a -C list pahole cannot read; Msg is what pahole
// prints then, whole (it then exits with status 1).
type ClassListError struct{ Msg string }

func (e *ClassListError) Error() string { return strings.TrimSuffix(e.Msg, "\n") }
