package elfio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// NewSection is a section for WriteSections to add to an ELF file, or whose
// contents to replace when the file already has a section of that name.
type NewSection struct {
	// Name is the section name, e.g. ".BTF" or ".BTF.base".
	Name string
	// Data is the section's contents.
	Data []byte
	// Align is the section's sh_addralign and the alignment of its file
	// offset; 0 means 1 (what llvm-objcopy --add-section gives .BTF).
	Align uint64
	// MayMove lets an allocated section be replaced by data of another
	// size. Smaller data is written in place, the rest of the old bytes
	// zeroed and the section's size reduced, so it stays inside the segment
	// that maps it. Larger data goes to the end of the file and the section
	// header points there, keeping the section's address and flags, while
	// the original bytes stay where the program headers map them. That is
	// what rewriting .BTF of a finished vmlinux (whose .BTF is allocated)
	// needs, as pahole allows it; for other sections it is refused.
	MayMove bool
}

// WriteSections adds each section of secs to the ELF file at path, or
// replaces the contents of the section of that name, the way
// `llvm-objcopy --add-section NAME=FILE` does for pahole -J, without any
// external tool.
//
// A new section is a non-allocated SHT_PROGBITS section with flags 0,
// appended at the end of the section header table so that no existing
// section index changes. A replaced section keeps its index and name; its
// type becomes SHT_PROGBITS. An allocated section (SHF_ALLOC, or inside a
// loadable segment) is rewritten in place when the data has exactly its
// size; data of another size is refused unless the section MayMove.
//
// Layout: every byte the file's headers still refer to (the ELF header, the
// program header table, every segment, every kept section) stays at its
// offset; the new sections' data, the grown section name table and a new
// section header table are written after them. Bytes at the end of the file
// that only the old section header table, the old name table or a replaced
// section used (and zero padding) are dropped, so writing the same sections
// again gives the same file; any other trailing bytes (such as an appended
// module signature) are kept. Counts of 0xff00 sections or more use the
// extended numbering held in section 0.
//
// The file is replaced atomically: the new contents are written to a
// temporary file in the same directory (an unnamed O_TMPFILE on Linux),
// synced, given the original's mode (and owner, when running as root) and
// renamed over the target. On any error the target is untouched and no
// temporary file is left. Errors name the file, and the section and offset
// concerned.
func WriteSections(path string, secs []NewSection) error {
	if err := checkNewSections(secs); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	return writeSections(path, src, secs)
}

// WriteSections is the package-level WriteSections for the file f was
// opened from (by Open), which it reads again through the descriptor Open
// kept: the file is not opened a second time, and may have been unmapped
// (Unmap).
func (f *File) WriteSections(secs []NewSection) error {
	if err := checkNewSections(secs); err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	if f.fd == nil {
		return fmt.Errorf("%s: not opened by elfio.Open (or closed)", f.name)
	}
	return writeSections(f.name, f.fd, secs)
}

// writeSections writes secs into the file at path, open as src.
func writeSections(path string, src *os.File, secs []NewSection) error {
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	f, err := readELF(src, uint64(fi.Size()))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	p, err := makePlan(f, src, secs)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return replaceFile(path, fi, func(dst *os.File) error { return p.write(dst, src) })
}

// checkNewSections rejects empty, NUL-containing and duplicate names and
// alignments that are not powers of two.
func checkNewSections(secs []NewSection) error {
	seen := make(map[string]bool, len(secs))
	for _, s := range secs {
		switch {
		case s.Name == "":
			return errors.New("new section has an empty name")
		case strings.IndexByte(s.Name, 0) >= 0:
			return fmt.Errorf("new section name %q contains a NUL byte", s.Name)
		case seen[s.Name]:
			return fmt.Errorf("section %s is given twice", s.Name)
		case s.Align&(s.Align-1) != 0:
			return fmt.Errorf("section %s: alignment %d is not a power of two", s.Name, s.Align)
		}
		seen[s.Name] = true
	}
	return nil
}

// patch is data written over the copied prefix at a fixed offset.
type patch struct {
	off  uint64
	data []byte
}

// plan is the complete new layout: the original's first keep bytes, the
// in-place patches, then the tail pieces at increasing offsets (the gaps
// between them are zero padding), ending with the section header table.
type plan struct {
	f     *elfFile
	keep  uint64
	patch []patch
	tail  []patch
	ehdr  []byte
}

