package dedup

// readAhead reads the own types' words into the cache a fixed number of
// types ahead of the struct pass, which visits them in ID order.
//
// Why: the pass goes through the types in ID order, but most of its reads
// follow references: from a struct to its members' types, from a pointer to
// its target, each a jump within the type's unit. The hardware prefetcher
// cannot guess those jumps, so on a kernel nearly every first touch of a
// unit's words was a cache miss. A unit's types are adjacent, though, so
// reading the words in address order a little ahead of the pass turns those
// misses into one sequential stream, which the prefetcher follows. The
// distance must keep the words read ahead in the L2 cache until the pass
// reaches them (readAheadTypes); a distance past it gains little. The
// reference pass does not read ahead: most types are settled by then, it
// reads few of their words, and streaming all of them costs more than the
// misses it saves.
//
// The pass calls it at each check it makes, not at every type: the types
// in between need nothing read (most structs are mapped by an earlier
// check of their unit when their turn comes), and reading ahead in one
// burst right before a walk beats reading a type at a time.
//
// It only reads: the words are never changed by it, and sum exists only so
// that the compiler keeps the loads.
type readAhead struct {
	words, offs []uint32
	pos         uint32 // next word to read: one per 64-byte cache line
	sum         uint32
}

// readAheadTypes is how many types ahead of the pass the words are read.
const readAheadTypes = 3072

// wordsPerLine is the number of type words in a 64-byte cache line.
const wordsPerLine = 16

// upTo is called with the index (ID - firstID) of the own type the pass is
// at; it reads the words up to readAheadTypes types past it.
func (r *readAhead) upTo(i int) {
	j := i + readAheadTypes
	if j >= len(r.offs) {
		return
	}
	for end := r.offs[j]; r.pos < end; r.pos += wordsPerLine {
		r.sum += r.words[r.pos]
	}
}
