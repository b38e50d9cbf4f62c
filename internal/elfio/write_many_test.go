package elfio

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// manySections assembles an object with exactly total sections (counting
// section 0) from generated assembler: k one-byte sections .s0 ... plus
// what the assembler adds (.text, .data, .bss, .symtab, .strtab,
// .shstrtab, and .symtab_shndx once a symbol's section index passes
// 0xff00). The global symbol in the last section makes the symbol table
// use the extended index table.
func manySections(t *testing.T, dir string, total int) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("skipping: gcc not installed")
	}
	build := func(k int) (string, int) {
		var b strings.Builder
		for i := range k {
			fmt.Fprintf(&b, ".section .s%d,\"a\",@progbits\n.byte %d\n", i, i&0xff)
		}
		b.WriteString(".globl last\nlast: .byte 0\n")
		src := filepath.Join(dir, "many.s")
		if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		obj := filepath.Join(dir, fmt.Sprintf("many-%d.o", total))
		if msg, err := exec.Command("gcc", "-c", src, "-o", obj).CombinedOutput(); err != nil {
			t.Skipf("skipping: gcc cannot assemble %d sections: %v %s", k, err, msg)
		}
		f, err := elf.Open(obj)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return obj, len(f.Sections)
	}
	k := total - 8
	obj, n := build(k)
	if n != total {
		obj, n = build(k + total - n)
	}
	if n != total {
		t.Fatalf("generated object has %d sections, want %d", n, total)
	}
	return obj
}

// TestWriteManySections covers the extended section numbering: inputs
// just below, at and above SHN_LORESERVE (0xff00) sections, including the
// step where adding sections makes the count reach 0xff00.
func TestWriteManySections(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in short mode: assembles objects with 65,000+ sections")
	}
	btf := NewSection{Name: ".BTF", Data: testData(4096, 3)}
	base := NewSection{Name: ".BTF.base", Data: testData(100, 4), Align: 4}
	cases := []struct {
		name     string
		total    int
		secs     []NewSection
		extended bool // the result needs section 0's counts
		xindexIn bool // the input already has e_shstrndx == SHN_XINDEX
	}{
		{"below: 0xfefe+1", 0xfefe, []NewSection{btf}, false, false},
		{"crossing: 0xfeff+1", 0xfeff, []NewSection{btf}, true, false},
		{"crossing: 0xfefe+2", 0xfefe, []NewSection{btf, base}, true, false},
		{"above: 0xff10+2", 0xff10, []NewSection{btf, base}, true, true},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := manySections(t, dir, c.total)
			out := writeAndCheck(t, in, c.secs, "-h", "-S", "-l", "-s", "-W")
			fd, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer fd.Close()
			var hdr [64]byte
			if _, err := fd.ReadAt(hdr[:], 0); err != nil {
				t.Fatal(err)
			}
			shnum := int(hdr[60]) | int(hdr[61])<<8
			shstrndx := int(hdr[62]) | int(hdr[63])<<8
			if c.extended != (shnum == 0) {
				t.Errorf("e_shnum = %d; extended numbering expected: %v", shnum, c.extended)
			}
			if c.xindexIn != (shstrndx == shnXindex) {
				t.Errorf("e_shstrndx = %#x; SHN_XINDEX expected: %v", shstrndx, c.xindexIn)
			}
			// readelf's own count, from its header dump.
			msg, err := exec.Command("readelf", "-h", out).Output()
			if err != nil {
				t.Skipf("skipping readelf count: %v", err)
			}
			want := c.total + len(c.secs)
			if !strings.Contains(string(msg), fmt.Sprint(want)) {
				t.Errorf("readelf -h does not report %d sections:\n%s", want, msg)
			}
		})
	}
}
