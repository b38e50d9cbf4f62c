package classlayout

import (
	"encoding/binary"
	"strconv"
	"sync"
)

// Reorganizing (-R, -S, -P) is pahole's class__reorganize: it moves the
// members of a copy of a struct into the holes before them, one move at a
// time, restarting its scan after each, and shrinks the copy as the moves
// allow. It never moves bitfields (pahole builds without its bitfield
// algorithms). The copy lives in a scratch slot of the model, one Type and
// room for the largest struct's members at the end of the members, so that
// the printer prints it and the hole finder measures it like any other
// struct. Offsets and counters wrap at pahole's integer widths: its output
// for structs over 64 KiB depends on that.
//
// Some layouts make pahole's moves go on and on: the Linux 6.1 pglist_data
// (174208 bytes) loses a word per move while the same members go round
// after node_id, its size wrapping past zero, and pahole never returns;
// with -w 4, xfrm_policy takes 161 million moves (most of a minute) to end
// at 20 bytes. gobtf stops after more moves than a struct of that size and
// member count takes while its layout still means something (moveLimit),
// says on the error stream that the struct was not reorganized, and then
// -R prints no result for it and -P does not list it.

// reserveScratch adds the scratch slot to the model: a void type, turned
// into the copy being reorganized and back, and members for it. It runs
// before the printer hands out any pointer into the model.
func reserveScratch(m *Model) (id, first uint32) {
	var maxN uint32
	for i := range m.Types {
		if m.Types[i].Kind == KindStruct {
			maxN = max(maxN, m.Types[i].N)
		}
	}
	m.Types = append(m.Types, Type{})
	if m.Decl != nil {
		m.Decl = append(m.Decl, DeclInfo{})
	}
	if m.natAlign != nil {
		m.natAlign = append(m.natAlign, 0)
	}
	first = uint32(len(m.Members))
	m.Members = append(m.Members, make([]Member, maxN)...)
	return uint32(len(m.Types) - 1), first
}

// cloneToScratch is class__clone: the scratch slot becomes a copy of
// struct id, its members, their holes and what was found about it. Types
// defined inside the struct's body are not copied, as pahole copies only
// members.
func (p *Printer) cloneToScratch(id uint32) *Type {
	orig := p.m.Types[id]
	t := &p.m.Types[p.scratch]
	*t = orig
	t.First, t.NestedFirst, t.NestedN = p.scratchFirst, 0, 0
	copy(p.m.Members[t.First:t.First+t.N], p.m.Members[orig.First:orig.First+orig.N])
	copy(p.hole[t.First:t.First+t.N], p.hole[orig.First:orig.First+orig.N])
	copy(p.bitHole[t.First:t.First+t.N], p.bitHole[orig.First:orig.First+orig.N])
	p.cls[p.scratch] = p.cls[id]
	if p.m.Decl != nil {
		p.m.Decl[p.scratch] = p.m.Decl[id]
	}
	if p.m.natAlign != nil {
		p.m.natAlign[p.scratch] = 0
	}
	return t
}

// dropScratch turns the scratch slot back into void.
func (p *Printer) dropScratch() { p.m.Types[p.scratch] = Type{} }

// reorganizer is one run of class__reorganize over the scratch copy t.
type reorganizer struct {
	p       *Printer
	t       *Type
	verbose int    // 1: say each move (-V); 2: also print the struct after it (-S)
	addr    uint64 // the unit's address size
	moves   uint64
	limit   uint64 // moveLimit
	stopped bool   // the moves went past limit
}

// moveLimit bounds the moves reorganizing a struct of size bytes and n
// members takes: a move that shrinks the struct takes a word (or a
// member) off it, one that does not puts a member into a hole nearer the
// start, so a run that ends makes a few times n² moves plus one per word
// of the struct (a 131096-byte struct of 5 members takes 16388), and never
// more than 262144, which take a fraction of a second.
func moveLimit(size, n, addr uint64) uint64 { return min(64+4*n*n+2*size/addr, 1<<18) }

func (r *reorganizer) members() []Member {
	return r.p.m.Members[r.t.First : r.t.First+r.t.N]
}

func (r *reorganizer) hole(i int) int32 { return r.p.hole[int(r.t.First)+i] }

