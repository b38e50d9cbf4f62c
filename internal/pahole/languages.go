package pahole

import (
	"fmt"
	"strings"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// langNames are pahole's names for the DW_LANG_* codes; "asm" is
// dwarf.LangMipsAssembler's.
var langNames = map[dwarf.Lang]string{
	dwarf.LangC89: "c89", dwarf.LangC: "c", dwarf.LangAda83: "ada83", dwarf.LangCPlusPlus: "c++",
	dwarf.LangCobol74: "cobol74", dwarf.LangCobol85: "cobol85", dwarf.LangFortran77: "fortran77",
	dwarf.LangFortran90: "fortran90", dwarf.LangPascal83: "pascal83", dwarf.LangModula2: "modula2",
	dwarf.LangJava: "java", dwarf.LangC99: "c99", dwarf.LangAda95: "ada95", dwarf.LangFortran95: "fortran95",
	dwarf.LangPLI: "pli", dwarf.LangObjC: "objc", dwarf.LangObjCPlusPlus: "objc++", dwarf.LangUPC: "upc",
	dwarf.LangD: "d", dwarf.LangPython: "python", dwarf.LangOpenCL: "opencl", dwarf.LangGo: "go",
	dwarf.LangModula3: "modula3", dwarf.LangHaskell: "haskell", dwarf.LangCPlusPlus03: "c++03",
	dwarf.LangCPlusPlus11: "c++11", dwarf.LangOCaml: "ocaml", dwarf.LangRust: "rust", dwarf.LangC11: "c11",
	dwarf.LangSwift: "swift", dwarf.LangJulia: "julia", dwarf.LangDylan: "dylan", dwarf.LangCPlusPlus14: "c++14",
	dwarf.LangFortran03: "fortran03", dwarf.LangFortran08: "fortran08", dwarf.LangRenderScript: "renderscript",
	dwarf.LangBLISS: "bliss", dwarf.LangMipsAssembler: "asm",
}

// ParseLanguages turns a comma-separated list of language names ("c,rust",
// case-insensitive, "asm" for assembler units) into DW_LANG codes, as
// --lang and --lang_exclude take them.
func ParseLanguages(list string) ([]dwarf.Lang, error) {
	var ids []dwarf.Lang
	for _, name := range strings.Split(list, ",") {
		id, ok := langID(name)
		if !ok {
			return nil, fmt.Errorf("unknown language %q", name)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func langID(name string) (dwarf.Lang, bool) {
	for id, n := range langNames {
		if strings.EqualFold(n, name) {
			return id, true
		}
	}
	return 0, false
}
