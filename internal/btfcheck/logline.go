package btfcheck

import (
	"fmt"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
)

// This file writes a fault as the kernel's log states it. The kernel's BTF
// log helpers (kernel/bpf/btf.c) build each line from several pieces: for
// BPF_BTF_LOAD they go into the verifier log as one line, and for module
// loading and the vmlinux at boot (log level BPF_LOG_KERNEL) each piece is
// printed as a line of its own, "BPF: " first, in the kernel's log.

// Line returns the fault in one line, "[ID] KIND name reason" where the
// kernel names the type (the kind's details the kernel prints between name
// and reason left out), "[ID] reason" where it gives only the ID, and the
// reason alone for faults of the blob as a whole. A fault the kernel does
// not log gives gobtf's own description in parentheses.
func Line(f *btf.ValidationError) string {
	reason := f.Kernel
	if reason == "" {
		reason = "(no kernel log line: " + strings.TrimPrefix(f.Error(), "btf: ") + ")"
	}
	reason = strings.TrimPrefix(reason, "\t")
	switch {
	case f.ID == 0 || f.Form == btf.FormWarn:
		return reason
	case f.Form == btf.FormPlain:
		return fmt.Sprintf("[%d] %s", f.ID, reason)
	}
	return fmt.Sprintf("[%d] %s %s %s", f.ID, f.Kind, logName(f), reason)
}

// logName is the fault's type's name as the kernel's log prints it.
func logName(f *btf.ValidationError) string {
	if f.NameOff == 0 {
		return "(anon)"
	}
	return f.Name
}

