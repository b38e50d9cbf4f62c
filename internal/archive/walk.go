// Package archive minimizes a whole tree of kernels' BTF for a set of CO-RE
// BPF objects, as "gobtf gen min_core_btf --archive" does: BTFHub's
// archive layout (archive/<distro>/<version>/<arch>/<kernel>.btf.tar.xz)
// in, the same layout of minimized <kernel>.btf files out.
//
// Each kernel is read into memory (decompressed there, a tar read there:
// nothing is extracted to disk), minimized by package core exactly as the
// one-kernel command minimizes a file, on Options.Jobs goroutines, each
// holding one kernel at a time, so that memory depends on the number of
// jobs and not on the number of kernels. Outputs are written in the
// tree's order by one writer: an output byte-identical to one written
// before is a hard link to it (a symbolic link where the file system
// refuses hard links), and an output already there with the right bytes
// (and links) is left alone, so that a second run writes nothing.
package archive

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Suffixes are the file names Walk takes for kernels' BTF, longest first:
// BTFHub's tar, xz-compressed, of one raw BTF file, and a raw BTF file
// (or an ELF file with a .BTF section) as it is or compressed whole.
var Suffixes = []string{".btf.tar.xz", ".btf.xz", ".btf.gz", ".btf.zst", ".btf"}

// Entry is one kernel's BTF file in the source tree.
type Entry struct {
	// Path is the file's path (under the source directory).
	Path string
	// Rel is Path relative to the source directory, with slashes.
	Rel string
	// Kernel is the file's name without its suffix: the kernel's release.
	Kernel string
	// Out is the output's path relative to the output directory, with
	// slashes: Rel's directory and Kernel + ".btf".
	Out string
}

// kernelName returns name without the first of Suffixes it ends with, and
// whether it ends with one.
func kernelName(name string) (string, bool) {
	for _, s := range Suffixes {
		if k, ok := strings.CutSuffix(name, s); ok && k != "" {
			return k, true
		}
	}
	return "", false
}

// Walk lists the kernels' BTF files under src, in lexical order of their
// relative paths, skipping the directory skip (the output directory, when
// it lies inside src; "" for none). Symbolic links to regular files are
// taken, links to directories are not followed. Two files that would write
// the same output (k.btf and k.btf.xz side by side) are an error.
func Walk(src, skip string) ([]Entry, error) {
	var skipInfo os.FileInfo
	if skip != "" {
		skipInfo, _ = os.Stat(skip)
	}
	var out []Entry
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipInfo != nil && path != src {
				if fi, err := d.Info(); err == nil && os.SameFile(fi, skipInfo) {
					return filepath.SkipDir
				}
			}
			return nil
		}
		kernel, ok := kernelName(d.Name())
		if !ok {
			return nil
		}
		if !d.Type().IsRegular() {
			fi, err := os.Stat(path)
			if err != nil || !fi.Mode().IsRegular() {
				return nil // a dangling link, a FIFO, a device
			}
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		dir := ""
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			dir = rel[:i+1]
		}
		out = append(out, Entry{Path: path, Rel: rel, Kernel: kernel, Out: dir + kernel + ".btf"})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking %s: %w", src, err)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Rel, b.Rel) })
	seen := make(map[string]string, len(out))
	for _, e := range out {
		if first, ok := seen[e.Out]; ok {
			return nil, fmt.Errorf("%s and %s would both be minimized into %s", first, e.Rel, e.Out)
		}
		seen[e.Out] = e.Rel
	}
	return out, nil
}
