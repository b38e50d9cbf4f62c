package cdump

import (
	"strconv"

	"github.com/gobtf/gobtf/internal/btf"
)

// emitEnumDef writes an enum with its values at nesting level lvl. Values
// print signed or unsigned as the kind_flag says; ENUM64 values carry an LL
// or ULL suffix. Value names share the identifier space with typedefs and
// get "___N" suffixes there. As bpftool 7.6 prints it, a 1-byte enum gets
// mode(byte) and an 8-byte one mode(word) (an ENUM64 only if every value
// fits 32 bits), so that the compiler gives it BTF's size; Debian's bpftool
// 7.1 is built with the Linux 6.1 tree's libbpf, which predates these.
func (p *printer) emitEnumDef(id btf.TypeID, t btf.Type, lvl int) {
	p.buf = append(p.buf, "enum"...)
	if t.NameOff() != 0 {
		p.buf = append(p.buf, ' ')
	}
	p.buf = p.appendTypeName(p.buf, id)
	vlen := t.Vlen()
	if vlen == 0 {
		return
	}
	p.buf = append(p.buf, " {"...)
	signed := t.KindFlag()
	is64 := t.Kind() == btf.KindEnum64
	fitsWord := true
	for i := range vlen {
		var nameOff uint32
		var v uint64
		if is64 {
			nameOff, v = t.Enum64Value(i)
			fitsWord = fitsWord && v>>32 == 0
		} else {
			var v32 uint32
			nameOff, v32 = t.EnumValue(i)
			v = uint64(v32)
			if signed {
				v = uint64(int64(int32(v32)))
			}
		}
		name := p.str(nameOff)
		p.buf = append(p.buf, '\n')
		p.buf = append(p.buf, indent(lvl+1)...)
		p.buf = append(p.buf, name...)
		if d := p.idents.count(nameOff); d > 1 {
			p.buf = append(p.buf, "___"...)
			p.buf = strconv.AppendUint(p.buf, uint64(d), 10)
		}
		p.buf = append(p.buf, " = "...)
		if signed {
			p.buf = strconv.AppendInt(p.buf, int64(v), 10)
		} else {
			p.buf = strconv.AppendUint(p.buf, v, 10)
		}
		if is64 {
			if signed {
				p.buf = append(p.buf, "LL"...)
			} else {
				p.buf = append(p.buf, "ULL"...)
			}
		}
		p.buf = append(p.buf, ',')
	}
	p.buf = append(p.buf, '\n')
	p.buf = append(p.buf, indent(lvl)...)
	p.buf = append(p.buf, '}')
	switch {
	case !p.modern:
	case t.Size() == 1:
		p.buf = append(p.buf, " __attribute__((mode(byte)))"...)
	case t.Size() == 8 && p.ptrSz == 8 && (!is64 || fitsWord):
		p.buf = append(p.buf, " __attribute__((mode(word)))"...)
	}
}

// emitEnumFwd writes "enum NAME".
func (p *printer) emitEnumFwd(id btf.TypeID) {
	p.buf = append(p.buf, "enum "...)
	p.buf = p.appendTypeName(p.buf, id)
}
