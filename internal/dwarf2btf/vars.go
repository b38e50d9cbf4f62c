package dwarf2btf

import (
	"debug/elf"
	"fmt"
	"sort"
	"strings"

	"github.com/gobtf/gobtf/internal/btf"
	"github.com/gobtf/gobtf/internal/dwarf/loc"
	"github.com/gobtf/gobtf/internal/elfio"
)

// Variables become VAR types, one per defined variable at the top level of a
// unit, placed by one DATASEC per ELF section. By default only the per-CPU
// section is described (the var feature); global_var describes every data
// section. The rules follow pahole's encoder:
//   - the DIE is a top-level DW_TAG_variable, not a bare declaration, not
//     artificial, and its location is a static address (DW_OP_addr or
//     DW_OP_addrx, optionally plus a constant);
//   - the address falls in a PROGBITS or NOBITS section that is included;
//   - name, type and linkage come from the DW_AT_specification declaration
//     if there is one;
//   - names with a few compiler- and macro-made prefixes are skipped;
//   - at section offset 0 a variable is kept only if the symbol table has an
//     object of that name in that section (offset 0 is also what variables
//     in discarded sections get);
//   - zero-sized and oversized variables are skipped; invalid names and
//     variables without a type are errors unless encode_force.

// percpuSection is the section of the kernel's per-CPU variables.
const percpuSection = ".data..percpu"

// ksymNameLen bounds symbol names (pahole's KSYM_NAME_LEN).
const ksymNameLen = 128

// elfSection is what variable placement needs of a section header.
type elfSection struct {
	name    string
	addr    uint64
	size    uint64
	typ     elf.SectionType
	include bool // variables in it are described
}

// elfInfo is the ELF side of variable encoding: sections and the object
// symbols by name (for the offset-0 check).
type elfInfo struct {
	sections []elfSection
	objects  map[string][]uint32 // STT_OBJECT symbol name -> section indexes
	symtab   bool                // the file has symbols
	vars     bool                // variables are encoded (var or global_var)
}

// newElfInfo indexes f's sections, marking those whose variables the
// features ask for, and its object symbols syms (nil when it has none).
// Sections are placed at addrs[i] when addrs covers them, else at
// their sh_addr.
func newElfInfo(f *elfio.File, syms []elfio.Symbol, feats *Features, addrs []uint64) *elfInfo {
	secs := f.Sections()
	info := &elfInfo{sections: make([]elfSection, len(secs)), symtab: syms != nil, vars: feats.Var || feats.GlobalVar}
	for i := range secs {
		s := &secs[i]
		addr := s.Addr
		if i < len(addrs) {
			addr = addrs[i]
		}
		info.sections[i] = elfSection{name: s.Name, addr: addr, size: f.UncompressedSize(s), typ: s.Type,
			include: feats.GlobalVar || (feats.Var && s.Name == percpuSection)}
	}
	info.objects = make(map[string][]uint32)
	for i := range syms {
		if s := &syms[i]; s.Type() == elf.STT_OBJECT {
			info.objects[s.Name] = append(info.objects[s.Name], s.Section)
		}
	}
	return info
}

// sectionOf returns the index of the first PROGBITS or NOBITS section
// holding addr, or 0.
func (e *elfInfo) sectionOf(addr uint64) int {
	for i := 1; i < len(e.sections); i++ {
		s := &e.sections[i]
		if (s.typ == elf.SHT_PROGBITS || s.typ == elf.SHT_NOBITS) && s.addr <= addr && addr-s.addr < s.size {
			return i
		}
	}
	return 0
}

func (e *elfInfo) hasObject(name string, shndx int) bool {
	for _, s := range e.objects[name] {
		if int(s) == shndx {
			return true
		}
	}
	return false
}

// varRec is a top-level DW_TAG_variable awaiting emission.
type varRec struct {
	off      uint64
	name     string
	ref      uint64
	spec     uint64
	addr     uint64
	isStatic bool // the location is a static address
	external bool
	decl     bool
	artif    bool
	tags     []uint32 // btf_decl_tag values (string offsets)
}

// secEntry places one VAR of a unit in a section.
type secEntry struct {
	shndx  int
	typ    btf.TypeID
	offset uint32
	size   uint32
}

// variable records a top-level DW_TAG_variable.
func (c *cuTypes) variable(d *digest) {
	v := varRec{off: d.off, name: d.nm(), ref: d.typ, spec: d.specification, external: d.external,
		decl: d.declaration, artif: d.artificial}
	if !d.declaration {
		v.addr, v.isStatic = loc.StaticAddress(d.location, int(c.addrSize), c.littleEndian, c.addrx)
	}
	c.vars = append(c.vars, v)
}

