package die

import (
	"bytes"
	"testing"

	"github.com/gobtf/gobtf/internal/dwarf"
)

// testKeep is the filter checkFilter sets: it keeps the unit DIEs, the DIEs
// with an even tag, and those whose parent's tag is 3 modulo 4 (so that the
// parent's tag decides for about a quarter of the others).
func testKeep(tag, parent dwarf.Tag, depth int) bool {
	return depth == 0 || tag%2 == 0 || parent%4 == 3
}

// testFixed tells the tags for which testKeep decides by the tag alone
// below the unit DIE: the even ones.
func testFixed(tag dwarf.Tag) bool { return tag%2 == 0 }

// checkFilter walks every unit of d without a filter and with testKeep
// (Reader.SetFilter), the latter with and without SetDropLeaves, and with
// verdicts cached by testFixed: the walks must meet the same DIEs (offset,
// tag, depth, children) in the same order, but for the filtered-out DIEs
// without children, which dropping leaves out; kept DIEs with the same
// attributes and filtered ones with none. Without the cache, every call of
// the filter is checked against the DIE the full walk sees, parent tag
// included.
func checkFilter(t *testing.T, d *Data) {
	t.Helper()
	for _, cfg := range []struct{ drop, cache bool }{{false, false}, {true, false}, {true, true}} {
		drop := cfg.drop
		all, some := d.NewReader(), d.NewReader()
		var parents []dwarf.Tag // the full walk's open DIEs, by depth
		// The filter is called once per DIE, in order, on DIEs the full
		// walk has met already: pending holds what it must be given.
		type call struct {
			tag, parent dwarf.Tag
			depth       int
		}
		var pending []call
		fixed := testFixed
		if !cfg.cache {
			fixed = nil
		}
		some.SetFilter(func(tag, parent dwarf.Tag, depth int) bool {
			if cfg.cache {
				return testKeep(tag, parent, depth)
			}
			if len(pending) == 0 || pending[0] != (call{tag, parent, depth}) {
				t.Fatalf("filter given tag %#x parent %#x depth %d, want %+v", tag, parent, depth, pending[:min(1, len(pending))])
			}
			pending = pending[1:]
			return testKeep(tag, parent, depth)
		}, fixed)
		some.SetDropLeaves(drop)
		var ea, es Entry
		kept, skipped, dropped, nUnits := 0, 0, 0, 0
		for _, units := range [][]Unit{d.Units(), d.TypeUnits()} {
			for i := range units {
				all.Seek(&units[i])
				some.Seek(&units[i])
				parents, pending = parents[:0], pending[:0]
				for {
					// The full walk goes first, so that parents holds
					// the DIE's ancestors when the filter runs.
					oka, erra := all.Next(&ea)
					if erra != nil {
						t.Fatalf("unit %#x: %v", units[i].Offset, erra)
					}
					var parent dwarf.Tag
					if oka {
						parents = parents[:ea.Depth]
						if ea.Depth > 0 && ea.Depth <= len(some.parents) {
							parent = parents[ea.Depth-1] // else untracked: 0
						}
						if ea.Children {
							parents = append(parents, ea.Tag)
						}
						pending = append(pending, call{ea.Tag, parent, ea.Depth})
						if ea.Depth > 0 && !ea.Children && !testKeep(ea.Tag, parent, ea.Depth) {
							skipped++
							if drop {
								dropped++
								continue
							}
						}
					}
					oks, errs := some.Next(&es)
					if errs != nil {
						t.Fatalf("unit %#x: filtered walk: %v", units[i].Offset, errs)
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
					if !testKeep(ea.Tag, parent, ea.Depth) {
						if ea.Children {
							skipped++
						}
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
		if drop && skipped > 0 && dropped == 0 {
			t.Fatalf("dropping leaves: none of the %d DIEs filtered out was a leaf", skipped)
		}
	}
}
