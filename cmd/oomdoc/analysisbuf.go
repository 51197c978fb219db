package main

import (
	"io"
	"sync"
	"time"
)

// analysisLimit bounds the bytes waiting for the analysis. The passthrough
// never waits on the parser: when this much is already queued, the oldest
// queued output is dropped for the analysis (and counted) so that the
// newest — where a crash's last words are — is always read.
const analysisLimit = 16 << 20

// analysisQuiet is how long output must pause before the analysis reads
// it, unless the queue is three-quarters full: during a burst the parser
// (and the garbage collection it causes) stays off the CPU that the
// command and the passthrough want.
const analysisQuiet = 3 * time.Millisecond

// analysisBuffer is a bounded queue between the passthrough and the parser.
// Writers offer bytes and never block; the parser reads them in order.
// When the parser falls behind it skips ahead: the oldest unread bytes are
// dropped, and the skip reaches the parser as a line break, so the halves
// of two different lines are never read as one.
type analysisBuffer struct {
	mu      sync.Mutex
	ready   *sync.Cond
	ring    []byte // allocated on first use, len == limit
	start   int    // where the unread bytes begin in ring
	queued  int    // unread bytes
	limit   int
	skipped int64 // bytes the parser never saw
	gap     bool  // a skip happened since the parser last read
	closed  bool
	last    time.Time // when output last arrived
}

func newAnalysisBuffer(limit int) *analysisBuffer {
	a := &analysisBuffer{limit: limit}
	a.ready = sync.NewCond(&a.mu)
	return a
}

// offer queues a copy of p for the analysis, dropping the oldest queued
// bytes when the queue would pass its limit. It never waits for the reader
// and, after the first call, never allocates.
func (a *analysisBuffer) offer(p []byte) {
	if len(p) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if a.ring == nil {
		a.ring = make([]byte, a.limit)
	}
	if len(p) > a.limit {
		a.skipped += int64(len(p) - a.limit)
		a.gap = true
		p = p[len(p)-a.limit:]
	}
	if over := a.queued + len(p) - a.limit; over > 0 {
		a.skipped += int64(over)
		a.start = (a.start + over) % a.limit
		a.queued -= over
		a.gap = true
	}
	end := (a.start + a.queued) % a.limit
	n := copy(a.ring[end:], p)
	copy(a.ring, p[n:])
	a.queued += len(p)
	a.last = time.Now()
	a.ready.Signal()
}

// Write offers p and reports success: the analysis never fails a writer.
func (a *analysisBuffer) Write(p []byte) (int, error) {
	a.offer(p)
	return len(p), nil
}

// Read returns queued bytes in order, waiting for more until Close, and
// for a pause in the output (see analysisQuiet); after a skip it returns a
// line break first.
func (a *analysisBuffer) Read(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for !a.closed && a.queued < a.limit/4*3 {
		if a.queued == 0 && !a.gap {
			a.ready.Wait()
			continue
		}
		wait := analysisQuiet - time.Since(a.last)
		if wait <= 0 {
			break // the output paused: read it
		}
		a.mu.Unlock()
		time.Sleep(wait)
		a.mu.Lock()
	}
	if len(p) == 0 {
		return 0, nil
	}
	if a.gap {
		a.gap = false
		p[0] = '\n'
		return 1, nil
	}
	if a.queued == 0 {
		return 0, io.EOF
	}
	n := min(len(p), a.queued, a.limit-a.start)
	copy(p, a.ring[a.start:a.start+n])
	a.start = (a.start + n) % a.limit
	a.queued -= n
	return n, nil
}

// Close ends the stream: the reader gets what is queued, then EOF.
func (a *analysisBuffer) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	a.ready.Broadcast()
	return nil
}

// Skipped returns how many bytes the analysis did not see.
func (a *analysisBuffer) Skipped() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.skipped
}