// emitVars appends the unit's VARs (and their DECL_TAGs) to its Spec and
// returns where each goes. It must run after emit, which assigns type IDs.
//
// With Options.Log it also keeps the reports in c.varLog: the unit, when
// variables are encoded and the file has symbols, then each variable
// encoded.
func (c *cuTypes) emitVars(e *elfInfo) ([]secEntry, error) {
	var out []secEntry
	verbose := c.opts.Log != nil
	if verbose && e.vars && e.symtab {
		c.varLog = append(c.varLog, logEntry{kind: logUnit, unit: c.unitName})
	}
	for i := range c.vars {
		v := &c.vars[i]
		if v.decl && v.spec == 0 || v.artif || !v.isStatic {
			continue
		}
		shndx := e.sectionOf(v.addr)
		if shndx == 0 || !e.sections[shndx].include {
			continue
		}
		addr := v.addr - e.sections[shndx].addr
		name, ref, external := v.name, v.ref, v.external
		if v.spec != 0 {
			if s := c.findVar(v.spec); s != nil {
				name, ref, external = s.name, s.ref, s.external
			}
		}
		if name == "" || skipVariableName(name) {
			continue
		}
		if addr == 0 && !e.hasObject(name, shndx) {
			continue
		}
		if !validName(name) {
			if c.opts.Features.EncodeForce {
				continue
			}
			return nil, fmt.Errorf("invalid variable name %q (use encode_force to skip such symbols)", name)
		}
		typ := c.resolve(ref)
		if typ == 0 {
			if c.opts.Features.EncodeForce {
				continue
			}
			return nil, fmt.Errorf("variable %q has void type", name)
		}
		size := c.recordSize(ref, true)
		if size == 0 || size > 0xffffffff || addr > 0xffffffff {
			continue
		}
		linkage := uint32(btf.LinkageStatic)
		if external {
			linkage = btf.LinkageGlobal
		}
		if verbose {
			c.varLog = append(c.varLog, logEntry{kind: logVariable, name: name, unit: c.unitName, addr: addr})
		}
		id := c.spec.AddVar(c.kabi(name), typ, linkage)
		for _, tag := range v.tags {
			c.spec.MustAppend(tag, btf.Info(btf.KindDeclTag, false, 0), id, ^uint32(0))
		}
		out = append(out, secEntry{shndx: shndx, typ: id, offset: uint32(addr), size: uint32(size)})
	}
	return out, nil
}

// kabi applies --kabi_prefix to a name.
func (c *cuTypes) kabi(s string) string {
	if p := c.opts.KabiPrefix; p != "" && strings.HasPrefix(s, p) {
		return p
	}
	return s
}

func (c *cuTypes) findVar(off uint64) *varRec {
	i := sort.Search(len(c.vars), func(i int) bool { return c.vars[i].off >= off })
	if i < len(c.vars) && c.vars[i].off == off {
		return &c.vars[i]
	}
	return nil
}

// skipVariableName reports names pahole leaves out: made by macros or the
// compiler, with no value to a BTF user.
func skipVariableName(name string) bool {
	if name[0] != '_' {
		return false
	}
	for _, p := range []string{"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_", "__func_stack_frame_non_standard_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// validName reports whether name is acceptable in vmlinux BTF: letters,
// digits, '_' and '.', not starting with a digit, shorter than ksymNameLen.
func validName(name string) bool {
	if name == "" || len(name) >= ksymNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		ok := ch == '_' || ch == '.' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
		if i > 0 {
			ok = ok || ch >= '0' && ch <= '9'
		}
		if !ok {
			return false
		}
	}
	return true
}

// appendDatasecs adds one DATASEC per section that received variables, in
// section order, with entries sorted by offset (stable, so variables at the
// same offset keep unit order) and the size ending at the last variable. A
// section with more variables than a DATASEC may list (btf.MaxEncodedVlen)
// is an error: the info word of libbpf 1.8 and Linux 7.1 could hold them,
// but no kernel before 7.1 loads it, and pahole 1.31 wrote such a DATASEC
// with its vlen wrapped around.
func appendDatasecs(s *btf.Spec, e *elfInfo, entries []secEntry) error {
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].shndx != entries[j].shndx {
			return entries[i].shndx < entries[j].shndx
		}
		return entries[i].offset < entries[j].offset
	})
	for i := 0; i < len(entries); {
		j := i
		for j < len(entries) && entries[j].shndx == entries[i].shndx {
			j++
		}
		sec := make([]btf.SecInfoSpec, 0, j-i)
		for _, en := range entries[i:j] {
			sec = append(sec, btf.SecInfoSpec{Type: en.typ, Offset: en.offset, Size: en.size})
		}
		name := e.sections[entries[i].shndx].name
		if len(sec) > btf.MaxEncodedVlen {
			return fmt.Errorf("section %s: %d variables, more than BTF's limit of %d in one DATASEC", name, len(sec), btf.MaxEncodedVlen)
		}
		last := entries[j-1]
		s.AddDatasec(name, last.offset+last.size, sec)
		i = j
	}
	return nil
}
