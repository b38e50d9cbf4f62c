package funcs

import (
	"fmt"
	"strings"
)

// Kfuncs are the kernel functions BPF programs may call. The kernel lists
// them in ID sets of the .BTF_ids section (BTF_SET8 with the KFUNCS flag);
// with decl_tag_kfuncs, pahole tags their FUNCs with a "bpf_kfunc" DECL_TAG
// (and "bpf_fastcall" for KF_FASTCALL ones), so that tools can find them
// without parsing .BTF_ids. The scan follows btf_encoder__collect_kfuncs:
//
//   - a symbol of .BTF_ids named "__BTF_ID__set8__*" starts a set; the set is
//     a kfunc set when the flags word after its count has bit 0 set, and it
//     covers [st_value, st_value+st_size);
//   - a symbol of .BTF_ids named "__BTF_ID__func__NAME__N" inside a kfunc
//     set is a kfunc NAME; its ID-and-flags pair sits at its address, and
//     the flags word (the second) is kept for the FASTCALL and ARENA bits.

const (
	btfIDFuncPrefix = "__BTF_ID__func__"
	btfIDSet8Prefix = "__BTF_ID__set8__"
	btfSet8Kfuncs   = 1 << 0

	kfuncTag    = "bpf_kfunc"
	fastcallTag = "bpf_fastcall"
	arenaAttr   = "address_space(1)"

	kfFastcall  = 1 << 12
	kfArenaRet  = 1 << 13
	kfArenaArg1 = 1 << 14
	kfArenaArg2 = 1 << 15
)

// kfuncName extracts NAME from a "__BTF_ID__func__NAME__N" symbol name, or
// returns "" when sym has another form. As pahole does, it cuts before the
// last '_' when that is the second of a "__" pair.
func kfuncName(sym string) string {
	rest, ok := strings.CutPrefix(sym, btfIDFuncPrefix)
	if !ok || !strings.Contains(rest, "__") {
		return ""
	}
	end := strings.LastIndexByte(rest, '_')
	if end < 1 || rest[end-1] != '_' {
		return ""
	}
	return rest[:end-1]
}

// markKfuncs flags the functions named in kfunc sets of .BTF_ids. Files
// without that section or without symbols have no kfuncs.
func (t *Table) markKfuncs(src *ELF) error {
	ids := src.BTFIDs
	if ids == nil || src.BTFIDsIndex == 0 {
		return nil
	}
	type span struct{ start, end uint64 }
	var sets []span
	for i := range src.Symbols {
		s := &src.Symbols[i]
		if s.Section != src.BTFIDsIndex || !strings.HasPrefix(s.Name, btfIDSet8Prefix) {
			continue
		}
		off := s.Value - src.BTFIDsAddr
		if off >= uint64(len(ids)) || off+8 > uint64(len(ids)) {
			continue
		}
		if src.Order.Uint32(ids[off+4:])&btfSet8Kfuncs == 0 {
			continue
		}
		sets = append(sets, span{s.Value, s.Value + s.Size})
	}
	for i := range src.Symbols {
		s := &src.Symbols[i]
		if s.Section != src.BTFIDsIndex {
			continue
		}
		name := kfuncName(s.Name)
		if name == "" {
			continue
		}
		in := false
		for _, r := range sets {
			if r.start <= s.Value && s.Value < r.end {
				in = true
				break
			}
		}
		if !in {
			continue
		}
		off := s.Value - src.BTFIDsAddr
		if s.Value < src.BTFIDsAddr || off+8 > uint64(len(ids)) {
			return fmt.Errorf("kfunc %q: its entry at %#x lies outside section %s", name, s.Value, BTFIDsSection)
		}
		if i := t.find(name); i >= 0 {
			t.funcs[i].kfunc = true
			t.funcs[i].kfuncFlags = src.Order.Uint32(ids[off+4:])
		}
	}
	return nil
}