// run is class__reorganize's main loop. Each pass (a restart) first
// recomputes the end padding from the biggest member-plus-hole that fits in
// a word, then tries, for each member followed by a hole: the first later
// member that fits the hole (unless it is the next member, which may be
// placed there on purpose, as ____cacheline_aligned members are), then the
// last member when the struct has padding; and when no hole took anything,
// the last member from the tail that fits.
func (r *reorganizer) run() {
	p, t := r.p, r.t
	p.findHoles(t)
	st := p.state(t)
	for {
		if t.N == 0 || r.endless() {
			return
		}
		ms := r.members()
		last := len(ms) - 1
		r.settlePadding(ms, st)
		moved := false
		for i := 0; i < len(ms) && !moved; i++ {
			h := r.hole(i)
			if h == 0 {
				continue
			}
			if b := r.nextHoleOfSize(i, uint64(int64(h))); b >= 0 && b-1 != i && r.move(i, b, false) {
				moved = true
				break
			}
			if st.padding > 0 && i != last && ms[last].ByteSize != 0 &&
				uint64(ms[last].ByteSize) <= uint64(int64(h)) && r.move(i, last, true) {
				moved = true
			}
		}
		if moved {
			continue
		}
		if st.nrHoles == 0 {
			return
		}
		for i := 0; i < len(ms) && !moved; i++ {
			h := r.hole(i)
			if h == 0 {
				continue
			}
			if b := r.lastMemberOfSize(i, uint64(int64(h))); b >= 0 && b-1 != i && r.move(i, b, false) {
				moved = true
			}
		}
		if !moved {
			return
		}
	}
}

// settlePadding sets the padding the struct needs after its last member
// for the alignment its biggest word-sized member-plus-hole suggests.
func (r *reorganizer) settlePadding(ms []Member, st *classState) {
	var align uint64
	for i := range ms {
		aligned := uint64(ms[i].ByteSize) + uint64(int64(r.hole(i)))
		if aligned <= r.addr && aligned > align {
			align = aligned
		}
	}
	if align == 0 {
		return
	}
	if align > 1 {
		align = (align + 1) / 2 * 2
	}
	last := &ms[len(ms)-1]
	end := uint64(last.ByteOffset) + uint64(last.ByteSize)
	var padding uint16
	if mod := end % align; mod != 0 {
		padding = uint16(r.addr - mod)
	}
	if padding != st.padding {
		st.padding = padding
		r.t.Size = uint32(end + uint64(padding))
	}
}

// endless says whether the moves went past the limit.
func (r *reorganizer) endless() bool {
	if r.moves > r.limit {
		r.stopped = true
	}
	return r.stopped
}

// nextHoleOfSize is class__find_next_hole_of_size: the first member after
// from that has a hole after it and fits in size bytes, or, when that
// member ends a bitfield, the bitfield's first member; -1 for none.
func (r *reorganizer) nextHoleOfSize(from int, size uint64) int {
	ms := r.members()
	head := -1
	for i := from + 1; i < len(ms); i++ {
		if ms[i].BitfieldSize != 0 {
			if head < 0 {
				head = i
			}
		} else {
			head = -1
		}
		if r.hole(i) != 0 && ms[i].ByteSize != 0 && uint64(ms[i].ByteSize) <= size {
			if head >= 0 {
				return head
			}
			return i
		}
	}
	return -1
}

// lastMemberOfSize is class__find_last_member_of_size: from the end back to
// (not including) member to, the first member that fits in size bytes,
// skipping bitfield members that do not start their bitfield.
func (r *reorganizer) lastMemberOfSize(to int, size uint64) int {
	ms := r.members()
	for i := len(ms) - 1; i > to; i-- {
		if ms[i].BitfieldSize != 0 && ms[i].ByteOffset != 0 && ms[i-1].BitfieldSize != 0 {
			continue
		}
		if ms[i].ByteSize != 0 && uint64(ms[i].ByteSize) <= size {
			return i
		}
	}
	return -1
}

