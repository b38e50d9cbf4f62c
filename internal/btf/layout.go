package btf

import "encoding/binary"

// The kind layout section.
//
// Since 2026 (bpf-next of March, libbpf 1.8) a BTF blob may carry, after
// its type section, a table that tells for each kind known to the encoder
// how many bytes follow a type's 12-byte header: a fixed part, and a part
// per vlen element. A reader that meets a kind newer than itself can then still step
// over it. The header grows to 32 bytes for it (layout_off and layout_len
// after str_len); a zero layout_len means there is none. pahole writes one
// for a base BTF when asked for the "layout" feature, never for split BTF,
// since the base holds the same table.
//
// The table matters for files gobtf reads: the vmlinux BTF of a kernel
// built that way (/sys/kernel/btf/vmlinux, or the .BTF of its vmlinux) is
// the base of every module built against it. Older kernels (this machine's
// 6.18 among them) refuse a header whose bytes past the 24th are not zero
// ("Unsupported btf_header"), so such BTF loads only into a kernel that
// knows the section, as the kernel it was built for does.

// LayoutHeaderLen is the length of a header with the layout fields.
const LayoutHeaderLen = 32

// KindLayout is one entry of the kind layout section (struct btf_layout):
// the bytes after a type's header of its kind, InfoSize once and ElemSize
// per vlen element. Flags is unused so far and zero.
type KindLayout struct {
	InfoSize uint8
	ElemSize uint8
	Flags    uint16
}

// kindLayoutSize is the size of one KindLayout in a blob.
const kindLayoutSize = 4

// KindLayouts returns the layout table of the kinds this package knows, from
// KindUnknown to MaxKind, as an encoder that knows them writes it. The
// sizes are those trailingWords gives, in bytes.
func KindLayouts() []KindLayout {
	l := make([]KindLayout, MaxKind+1)
	for k := range l {
		fixed, ok := trailingWords(Kind(k), 0)
		if !ok {
			continue // KindUnknown: nothing follows the header
		}
		one, _ := trailingWords(Kind(k), 1)
		l[k] = KindLayout{InfoSize: uint8(4 * fixed), ElemSize: uint8(4 * (one - fixed))}
	}
	return l
}

// Layout returns the Spec's kind layout table, nil when it has none.
func (s *Spec) Layout() []KindLayout { return s.layout }

// SetLayout sets the kind layout table Marshal writes after the types; nil
// writes none. A table makes the header at least LayoutHeaderLen bytes long.
func (s *Spec) SetLayout(l []KindLayout) { s.layout = l }

// layoutSection returns the layout section of a blob whose bytes after the
// header are body, as ParseHeader accepted h; nil when it has none (the
// offset alone may then point anywhere).
func (h Header) layoutSection(body []byte) []byte {
	if h.LayoutLen == 0 {
		return nil
	}
	return body[h.LayoutOff : h.LayoutOff+h.LayoutLen]
}

// decodeLayout reads a layout section of len(b)/4 entries in the given order.
func decodeLayout(b []byte, order binary.ByteOrder) []KindLayout {
	if len(b) == 0 {
		return nil
	}
	l := make([]KindLayout, len(b)/kindLayoutSize)
	for i := range l {
		e := b[kindLayoutSize*i:]
		l[i] = KindLayout{InfoSize: e[0], ElemSize: e[1], Flags: order.Uint16(e[2:])}
	}
	return l
}

// encodeLayout writes l into b, 4 bytes an entry, in the given order.
func encodeLayout(b []byte, l []KindLayout, order binary.ByteOrder) {
	for i, e := range l {
		p := b[kindLayoutSize*i:]
		p[0], p[1] = e.InfoSize, e.ElemSize
		order.PutUint16(p[2:], e.Flags)
	}
}