// makePlan decides the new layout of f for secs. r reads the original file
// (only to check that trailing bytes about to be dropped are padding).
func makePlan(f *elfFile, r io.ReaderAt, secs []NewSection) (*plan, error) {
	p := &plan{f: f}
	hdrs := append([]shdr(nil), f.secs...)
	strtab := append([]byte(nil), f.shstrtab...)
	replaced := make(map[int]bool)
	type placed struct {
		idx  int
		data []byte
	}
	var appended []placed
	for _, s := range secs {
		align := max(s.Align, 1)
		idx, err := f.sectionIndex(s.Name)
		if err != nil {
			return nil, err
		}
		if idx < 0 {
			off := nameOffset(&strtab, s.Name)
			hdrs = append(hdrs, shdr{name: off, typ: shtProgbits, align: align})
			appended = append(appended, placed{len(hdrs) - 1, s.Data})
			continue
		}
		old := &f.secs[idx]
		if err := f.checkReplace(idx); err != nil {
			return nil, err
		}
		if old.flags&shfAlloc != 0 || f.inLoadSegment(old) {
			if uint64(len(s.Data)) == old.size && old.typ != shtNobits {
				p.patch = append(p.patch, patch{old.off, s.Data})
				continue
			}
			if !s.MayMove {
				return nil, fmt.Errorf("section %s (index %d) at offset %#x is allocated (loaded at run time); it cannot move, so it can only be replaced by data of its own size (%d bytes, not %d)",
					s.Name, idx, old.off, old.size, len(s.Data))
			}
			if uint64(len(s.Data)) < old.size && old.typ != shtNobits {
				// Shrunk in place.
				data := append(append([]byte(nil), s.Data...), make([]byte, old.size-uint64(len(s.Data)))...)
				p.patch = append(p.patch, patch{old.off, data})
				hdrs[idx].size = uint64(len(s.Data))
				continue
			}
			// Moved: the segment keeps the old bytes (keepEnd covers
			// every segment), the header points at the new ones.
		}
		h := &hdrs[idx]
		h.typ, h.flags, h.size, h.align, h.entsize = shtProgbits, old.flags&^shfCompressed, uint64(len(s.Data)), align, 0
		replaced[idx] = true
		appended = append(appended, placed{idx, s.Data})
	}

	p.keep = f.keepEnd(replaced)
	if err := p.dropTail(r, replaced); err != nil {
		return nil, err
	}

	// Lay out the tail: section data, the name table, the header table.
	cur := p.keep
	for _, a := range appended {
		h := &hdrs[a.idx]
		cur = alignUp(cur, h.align)
		h.off, h.size = cur, uint64(len(a.data))
		p.tail = append(p.tail, patch{cur, a.data})
		cur += h.size
	}
	str := &hdrs[f.shstrndx]
	str.off, str.size = cur, uint64(len(strtab))
	p.tail = append(p.tail, patch{cur, strtab})
	cur += str.size
	wordSize := uint64(4)
	if f.is64 {
		wordSize = 8
	}
	shoff := alignUp(cur, wordSize)
	n := len(hdrs)
	if n >= shnLoreserve {
		hdrs[0].size = uint64(n)
	}
	tab := make([]byte, n*f.shdrSize())
	for i := range hdrs {
		f.encodeShdr(tab[i*f.shdrSize():], &hdrs[i])
	}
	p.tail = append(p.tail, patch{shoff, tab})
	end := shoff + uint64(len(tab))
	if !f.is64 && end > 1<<32-1 {
		return nil, fmt.Errorf("the new file would be %d bytes, too large for a 32-bit ELF file", end)
	}

	p.ehdr = append([]byte(nil), f.ehdr...)
	_, shoffAt, _, _, _, shnumAt, _ := f.ehdrOffsets()
	f.putWord(p.ehdr[shoffAt:], shoff)
	if n >= shnLoreserve {
		f.order.PutUint16(p.ehdr[shnumAt:], 0)
	} else {
		f.order.PutUint16(p.ehdr[shnumAt:], uint16(n))
	}
	p.patch = append(p.patch, patch{0, p.ehdr})
	return p, nil
}

// sectionIndex returns the index of the section called name, or -1.
func (f *elfFile) sectionIndex(name string) (int, error) {
	idx := -1
	for i, n := range f.names {
		if i == 0 || n != name {
			continue
		}
		if idx >= 0 {
			return 0, fmt.Errorf("section %s: the file has more than one (indexes %d and %d)", name, idx, i)
		}
		idx = i
	}
	return idx, nil
}

// checkReplace rejects replacing sections whose contents other headers
// interpret: the name table, non-PROGBITS/NOBITS sections, and sections
// that relocation sections apply to.
func (f *elfFile) checkReplace(idx int) error {
	s := &f.secs[idx]
	name := f.names[idx]
	if idx == f.shstrndx {
		return fmt.Errorf("section %s (index %d) is the section name table; it cannot be replaced", name, idx)
	}
	if s.typ != shtProgbits && s.typ != shtNobits {
		return fmt.Errorf("section %s (index %d) at offset %#x has type %#x; only SHT_PROGBITS or SHT_NOBITS sections can be replaced", name, idx, s.off, s.typ)
	}
	for i := range f.secs {
		r := &f.secs[i]
		if (r.typ == shtRel || r.typ == shtRela) && r.info == uint32(idx) {
			return fmt.Errorf("section %s (index %d) has relocations in section %s (index %d); replacing it would leave them pointing into the new data", name, idx, f.names[i], i)
		}
	}
	return nil
}

