package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"syscall"
)

// teeWriter copies input to the user's stdout. When stdout goes away (the
// downstream pipe closed) it stops writing and keeps accepting, so the
// analysis still sees the whole input and oomdoc ends quietly.
type teeWriter struct {
	w      io.Writer
	closed bool
}

// Write copies p to stdout until stdout fails, and always reports success
// so that the analysis keeps reading.
func (t *teeWriter) Write(p []byte) (int, error) {
	if t.closed {
		return len(p), nil
	}
	if _, err := t.w.Write(p); err != nil {
		t.closed = true
	}
	return len(p), nil
}

// isBrokenPipe reports whether err is a write to a closed pipe.
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}

// pasteReader reads a pasted log from a terminal. Ctrl-D ends it as usual
// (the terminal sends EOF); a line holding only Ctrl-Z (what Windows users
// type, and what some terminals pass through) ends it too.
type pasteReader struct {
	r    io.Reader
	br   *bufio.Reader
	line []byte
	done bool
}

// Read returns the pasted text line by line until EOF or a Ctrl-Z line.
func (p *pasteReader) Read(b []byte) (int, error) {
	if p.br == nil {
		p.br = bufio.NewReader(p.r)
	}
	for len(p.line) == 0 {
		if p.done {
			return 0, io.EOF
		}
		line, err := p.br.ReadBytes('\n')
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
