package parser

import (
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
		for range preparedBlocks(newBlockReader(endless)) {
			break
		}
		func() {
			defer func() { _ = recover() }()
			for range preparedBlocks(newBlockReader(strings.NewReader(strings.Repeat("step 1\n", 1<<20)))) {
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