// move is class__move_member: member from (after dest) goes right after
// dest, aligned to its size (at most a word) in dest's hole; the struct
// shrinks when from was last or padding, or by a word when from left a
// word-sized gap. It refuses bitfields.
func (r *reorganizer) move(dest, from int, fromPadding bool) bool {
	p, t := r.p, r.t
	ms := r.members()
	if ms[from].BitfieldSize != 0 {
		return false
	}
	st := p.state(t)
	fromSize, destSize := uint64(ms[from].ByteSize), uint64(ms[dest].ByteSize)
	fromWasLast := from == len(ms)-1
	origTailHole := uint16(r.hole(from))
	origOffset := uint16(ms[from].ByteOffset)
	align := min(fromSize, r.addr)
	offset := uint16(uint64(int64(r.hole(dest))) % align)
	newOffset := uint16(uint64(ms[dest].ByteOffset) + destSize + uint64(offset))
	fromName, prevName, destName := ms[from].Name, ms[from-1].Name, ms[dest].Name

	mb := ms[from]
	mb.ByteOffset = uint32(newOffset)
	mb.BitOffset = uint32(newOffset)*8 + uint32(mb.BitfieldOffset)
	copy(ms[dest+2:from+1], ms[dest+1:from])
	ms[dest+1] = mb
	prev := dest // where the member before from is now
	if from-1 > dest {
		prev = from
	}
	if r.verbose > 0 {
		p.str("/* Moving '" + orEmptyName(fromName) + "' from after '" + orEmptyName(prevName) +
			"' to after '" + orEmptyName(destName) + "' */\n")
	}
	switch {
	case fromPadding:
		if uint64(origOffset)%r.addr == 0 {
			t.Size -= uint32(fromSize + uint64(st.padding))
		} else if r.verbose > 0 {
			p.str("/* adding " + strconv.FormatUint(fromSize, 10) + " bytes from " + orEmptyName(fromName) + " to the padding */\n")
		}
	case fromWasLast:
		t.Size -= uint32(fromSize + uint64(st.padding))
	case uint64(origTailHole)+fromSize >= r.addr:
		t.Size -= uint32(r.addr)
		p.subtractOffsetsFrom(t, prev, uint16(r.addr))
	}
	st.holesSearched = false
	p.findHoles(t)
	r.moves++
	if r.verbose > 1 {
		p.printStep(t)
	}
	return true
}

// subtractOffsetsFrom is class__subtract_offsets_from: the members of t
// after its member number from move size bytes up, and a padding t had is
// measured again.
func (p *Printer) subtractOffsetsFrom(t *Type, from int, size uint16) {
	ms := p.m.MembersOf(t)
	for i := from + 1; i < len(ms); i++ {
		ms[i].ByteOffset -= uint32(size)
		ms[i].BitOffset -= uint32(size) * 8
	}
	st := p.state(t)
	if st.padding != 0 {
		last := &ms[len(ms)-1]
		if pad := int64(uint64(t.Size) - (uint64(last.ByteOffset) + uint64(last.ByteSize))); pad > 0 {
			st.padding = uint16(pad)
		} else {
			st.padding = 0
		}
	}
}

// printStep is -S's view of the copy after a move: class__fprintf, with
// pahole's default printing options rather than the command line's.
func (p *Printer) printStep(t *Type) {
	saved := p.opt
	p.opt = Options{CachelineSize: saved.CachelineSize, Separator: saved.Separator, UnitName: saved.UnitName}
	c := p.topConf(t)
	p.startType()
	p.classFprintf(t, &c, 0)
	p.byte1('\n')
	p.opt = saved
	if p.spill != nil && len(p.buf) > 1<<16 {
		p.spill()
	}
}

// reorganize clones struct id into the scratch slot and reorganizes it;
// the caller drops the slot.
func (p *Printer) reorganize(id uint32, verbose int) (*Type, *reorganizer) {
	t := p.cloneToScratch(id)
	r := &reorganizer{p: p, t: t, verbose: verbose, addr: uint64(p.m.AddrSize)}
	if r.addr == 0 {
		r.addr = 8
	}
	r.limit = moveLimit(uint64(t.Size), uint64(t.N), r.addr)
	r.run()
	return t, r
}

// doReorg is pahole's do_reorg (-R, for each -C name that is a struct): the
// reorganized struct, preceded with -V by its moves and with -S by each
// step, followed by what it saves.
func (p *Printer) doReorg(id uint32) {
	verbose := 0
	switch {
	case p.opt.ShowReorgSteps:
		verbose = 2
	case p.opt.Verbose:
		verbose = 1
	}
	origSize := p.m.Types[id].Size
	if verbose > 0 {
		// A run that does not end would say its moves for long; find out
		// first, quietly.
		_, r := p.reorganize(id, 0)
		p.dropScratch()
		if r.stopped {
			p.noteEndless(p.m.Types[id].Name)
			return
		}
	}
	t, r := p.reorganize(id, verbose)
	defer p.dropScratch()
	if r.stopped {
		p.noteEndless(t.Name)
		return
	}
	savings := int32(origSize - t.Size)
	if savings != 0 && verbose != 0 {
		p.byte1('\n')
		if p.opt.ShowReorgSteps {
			p.str("/* Final reorganized struct: */\n")
		}
	}
	c := p.topConf(t)
	p.startType()
	if p.opt.ExpandTypes {
		p.recursion[p.scratch]++
		defer func() { p.recursion[p.scratch]-- }()
	}
	p.tagFprintf(t, &c)
	if savings == 0 {
		p.byte1('\n')
		return
	}
	cl := uint64(p.opt.CachelineSize)
	lines := (uint64(origSize)+cl-1)/cl - (uint64(t.Size)+cl-1)/cl
	p.str("   /* saved ")
	p.int(int64(savings))
	p.str(" byte" + plural(int64(savings), "s"))
	if lines != 0 {
		p.str(" and ")
		p.uint(lines)
		p.str(" cacheline" + plural(int64(lines), "s"))
	}
	p.str("! */\n")
}

