package dwarf2btf

import "testing"

// TestVariableNameRules checks the name filters of pahole 1.31's encoder
// (btf_encoder.c: filter_variable_name and btf_name_valid). apt's pahole
// 1.24 predates the prefix filter, so these are checked from the source.
func TestVariableNameRules(t *testing.T) {
	long := make([]byte, ksymNameLen)
	for i := range long {
		long[i] = 'a'
	}
	tests := []struct {
		name        string
		skip, valid bool
	}{
		{"runqueues", false, true},
		{"__UNIQUE_ID_ddebug123", true, true},
		{"__tpstrtab_sched_switch", true, true},
		{"__exitcall_foo", true, true},
		{"__gendwarfksyms_ptr_x", true, true},
		{"__func_stack_frame_non_standard_f", true, true},
		{"_UNIQUE_ID_not_quite", false, true},
		{"cpu.hw", false, true},
		{".L.str", false, true},
		{"9lives", false, false},
		{"has-dash", false, false},
		{string(long[:ksymNameLen-1]), false, true},
		{string(long), false, false},
	}
	for _, tc := range tests {
		if got := skipVariableName(tc.name); got != tc.skip {
			t.Errorf("skipVariableName(%q) = %v, want %v", tc.name, got, tc.skip)
		}
		if got := validName(tc.name); got != tc.valid {
			t.Errorf("validName(%q) = %v, want %v", tc.name, got, tc.valid)
		}
	}
}