// VerifierLog returns the lines BPF_BTF_LOAD's verifier log ends with for
// the fault: the line that states it and, for a member or DATASEC entry
// found in the resolve pass, the line naming its container before it. s is
// the checked Spec (CheckKernel's), in which the fault's type is looked up.
func VerifierLog(f *btf.ValidationError, s *btf.Spec) []string {
	text := strings.TrimSuffix(strings.Join(logPieces(f, s, true), ""), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// KernelLog returns the lines the kernel's log (dmesg) shows for the fault
// on the module and vmlinux paths: one "BPF: " line per piece the verifier
// writes, then, for a module, the module loader's line naming the module
// and the error number.
func KernelLog(f *btf.ValidationError, s *btf.Spec, module string) []string {
	var lines []string
	if f.Form == btf.FormWarn {
		lines = append(lines, f.Kernel)
	} else {
		for _, p := range logPieces(f, s, false) {
			lines = append(lines, "BPF: "+strings.TrimSuffix(p, "\n"))
		}
	}
	if module != "" {
		lines = append(lines, fmt.Sprintf("failed to validate module [%s] BTF: -%d", module, f.Errno))
	}
	return lines
}

// logPieces returns the pieces of the kernel's log for the fault, each what
// one call of its log helper writes ("\n" alone ends a line). verbose is
// BPF_BTF_LOAD's log, which also names a member's container in the
// resolve pass.
func logPieces(f *btf.ValidationError, s *btf.Spec, verbose bool) []string {
	var t btf.Type
	var strs *btf.StringTable
	if s != nil {
		strs = s.Strings()
		if f.ID != 0 {
			t = s.Type(f.ID)
		}
	}
	switch f.Form {
	case btf.FormSilent:
		return nil
	case btf.FormBlob, btf.FormWarn:
		return []string{f.Kernel}
	case btf.FormPlain:
		return []string{fmt.Sprintf("[%d] %s", f.ID, f.Kernel)}
	case btf.FormType, btf.FormBasic:
		return typePieces(f, t, strs, f.Form == btf.FormType, f.Kernel)
	}
	// A member or DATASEC entry.
	var p []string
	if f.Resolve && verbose && t != nil {
		p = append(p, typePieces(f, t, strs, true, "")...)
	}
	line := ""
	if t != nil && f.Index < t.Vlen() {
		if f.Form == btf.FormMember {
			m := t.Member(f.Index)
			name := nameAt(strs, m.NameOff)
			if t.KindFlag() {
				line = fmt.Sprintf("\t%s type_id=%d bitfield_size=%d bits_offset=%d", name, f.MemberType,
					btf.MemberBitfieldSize(true, m.Offset), btf.MemberBitOffset(true, m.Offset))
			} else {
				line = fmt.Sprintf("\t%s type_id=%d bits_offset=%d", name, f.MemberType, m.Offset)
			}
		} else {
			typ, off, size := t.SecInfo(f.Index)
			line = fmt.Sprintf("\t type_id=%d offset=%d size=%d", typ, off, size)
		}
	}
	return append(p, line, " ", f.Kernel, "\n")
}

// typePieces is __btf_verifier_log_type's output for type t: its ID, kind
// and name, with details its kind's details, then the reason if any.
func typePieces(f *btf.ValidationError, t btf.Type, strs *btf.StringTable, details bool, reason string) []string {
	sep := ""
	if details {
		sep = " "
	}
	p := []string{fmt.Sprintf("[%d] %s %s%s", f.ID, f.Kind, logName(f), sep)}
	if details && t != nil {
		p = append(p, detailPieces(t, strs)...)
	}
	if reason != "" {
		p = append(p, " ", reason)
	}
	return append(p, "\n")
}

// detailPieces is the log_details helper of t's kind.
func detailPieces(t btf.Type, strs *btf.StringTable) []string {
	switch t.Kind() {
	case btf.KindInt:
		enc, off, bits := t.IntData()
		return []string{fmt.Sprintf("size=%d bits_offset=%d nr_bits=%d encoding=%s", t.Size(), off, bits, intEncoding(enc))}
	case btf.KindPtr, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag, btf.KindFunc:
		return []string{fmt.Sprintf("type_id=%d", t.Ref())}
	case btf.KindFwd:
		if t.KindFlag() {
			return []string{"union"}
		}
		return []string{"struct"}
	case btf.KindArray:
		elem, index, n := t.Array()
		return []string{fmt.Sprintf("type_id=%d index_type_id=%d nr_elems=%d", elem, index, n)}
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindDatasec:
		return []string{fmt.Sprintf("size=%d vlen=%d", t.Size(), t.Vlen())}
	case btf.KindFuncProto:
		return protoPieces(t, strs)
	case btf.KindVar:
		return []string{fmt.Sprintf("type_id=%d linkage=%d", t.Ref(), t[3])}
	case btf.KindFloat:
		return []string{fmt.Sprintf("size=%d", t.Size())}
	case btf.KindDeclTag:
		return []string{fmt.Sprintf("type=%d component_idx=%d", t.Ref(), t.ComponentIdx())}
	}
	return nil
}

// protoPieces is btf_func_proto_log.
func protoPieces(t btf.Type, strs *btf.StringTable) []string {
	name := func(off uint32) string { return nameAt(strs, off) }
	p := []string{fmt.Sprintf("return=%d args=(", t.Ref())}
	n := t.Vlen()
	switch {
	case n == 0:
		p = append(p, "void")
	case n == 1 && func() bool { _, typ := t.Param(0); return typ == 0 }():
		p = append(p, "vararg")
	default:
		nm, typ := t.Param(0)
		p = append(p, fmt.Sprintf("%d %s", typ, name(nm)))
		for i := 1; i < n-1; i++ {
			nm, typ := t.Param(i)
			p = append(p, fmt.Sprintf(", %d %s", typ, name(nm)))
		}
		if n > 1 {
			if nm, typ := t.Param(n - 1); typ != 0 {
				p = append(p, fmt.Sprintf(", %d %s", typ, name(nm)))
			} else {
				p = append(p, ", vararg")
			}
		}
	}
	return append(p, ")")
}

// nameAt is __btf_name_by_offset: the string at off, "(anon)" for 0.
func nameAt(strs *btf.StringTable, off uint32) string {
	if off == 0 {
		return "(anon)"
	}
	if s, ok := strs.Lookup(off); ok {
		return s
	}
	return btf.InvalidNameOffset
}

// intEncoding is btf_int_encoding_str.
func intEncoding(enc uint8) string {
	switch enc {
	case 0:
		return "(none)"
	case btf.IntSigned:
		return "SIGNED"
	case btf.IntChar:
		return "CHAR"
	case btf.IntBool:
		return "BOOL"
	}
	return "UNKN"
}
