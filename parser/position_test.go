package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
)

// TestFailureAfterNoise places every fixture after 5,000 lines of
// training-log noise (past the head that is read in full) and checks the
// events equal those of the fixture read alone: the prefilter, derived from
// the matchers' keywords, finds a family anywhere in a log, not only in its
// head (issue 11 §3). Both reads are also compared with a full line-by-line
// read.
func TestFailureAfterNoise(t *testing.T) {
	const noiseLines = 5000
	var noise bytes.Buffer
	for i := range noiseLines {
		fmt.Fprintf(&noise, "[2025-03-25 20:%02d:%02d] INFO trainer.py:1244 >> step %d | loss 1.%04d | lr 2.96e-04 | tokens/s %d\n", i/60%60, i%60, i, i*7%10000, 30000+i)
	}
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || isNotebook(data, path) || looksBinary(data[:min(len(data), 8<<10)]) {
			continue
		}
		alone, _ := Parse(bytes.NewReader(data), "x")
		joined := append(append([]byte{}, noise.Bytes()...), data...)
		late, _ := Parse(bytes.NewReader(joined), "x")
		if got, want := eventsShifted(t, late, -noiseLines), eventsShifted(t, alone, 0); got != want {
			t.Errorf("%s after %d lines: events differ from the fixture alone\nlate:  %.600s\nalone: %.600s", path, noiseLines, got, want)
		}
		slow, _ := parseLines(bytes.NewReader(joined), "x", true)
		if resultJSON(t, slow) != resultJSON(t, late) {
			t.Errorf("%s after %d lines: fast and full reads differ", path, noiseLines)
		}
	}
}

// eventsShifted renders the events with their line numbers moved by d.
func eventsShifted(t *testing.T, r *Result, d int) string {
	t.Helper()
	evs := make([]Event, len(r.Events))
	for i, ev := range r.Events {
		ev.Line += d
		ev.Frames = append([]Frame(nil), ev.Frames...)
		for k := range ev.Frames {
			ev.Frames[k].LogLine += d
		}
		ev.ContextLines = append([]Span(nil), ev.ContextLines...)
		for k := range ev.ContextLines {
			ev.ContextLines[k].Line += d
		}
		// lines before the fixture are noise, not the fixture's context
		kept := ev.ContextLines[:0]
		for _, c := range ev.ContextLines {
			if c.Line > 0 {
				kept = append(kept, c)
			}
		}
		ev.ContextLines = kept
		if ev.RaisedFrom != nil {
			shifted := *ev.RaisedFrom
			shifted.Line += d
			ev.RaisedFrom = &shifted
		}
		evs[i] = ev
	}
	return resultJSON(t, &Result{Events: evs})
}
