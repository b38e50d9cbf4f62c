package prettify

import (
	"errors"
	"fmt"
)

// walkSpec is how records of one -C type are read: pahole's loop in
// prototype__stdio_fprintf_value.
type walkSpec struct {
	size int // the type's size: every record is at least this long

	// sizeof=: the member (offset and size in the record) holding the
	// record's real size; sizeSize 0 for none.
	sizeOff, sizeSize int

	// filter=: records whose member (offset, size) is not Right are
	// left out, before --skip counts them; filterSize 0 for none.
	filterOff, filterSize int
	filterRight           uint64

	skip, count uint32 // --skip, --count (0: no limit)
	sizeBytes   uint64 // --size_bytes or range=: stop once this much was read
}

// record is one record read: buf[:size] (buf may be longer, holding what
// longer records before it left there, as pahole's reused buffer does),
// its real size (sizeof=, which may be shorter than the type, or
// negative, as pahole's int takes it) and where it started (ftell's
// answer, -1 on a pipe).
type record struct {
	buf    []byte
	size   int
	offset int64
}

// errShortRecord is a record whose sizeof= member says it is longer than
// what the input still holds.
type errShortRecord struct{ size int }

func (e errShortRecord) Error() string { return fmt.Sprintf("Couldn't read record: %d bytes", e.size) }

// isShortRecord says whether err is a record cut by the input's end.
func isShortRecord(err error) bool {
	var e errShortRecord
	return errors.As(err, &e)
}

// maxChunk is the most a record's tail is read in one go: a sizeof=
// member may claim more than the input holds, and the buffer grows only
// with what is read.
const maxChunk = 1 << 20

// walk reads records from in until the input ends (a record cut short
// ends it silently, as fread's failure ends pahole's loop), --count
// records were emitted, or --size_bytes were read. emit is called for each
// record that passes the filter and --skip; its record's buf is valid
// until it returns. The error is errShortRecord, for a record whose
// sizeof= tail is cut.
func walk(in *Input, spec *walkSpec, emit func(r *record)) error {
	if spec.size <= 0 {
		return nil // fread of 0 bytes reads no record
	}
	buf := make([]byte, spec.size)
	var readBytes uint64
	skip, n := spec.skip, uint32(0)
	r := record{offset: in.Tell()}
	for in.ReadFull(buf[:spec.size]) {
		real := spec.size
		if spec.sizeSize != 0 {
			real = int(int32(baseValue(buf, spec.sizeOff, spec.sizeSize)))
		}
		if real > spec.size {
			var ok bool
			if buf, ok = readTail(in, buf, spec.size, real); !ok {
				return errShortRecord{real}
			}
		}
		readBytes += uint64(int64(real))
		pass := spec.filterSize == 0 || baseValue(buf, spec.filterOff, spec.filterSize) == spec.filterRight
		if pass && skip > 0 {
			skip--
			pass = false
		}
		if pass {
			r.buf, r.size = buf, real
			emit(&r)
			if n++; spec.count != 0 && n == spec.count {
				return nil
			}
		}
		if readBytes >= spec.sizeBytes {
			return nil
		}
		r.offset = in.Tell()
	}
	return nil
}

// readTail reads buf[from:to] of a record, growing buf (whose bytes past
// from are kept, as realloc keeps them) only as the input provides them.
func readTail(in *Input, buf []byte, from, to int) ([]byte, bool) {
	for from < to {
		end := min(to, from+maxChunk)
		if end > len(buf) {
			buf = append(buf, make([]byte, end-len(buf))...)
		}
		if !in.ReadFull(buf[from:end]) {
			return buf, false
		}
		from = end
	}
	return buf, true
}