// inLoadSegment reports whether s's file bytes overlap a segment's.
func (f *elfFile) inLoadSegment(s *shdr) bool {
	end := s.fileEnd()
	if end == 0 {
		return false
	}
	for _, ph := range f.phdrs {
		if ph.typ == 1 /* PT_LOAD */ && ph.filesz > 0 && s.off < ph.off+ph.filesz && ph.off < end {
			return true
		}
	}
	return false
}

// keepEnd is the end of the last byte the new file's headers still refer to
// at its old offset: the ELF header, the program headers, every segment and
// every section except the replaced ones and the name table (which move).
func (f *elfFile) keepEnd(replaced map[int]bool) uint64 {
	end := uint64(f.ehdrSize())
	if f.phnum > 0 {
		end = max(end, f.phoff+uint64(f.phnum*f.phdrSize()))
	}
	for _, ph := range f.phdrs {
		end = max(end, ph.off+ph.filesz)
	}
	for i := range f.secs {
		if i != f.shstrndx && !replaced[i] {
			end = max(end, f.secs[i].fileEnd())
		}
	}
	return end
}

// dropTail decides whether the bytes after p.keep can go: they can when all
// of them belong to the old section header table, the old name table or a
// replaced section, or are zero padding. Otherwise the whole original is kept.
func (p *plan) dropTail(r io.ReaderAt, replaced map[int]bool) error {
	f := p.f
	type span struct{ lo, hi uint64 }
	spans := []span{{f.shoff, f.shoff + uint64(f.shnum*f.shentsize)}}
	if e := f.secs[f.shstrndx].fileEnd(); e != 0 {
		spans = append(spans, span{f.secs[f.shstrndx].off, e})
	}
	for i := range replaced {
		if e := f.secs[i].fileEnd(); e != 0 {
			spans = append(spans, span{f.secs[i].off, e})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	cur := p.keep
	buf := make([]byte, 64<<10)
	checkZero := func(lo, hi uint64) (bool, error) {
		for lo < hi {
			n := min(hi-lo, uint64(len(buf)))
			if _, err := r.ReadAt(buf[:n], int64(lo)); err != nil {
				return false, fmt.Errorf("reading offset %#x: %w", lo, err)
			}
			if !allZero(buf[:n]) {
				return false, nil
			}
			lo += n
		}
		return true, nil
	}
	for _, s := range spans {
		if s.hi <= cur {
			continue
		}
		if s.lo > cur {
			ok, err := checkZero(cur, min(s.lo, f.size))
			if err != nil || !ok {
				if !ok {
					p.keep = f.size
				}
				return err
			}
		}
		cur = max(cur, s.hi)
	}
	if cur < f.size {
		ok, err := checkZero(cur, f.size)
		if err != nil {
			return err
		}
		if !ok {
			p.keep = f.size
		}
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// nameOffset returns the offset of name in the string table, appending it
// when no existing string (or string suffix) spells it.
func nameOffset(tab *[]byte, name string) uint32 {
	want := append([]byte(name), 0)
	if i := bytes.Index(*tab, want); i > 0 {
		return uint32(i)
	}
	if len(*tab) == 0 {
		*tab = append(*tab, 0)
	}
	off := uint32(len(*tab))
	*tab = append(*tab, want...)
	return off
}

func alignUp(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) &^ (a - 1)
}

// write fills dst, an empty file, with the planned contents: the original's
// first p.keep bytes copied from src (copy_file_range on Linux), then the
// tail, then the patches over the copied part.
func (p *plan) write(dst, src *os.File) error {
	// src was just opened: its offset is 0. A LimitedReader over the
	// *os.File lets io.Copy use copy_file_range instead of a user buffer.
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(dst, &io.LimitedReader{R: src, N: int64(p.keep)})
	if err != nil {
		return fmt.Errorf("copying the first %d bytes: %w", p.keep, err)
	}
	if uint64(n) != p.keep {
		return fmt.Errorf("copying the first %d bytes: the file shrank to %d bytes while being read", p.keep, n)
	}
	hook("copied")
	w := bufio.NewWriterSize(dst, 1<<20)
	cur := p.keep
	var zeros [64]byte
	for _, t := range p.tail {
		for cur < t.off {
			k := min(t.off-cur, uint64(len(zeros)))
			if _, err := w.Write(zeros[:k]); err != nil {
				return fmt.Errorf("writing padding at offset %#x: %w", cur, err)
			}
			cur += k
		}
		if _, err := w.Write(t.data); err != nil {
			return fmt.Errorf("writing %d bytes at offset %#x: %w", len(t.data), t.off, err)
		}
		cur += uint64(len(t.data))
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing the new sections after offset %#x: %w", p.keep, err)
	}
	for _, pt := range p.patch {
		if _, err := dst.WriteAt(pt.data, int64(pt.off)); err != nil {
			return fmt.Errorf("writing %d bytes at offset %#x: %w", len(pt.data), pt.off, err)
		}
	}
	hook("written")
	return nil
}
