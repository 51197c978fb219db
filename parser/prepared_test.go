package parser

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestPreparedBlocksStopsItsReader: a caller that stops early or panics
// in its loop leaves no reader goroutine behind, even on endless input.
func TestPreparedBlocksStopsItsReader(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 3 {
		// each stop leaves its reader to finish the read it is in, so every
		// round has its own input
		endless := &repeatReader{b: '\n', n: 1 << 62}
		for range preparedBlocks(newBlockReader(endless), false) {
			break
		}
		func() {
			defer func() { _ = recover() }()
			for range preparedBlocks(newBlockReader(strings.NewReader(strings.Repeat("step 1\n", 1<<20))), false) {
				panic("the scanner failed")
			}
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the callers returned, %d before", n, before)
	}
}

// panicReader panics on its nth Read, as a decoder with a bug would.
type panicReader struct {
	n    int
	line []byte
}

func (r *panicReader) Read(p []byte) (int, error) {
	if r.n--; r.n == 0 {
		panic("reader bug")
	}
	return copy(p, bytes.Repeat(r.line, len(p)/len(r.line)+1)), nil
}

// TestParsePanicReachesTheCaller: a panic while the stages read or
// prefilter is raised on the caller's goroutine, where it can be
// recovered (cmd's safeParse turns it into an error), not in a goroutine
// that would end the process.
func TestParsePanicReachesTheCaller(t *testing.T) {
	for _, o := range []Options{{}, {OneThread: true}} {
		got := func() (v any) {
			defer func() { v = recover() }()
			_, _ = ParseWith(&panicReader{n: 40, line: []byte("step 1 loss 0.5 memory 2 GB\n")}, "x", o)
			return nil
		}()
		if got != "reader bug" {
			t.Errorf("%+v: recovered %v, want the reader's panic", o, got)
		}
	}
}
