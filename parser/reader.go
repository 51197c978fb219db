package parser

import (
	"bufio"
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

// lineReader yields physical lines (without their "\n" or "\r\n") with
// 1-based numbers, in bounded memory.
type lineReader struct {
	r    *bufio.Reader
	no   int
	buf  []byte
	tail []byte
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line and its number; the slice is valid until the
// following call. ok is false at the end of input or on a read error, which
// err then reports.
func (lr *lineReader) next() (line []byte, no int, ok bool) {
	if lr.err != nil {
		return nil, 0, false
	}
	lr.buf = lr.buf[:0]
	lr.tail = lr.tail[:0]
	long := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		switch {
		case len(lr.buf)+len(chunk) <= MaxLineBytes:
			lr.buf = append(lr.buf, chunk...)
		default:
			if room := MaxLineBytes - len(lr.buf); room > 0 {
				lr.buf = append(lr.buf, chunk[:room]...)
				chunk = chunk[room:]
			}
			long = true
			lr.tail = append(lr.tail, chunk...)
			if len(lr.tail) > 2*tailBytes {
				lr.tail = append(lr.tail[:0], lr.tail[len(lr.tail)-tailBytes:]...)
			}
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != io.EOF {
			lr.err = err
		}
		if len(lr.buf) == 0 {
			if lr.err == nil {
				lr.err = io.EOF
			}
			return nil, 0, false
		}
		break
	}
	if long {
		t := lr.tail
		if len(t) > tailBytes {
			t = t[len(t)-tailBytes:]
		}
		// Join head and tail with a \r so the tail is read as its own segment.
		lr.buf = append(append(lr.buf, '\r'), t...)
	}
	lr.no++
	line = bytes.TrimSuffix(lr.buf, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, lr.no, true
}

// Err returns the read error that stopped the reader, or nil at a clean end.
func (lr *lineReader) Err() error {
	if lr.err == io.EOF {
		return nil
	}
	return lr.err
}
