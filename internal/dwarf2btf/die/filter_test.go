package die

import (
	"bytes"
	"testing"
)

// checkFilter walks every unit of d twice, without a filter and with one
// (Reader.SetFilter) that keeps the unit DIEs and the DIEs with an even tag:
// both walks must meet the same DIEs (offset, tag, depth, children) in the
// same order, kept DIEs with the same attributes and filtered ones with none.
func checkFilter(t *testing.T, d *Data) {
	t.Helper()
	all, some := d.NewReader(), d.NewReader()
	some.SetFilter(func(tag uint32, depth int) bool { return depth == 0 || tag%2 == 0 })
	var ea, es Entry
	kept, skipped, nUnits := 0, 0, 0
	for _, units := range [][]Unit{d.Units(), d.TypeUnits()} {
		for i := range units {
			all.Seek(&units[i])
			some.Seek(&units[i])
			for {
				oka, erra := all.Next(&ea)
				oks, errs := some.Next(&es)
				if erra != nil || errs != nil {
					t.Fatalf("unit %#x: errors %v and %v", units[i].Offset, erra, errs)
				}
				if oka != oks {
					t.Fatalf("unit %#x: the filtered walk ends %v, the full one %v", units[i].Offset, oks, oka)
				}
				if !oka {
					break
				}
				if ea.Depth == 0 {
					nUnits++
				}
				if ea.Offset != es.Offset || ea.Tag != es.Tag || ea.Depth != es.Depth || ea.Children != es.Children {
					t.Fatalf("DIE %#x tag %#x depth %d: filtered walk has %#x tag %#x depth %d", ea.Offset, ea.Tag, ea.Depth, es.Offset, es.Tag, es.Depth)
				}
				if es.Depth != 0 && es.Tag%2 != 0 {
					skipped++
					if len(es.Fields) != 0 {
						t.Fatalf("DIE %#x: filtered out, yet %d fields", es.Offset, len(es.Fields))
					}
					continue
				}
				kept++
				if len(ea.Fields) != len(es.Fields) {
					t.Fatalf("DIE %#x: %d fields, filtered walk %d", ea.Offset, len(ea.Fields), len(es.Fields))
				}
				for k := range ea.Fields {
					a, s := &ea.Fields[k], &es.Fields[k]
					if a.Attr != s.Attr || a.Form != s.Form || a.Val != s.Val || !bytes.Equal(a.Data, s.Data) {
						t.Fatalf("DIE %#x field %d: %+v, filtered walk %+v", ea.Offset, k, a, s)
					}
				}
			}
		}
	}
	// (Files with skeleton units only, split DWARF's, have nothing else.)
	if kept+skipped > nUnits && (kept == nUnits || skipped == 0) {
		t.Fatalf("filter kept %d and skipped %d DIEs: the check needs both", kept, skipped)
	}
}
