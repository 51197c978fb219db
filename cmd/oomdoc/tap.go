package main

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// tap is one passthrough destination: the user's stream, written first,
// and the analysis queue beside it. Once the user's stream fails, the tap
// stops writing to it and remembers the error; the analysis still gets
// every byte.
type tap struct {
	dst io.Writer
	ana *analysisBuffer

	mu  sync.Mutex
	err error // the first write error on dst
}

// Write copies p to the user's stream, then offers it to the analysis. It
// returns the user's stream's error, the first time and every time after.
func (t *tap) Write(p []byte) (int, error) {
	t.mu.Lock()
	err := t.err
	if err == nil {
		if _, err = t.dst.Write(p); err != nil {
			t.err = err
		}
	}
	t.mu.Unlock()
	t.ana.offer(p)
	if err != nil {
		return len(p), err
	}
	return len(p), nil
}

// Err returns the first error writing to the user's stream.
func (t *tap) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// terminalOf returns the terminal behind a passthrough destination, or nil
// when it is not one.
func terminalOf(w io.Writer) *os.File {
	if t, ok := w.(*tap); ok {
		w = t.dst
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return f
}

// pump copies src to dst until src ends. A failing dst does not stop the
// copy (the analysis behind a tap still wants the bytes) unless stopOnErr
// says so for that error.
func pump(src io.Reader, dst io.Writer, stopOnErr func(error) bool) error {
	buf := make([]byte, 256<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil && stopOnErr != nil && stopOnErr(werr) {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
