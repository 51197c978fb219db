package parser

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxInputBytes bounds how much decoded text oomdoc reads from one input.
// An endless device (`/dev/zero` is refused as binary at once, but a FIFO
// fed by `yes` is text) or a decompression bomb would otherwise be read
// forever; past the bound the read stops with ErrInputLimit and the events
// found so far are kept.
const MaxInputBytes = 4 << 30

// maxGzipDepth is how many gzip layers are undone: a log compressed twice
// is plausible, a thousand layers is a memory attack (each costs ~70 KiB).
const maxGzipDepth = 2

// headBytes is how much of an input is inspected to decide what it is.
const headBytes = 8 << 10

// ErrInputLimit reports an input that was read up to MaxInputBytes and no
// further.
var ErrInputLimit = fmt.Errorf("read the first %d GiB only; the rest of the input was skipped", MaxInputBytes>>30)

// ErrTruncated reports a compressed input that ends before its end: the
// text read up to the cut is still parsed.
var ErrTruncated = errors.New("input is truncated: the compressed stream ends early")

// ErrTooDeep reports compression nested deeper than maxGzipDepth.
var ErrTooDeep = fmt.Errorf("compressed more than %d times over; not decompressed", maxGzipDepth)

// decodeInput turns an input into the text to scan: gzip is undone (up to
// maxGzipDepth layers), a notebook becomes the text of its outputs,
// UTF-16 with a byte-order mark (or plain ASCII text in UTF-16 without
// one) becomes UTF-8, and a binary input is
// refused with ErrBinary before any of it is read beyond its head. The
// text is cut at MaxInputBytes.
func decodeInput(r io.Reader, name string) (io.Reader, error) {
	src, err := decodeLayer(r, name, 0)
	if err != nil {
		return nil, err
	}
	return &limitedText{r: src, left: MaxInputBytes}, nil
}

func decodeLayer(r io.Reader, name string, depth int) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(headBytes)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		if depth >= maxGzipDepth {
			return nil, ErrTooDeep
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gunzip: %w", err)
		}
		return decodeLayer(&gunzipped{zr: zr}, name, depth+1)
	case len(head) >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff):
		return newUTF16Reader(br), nil
	case utf16Text(head, false):
		return &utf16Reader{r: br}, nil // UTF-16LE without a byte-order mark
	case utf16Text(head, true):
		return &utf16Reader{r: br, big: true}, nil
	case isNotebook(head, name):
		return notebookReader(br), nil
	case looksBinary(head):
		return nil, ErrBinary
	}
	return br, nil
}

// gunzipped reads a gzip stream and names a cut-off stream for what it is.
type gunzipped struct{ zr *gzip.Reader }

// Read returns decompressed bytes; an early end becomes ErrTruncated.
func (g *gunzipped) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = ErrTruncated
	}
	return n, err
}

// limitedText stops an input at MaxInputBytes with ErrInputLimit.
type limitedText struct {
	r    io.Reader
	left int64
}

// Read passes bytes on until the bound, then fails with ErrInputLimit.
func (l *limitedText) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, ErrInputLimit
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// looksBinary reports whether the first bytes of an input are binary: NUL
// bytes in more than 1% of them, control bytes in more than 10%, or control
// bytes and invalid UTF-8 together in more than half. Tab, newline,
// carriage return, form feed, vertical tab, escape, backspace and BEL are
// text: progress bars (Keras's redraws itself with backspaces) and
// terminals use them. Latin-1 or other legacy-encoded text is mostly ASCII
// and stays well under the last limit; random bytes are near 60%.
func looksBinary(head []byte) bool {
	if len(head) < 64 {
		return false
	}
	nul, ctl, bad := 0, 0, 0
	for i := 0; i < len(head); {
		c := head[i]
		if c < utf8.RuneSelf {
			switch {
			case c == 0:
				nul++
			case c < 0x20 && !textControl(c), c == 0x7f:
				ctl++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 && len(head)-i >= utf8.UTFMax {
			bad++ // not a rune cut by the end of the head
		}
		i += n
	}
	n := len(head)
	return nul*100 > n || ctl*10 > n || (ctl+bad)*2 > n
}

// textControl reports whether a C0 control byte is one that text uses.
func textControl(c byte) bool {
	switch c {
	case '\t', '\n', '\r', '\f', '\v', '\b', '\a', 0x1b:
		return true
	}
	return false
}
