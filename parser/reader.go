package parser

import (
	"bytes"
	"errors"
	"io"
)

// MaxLineBytes is how much of one physical line oomdoc keeps. A longer line
// (a 100 MB progress dump with no newline) keeps its first MaxLineBytes
// bytes and its last tailBytes bytes; the middle is skipped without being
// buffered, so memory stays flat whatever the input.
const MaxLineBytes = 64 << 10

// tailBytes is how much of the end of an over-long line is kept: an OOM
// message printed after a long run of \r progress updates sits at the end.
const tailBytes = 16 << 10

// blockSize is how much input is read, and scanned for anchors, at a time.
// liveBlocks times it is most of oomdoc's resident memory on a large log
// (issue 11 asks for a peak of 16 MiB at most).
const blockSize = 1 << 20

// longLineSize is how long a line may run without a newline before it is
// read as an over-long line, its head and tail kept (longLine). A buffer
// grows to it only when a line does not end within a block; at 2 MiB (it
// was 4 before three blocks were alive at once) a log of multi-megabyte
// lines peaks about where it did with one buffer (29.8 MiB against 25.5
// for 1.5–1.8 MB lines; 28.5 against 31.5 for 3 MB lines, now kept as head
// and tail).
const longLineSize = 2 << 20

// blockReader yields the input as blocks of whole lines, in bounded
// memory: liveBlocks buffers of about blockSize + MaxLineBytes (the
// blocks in use and the one being read), each growing to longLineSize +
// MaxLineBytes once a line has run longer than a block, whatever the
// input — about 3 MiB on a log of ordinary lines, at most about 6 MiB.
type blockReader struct {
	r     io.Reader
	buf   []byte
	older [liveBlocks - 1][]byte // the buffers of the blocks returned before, oldest first, or nil
	n     int                    // bytes in buf
	start int                    // where the unreturned data begins
	eof   bool
	err   error
	long  [liveBlocks][]byte // synthesised over-long lines, used in turn
	at    int                // the long line in use
	// lastLong is set when the block returned last was long[at]
	lastLong bool
}

// liveBlocks is how many of the blocks next returned stay valid: the
// scanner's, the prefilter's and the one being read (preparedBlocks).
const liveBlocks = 3

func newBlockReader(r io.Reader) *blockReader {
	// Start small: a pasted log fits in 128 KiB; the buffer grows to its
	// full size only when the input is larger.
	return &blockReader{r: r, buf: make([]byte, 128<<10)}
}

// fill reads until buf holds at least want bytes from start, or input ends.
func (b *blockReader) fill(want int) {
	if b.start > 0 {
		b.n = copy(b.buf, b.buf[b.start:b.n])
		b.start = 0
	}
	for b.n < want && !b.eof && b.err == nil {
		if b.n == len(b.buf) && len(b.buf) < want+MaxLineBytes {
			grown := make([]byte, want+MaxLineBytes)
			copy(grown, b.buf[:b.n])
			b.buf = grown
		}
		k, err := b.r.Read(b.buf[b.n:])
		b.n += k
		switch {
		case errors.Is(err, io.EOF):
			b.eof = true
		case err != nil:
			b.err = err
		case k == 0:
			// a reader that returns 0, nil: try again (io.Reader allows it)
		}
	}
}

// next returns the next block: one or more whole lines, each ending in
// "\n" except perhaps the input's last. The block stays valid until the
// third call after this one (liveBlocks), so that a block can be read
// while the one before is prefiltered and the one before that scanned
// (preparedBlocks). ok is false at the end of input or after a read error.
func (b *blockReader) next() (block []byte, ok bool) {
	if b.done() {
		return nil, false
	}
	b.flip()
	b.at = (b.at + 1) % liveBlocks
	b.lastLong = false
	// A block ends at the last newline in blockSize bytes; a line that runs
	// past them is read on, up to longLineSize, for its end.
	for _, want := range [...]int{blockSize, longLineSize} {
		b.fill(want)
		data := b.buf[b.start:b.n]
		if len(data) == 0 {
			return nil, false
		}
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			b.start += i + 1
			return data[:i+1], true
		}
		if b.eof || b.err != nil {
			b.start = b.n
			return data, true
		}
	}
	// No newline in longLineSize bytes: an over-long line.
	b.lastLong = true
	return b.longLine(), true
}

// done reports whether every byte of the input has been returned.
func (b *blockReader) done() bool {
	return (b.eof || b.err != nil) && b.start == b.n
}

// flip moves the data not yet returned to the oldest buffer, whose block
// is no longer in use, and reads on there, so that the blocks returned
// last are not overwritten by the next one. A reader that has returned
// nothing yet keeps its buffer, and the others are allocated as flips
// first need them, which a log that fits in one read never does. After an
// over-long line the current buffer holds none of the returned block (it
// is in long) and is compacted in place.
func (b *blockReader) flip() {
	if b.start == 0 {
		return
	}
	if b.lastLong {
		b.n = copy(b.buf, b.buf[b.start:b.n])
		b.start = 0
		return
	}
	oldest := b.older[0]
	copy(b.older[:], b.older[1:])
	b.older[len(b.older)-1] = b.buf
	if len(oldest) < len(b.buf) {
		oldest = make([]byte, len(b.buf))
	}
	b.n = copy(oldest, b.buf[b.start:b.n])
	b.buf, b.start = oldest, 0
}

// longLine keeps the head and the tail of a line longer than the buffer,
// reading past its middle without storing it. Head and tail are joined by
// "\r" so that the tail (where a failure printed after progress output
// sits) is read as its own segment.
func (b *blockReader) longLine() []byte {
	head := append(b.long[b.at][:0], b.buf[b.start:b.start+MaxLineBytes]...)
	tail := append([]byte(nil), b.buf[b.n-tailBytes:b.n]...)
	b.start, b.n = 0, 0
	for {
		b.fill(blockSize)
		data := b.buf[:b.n]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			tail = appendTail(tail, data[:i])
			b.start = i + 1
			break
		}
		tail = appendTail(tail, data)
		b.start = b.n
		if b.eof || b.err != nil {
			break
		}
	}
	line := append(append(append(head, '\r'), tail...), '\n')
	b.long[b.at] = line[:0]
	return line
}

// appendTail keeps the last tailBytes of tail+more.
func appendTail(tail, more []byte) []byte {
	if len(more) >= tailBytes {
		return append(tail[:0], more[len(more)-tailBytes:]...)
	}
	tail = append(tail, more...)
	if len(tail) > tailBytes {
		tail = append(tail[:0], tail[len(tail)-tailBytes:]...)
	}
	return tail
}

// Err returns the read error that stopped the reader, or nil at a clean end.
func (b *blockReader) Err() error { return b.err }