// noteEndless says that reorganizing the struct name went past moveLimit.
func (p *Printer) noteEndless(name string) {
	p.notes = append(p.notes, "struct "+orEmptyName(name)+": not reorganized: its member moves go on past any meaningful layout (pahole takes minutes, or never returns, here)")
}

// packCache shares the reorganized sizes of struct layouts between the
// printers of a file's units: with DWARF, each unit repeats the structs of
// the headers it includes, and the result depends on the layout alone.
type packCache struct{ m, noted sync.Map }

// firstNote says whether the units have not yet noted that struct name's
// reorganization does not end.
func (c *packCache) firstNote(name string) bool {
	_, loaded := c.noted.LoadOrStore(name, true)
	return !loaded
}

// packable is class__packable (-P): whether reorganizing struct id, which
// has holes, makes it smaller; the smaller size is kept for -P's line.
func (p *Printer) packable(id uint32) bool {
	t := &p.m.Types[id]
	st := p.state(t)
	if st.nrHoles == 0 && st.nrBitHoles == 0 {
		return false
	}
	var key string
	if p.packCache != nil {
		key = p.layoutKey(id)
		if v, ok := p.packCache.m.Load(key); ok {
			return p.keepPacked(id, v.(uint32))
		}
	}
	c, r := p.reorganize(id, 0)
	size := c.Size
	if r.stopped {
		if p.packCache == nil || p.packCache.firstNote(c.Name) {
			p.noteEndless(c.Name)
		}
		size = p.m.Types[id].Size
	}
	p.dropScratch()
	if p.packCache != nil {
		p.packCache.m.Store(key, size)
	}
	return p.keepPacked(id, size)
}

func (p *Printer) keepPacked(id uint32, size uint32) bool {
	if p.m.Types[id].Size <= size {
		return false
	}
	if p.packedSize == nil {
		p.packedSize = make(map[uint32]uint32)
	}
	p.packedSize[id] = size
	return true
}

// layoutKey is what reorganizing struct id depends on: the address size,
// the struct's size, and its members' places and sizes.
func (p *Printer) layoutKey(id uint32) string {
	t := &p.m.Types[id]
	k := make([]byte, 0, 8+24*int(t.N))
	k = binary.LittleEndian.AppendUint32(k, p.m.AddrSize)
	k = binary.LittleEndian.AppendUint32(k, t.Size)
	for _, mb := range p.m.MembersOf(t) {
		for _, v := range [...]uint32{mb.ByteOffset, mb.BitOffset, mb.ByteSize, mb.BitfieldSize, mb.BitSize, uint32(mb.BitfieldOffset)} {
			k = binary.LittleEndian.AppendUint32(k, v)
		}
	}
	return string(k)
}

// packableInfo is print_packable_info: name, size, reorganized size and
// savings; an anonymous struct goes by its first typedef's name, else by
// where it was declared.
func (p *Printer) packableInfo(t *Type, id uint32) {
	sep := string(p.opt.Separator)
	newSize := p.packedSize[id]
	name := t.Name
	if name == "" {
		if td := p.firstTypedefOf(id); td != nil {
			name = td.Name
		}
	}
	if name != "" {
		p.str(name)
	} else {
		var d DeclInfo
		if p.m.Decl != nil {
			d = p.m.Decl[id]
		}
		p.str(orEmptyName(d.File) + "(")
		p.uint(uint64(d.Line))
		p.str(")")
	}
	for _, v := range [...]uint64{uint64(t.Size), uint64(newSize), uint64(t.Size) - uint64(newSize)} {
		p.str(sep)
		p.int(int64(v))
	}
	p.byte1('\n')
}
