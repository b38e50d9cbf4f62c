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

func TestStaticAddress(t *testing.T) {
	tests := []struct {
		expr []byte
		le   bool
		addr uint64
		ok   bool
	}{
		{[]byte{0x03, 0x10, 0x20, 0, 0, 0, 0, 0, 0}, true, 0x2010, true},
		{[]byte{0x03, 0, 0, 0, 0, 0, 0, 0x20, 0x10}, false, 0x2010, true},
		{[]byte{0x03, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x23, 0x08}, true, 0x18, true},
		{[]byte{0x91, 0x10}, true, 0, false}, // DW_OP_fbreg: a local
		{[]byte{0x03, 0x10}, true, 0, false}, // truncated
		{nil, true, 0, false},
		{[]byte{0xa1, 0x02}, true, 0x3000, true},             // DW_OP_addrx 2
		{[]byte{0xa1, 0x02, 0x23, 0x04}, true, 0x3004, true}, // ... plus 4
		{[]byte{0xa1, 0x07}, true, 0, false},                 // index out of range
	}
	table := []uint64{0x1000, 0x2000, 0x3000}
	addrx := func(i uint64) (uint64, bool) {
		if i >= uint64(len(table)) {
			return 0, false
		}
		return table[i], true
	}
	for _, tc := range tests {
		addr, ok := staticAddress(tc.expr, 8, tc.le, addrx)
		if addr != tc.addr || ok != tc.ok {
			t.Errorf("%x: got %#x %v, want %#x %v", tc.expr, addr, ok, tc.addr, tc.ok)
		}
	}
}
