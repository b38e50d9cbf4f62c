package core

// Tally counts a minimization's relocations by what they came to, as
// "gobtf gen min_core_btf" reports them.
type Tally struct {
	Total      int `json:"total"`
	Resolved   int `json:"resolved"`
	Local      int `json:"local"`  // LocalOnly: nothing of the target needed
	Absent     int `json:"absent"` // existence checks that answered "no" (Result.Answered)
	Unresolved int `json:"unresolved"`
	Ambiguous  int `json:"ambiguous"`
	Failed     int `json:"failed"`
	// Mismatched counts the relocations the output relocates otherwise
	// than the target (Output.Mismatches).
	Mismatched int `json:"mismatched"`
}

// Errors counts the relocations that are neither resolved nor answered:
// the ones --strict refuses.
func (t Tally) Errors() int { return t.Unresolved + t.Ambiguous + t.Failed + t.Mismatched }

// Tally counts the relocations of every object added to mz, and out's
// mismatches (out may be nil).
func (mz *Minimizer) Tally(out *Output) Tally {
	var t Tally
	for _, or := range mz.Objects {
		for i := range or.Relocs {
			r := &or.Relocs[i]
			t.Total++
			switch {
			case r.Outcome == Resolved:
				t.Resolved++
			case r.Outcome == LocalOnly:
				t.Local++
			case r.Answered():
				t.Absent++
			case r.Outcome == Ambiguous:
				t.Ambiguous++
			case r.Outcome == Failed:
				t.Failed++
			default:
				t.Unresolved++
			}
		}
	}
	if out != nil {
		t.Mismatched = len(out.Mismatches)
	}
	return t
}
