package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"syscall"
)

// isBrokenPipe reports whether err is a write to a closed pipe.
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}

// eofLatch keeps an end of input ended. A terminal reports Ctrl-D as one
// empty read and then reads on; without the latch every buffered reader on
// the way would ask again, and the user would press Ctrl-D three times.
type eofLatch struct {
	r   io.Reader
	eof bool
}

// Read reads until the first end of input, then always reports it.
func (l *eofLatch) Read(p []byte) (int, error) {
	if l.eof {
		return 0, io.EOF
	}
	n, err := l.r.Read(p)
	if err == io.EOF {
		l.eof = true
	}
	return n, err
}

// pasteReader reads a pasted log from a terminal. Ctrl-D ends it as usual
// (the terminal sends EOF, or — with eot set, when the terminal's line
// editing is off so that long pasted lines are not cut — the Ctrl-D byte
// itself); a line holding only Ctrl-Z (what Windows users type, and what
// some terminals pass through) ends it too.
type pasteReader struct {
	r    io.Reader
	eot  bool // a Ctrl-D byte (0x04) ends the input
	br   *bufio.Reader
	line []byte
	done bool
}

// Read returns the pasted text line by line until EOF, Ctrl-D or a Ctrl-Z
// line.
func (p *pasteReader) Read(b []byte) (int, error) {
	if p.br == nil {
		p.br = bufio.NewReader(p.r)
	}
	for len(p.line) == 0 {
		if p.done {
			return 0, io.EOF
		}
		line, err := p.readLine()
		if t := bytes.TrimRight(line, "\r\n"); len(t) == 1 && t[0] == 0x1a {
			p.done = true
			return 0, io.EOF
		}
		p.line = line
		if err != nil {
			p.done = true
			if len(line) == 0 {
				if err == io.EOF {
					return 0, io.EOF
				}
				return 0, err
			}
		}
	}
	n := copy(b, p.line)
	p.line = p.line[n:]
	return n, nil
}

// readLine reads one line; with eot set a Ctrl-D byte ends the input, the
// text before it kept.
func (p *pasteReader) readLine() ([]byte, error) {
	if !p.eot {
		return p.br.ReadBytes('\n')
	}
	var line []byte
	for {
		c, err := p.br.ReadByte()
		if err != nil {
			return line, err
		}
		if c == 0x04 {
			return line, io.EOF
		}
		line = append(line, c)
		if c == '\n' {
			return line, nil
		}
	}
}

// wordWatch passes a stream through and notes whether a word occurs in it.
type wordWatch struct {
	r    io.Reader
	word []byte
	tail []byte // the last len(word)-1 bytes, for a word split across reads
	seen bool
}

// Read reads from the stream, looking for the word (across reads too)
// without copying what it reads.
func (w *wordWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if w.seen || n == 0 {
		return n, err
	}
	got := p[:n]
	keep := len(w.word) - 1
	// the word split between the last read and this one
	edge := append(w.tail, got[:min(len(got), keep)]...)
	if bytes.Contains(edge, w.word) || bytes.Contains(got, w.word) {
		w.seen = true
		return n, err
	}
	if len(got) >= keep {
		w.tail = append(w.tail[:0], got[len(got)-keep:]...)
	} else {
		w.tail = append(w.tail[:0], edge[max(0, len(edge)-keep):]...)
	}
	return n, err
}
