package elfio

import "debug/elf"

// In a relocatable object every section sits at address 0, so the address a
// relocation resolves to depends on where the reader chooses to place the
// sections. pahole reads DWARF through elfutils' libdwfl
// (dwfl_report_offline), which gives the allocated sections of an ET_REL
// file an arbitrary but well-defined layout before it relocates the debug
// sections, and it also keeps that layout in the section headers it later
// reads to place variables. Its function table, on the other hand, uses the
// raw symbol values. So for a kernel module pahole's DWARF addresses
// (DW_AT_low_pc, DW_OP_addr) are the laid-out ones and never equal a
// function symbol's st_value, which decides, for example, whether a
// function counts as sitting at a ".isra" clone's address. Reproducing
// pahole's output therefore means reproducing that layout.

// offlineBase is where libdwfl places the first module it is handed for
// offline use (its OFFLINE_REDZONE), and relMinAlign the alignment it
// rounds a relocatable module's base up to.
const (
	offlineBase = 0x10000
	relMinAlign = 0x100
)

// OfflineLayout returns, per section index, the address libdwfl gives the
// section when it reports an ET_REL file offline as the only module: the
// allocated sections are laid out one after the other from 0x10000, in
// section-table order, each at its sh_addralign. Sections that are not
// allocated keep address 0. For other file types the section headers'
// sh_addr values are returned unchanged.
//
// The rules follow libdwfl's layout exactly, including its corner cases: a
// section whose alignment the base does not meet restarts the layout from
// a base rounded up to it, alignments are applied with two's-complement
// masks (as libdwfl does, also for an alignment that is not a power of
// two), and sections that already carry an address keep it, shifting the
// whole module by the difference between the base and the lowest such
// address.
func (f *File) OfflineLayout() []uint64 {
	addrs := make([]uint64, len(f.sections))
	for i := range f.sections {
		addrs[i] = f.sections[i].Addr
	}
	if f.Type != elf.ET_REL {
		return addrs
	}
	alignUp := func(v, a uint64) uint64 { return (v + a - 1) & -a }
	alignOf := func(s *Section) uint64 {
		if s.Addralign == 0 {
			return 1
		}
		return s.Addralign
	}
	base := alignUp(offlineBase, relMinAlign)
	start, end, bias := base, base, uint64(0)
	first := true
	for i := 1; i < len(f.sections); i++ {
		s := &f.sections[i]
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		align := alignOf(s)
		next := alignUp(end, align)
		if addrs[i] != 0 && !(bias == 0 && end > start && end != next) {
			// Already placed: track the span and the lowest address.
			if first || end < addrs[i]+s.Size {
				end = addrs[i] + s.Size
			}
			if first || bias > addrs[i] {
				bias = addrs[i]
			}
			if (addrs[i]-bias+base)&(align-1) != 0 {
				base = alignUp(base, align) + bias&(align-1)
			}
			first = false
			continue
		}
		addrs[i] = next
		switch {
		case end == base:
			start, base = next, next
		case base&(align-1) != 0:
			// The base is less aligned than this section: start over
			// from a better base, placing every allocated section up to
			// and including this one again.
			base = alignUp(base, align)
			start, end = base, base
			for j := 1; j <= i; j++ {
				p := &f.sections[j]
				if p.Flags&elf.SHF_ALLOC == 0 {
					continue
				}
				addrs[j] = alignUp(end, alignOf(p))
				end = addrs[j] + p.Size
			}
			continue
		}
		end = addrs[i] + s.Size
		first = false
	}
	if bias != 0 {
		// Pre-assigned addresses: the module moves as a whole so that its
		// lowest address lands on the base.
		shift := base - bias
		for i := range addrs {
			if f.sections[i].Flags&elf.SHF_ALLOC != 0 {
				addrs[i] += shift
			}
		}
	}
	return addrs
}
