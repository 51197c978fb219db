package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// TestAnalysisBufferKeepsOrderAndSkipsAhead: bytes arrive in order; past
// the limit the oldest are dropped, counted, and marked by a line break.
func TestAnalysisBufferKeepsOrderAndSkipsAhead(t *testing.T) {
	a := newAnalysisBuffer(10)
	a.offer([]byte("abcd"))
	a.offer([]byte("efgh"))
	a.offer([]byte("ijkl")) // 12 > 10: "ab" dropped
	a.Close()
	got, _ := io.ReadAll(a)
	if string(got) != "\ncdefghijkl" || a.Skipped() != 2 {
		t.Errorf("got %q, skipped %d", got, a.Skipped())
	}
	b := newAnalysisBuffer(4)
	b.offer([]byte("0123456789")) // longer than the queue: its tail kept
	b.Close()
	got, _ = io.ReadAll(b)
	if string(got) != "\n6789" || b.Skipped() != 6 {
		t.Errorf("got %q, skipped %d", got, b.Skipped())
	}
}

// TestAnalysisBufferConcurrent: two writers and one reader (the run
// layout) lose nothing when the queue is large enough; run under -race.
func TestAnalysisBufferConcurrent(t *testing.T) {
	a := newAnalysisBuffer(1 << 20)
	var wg sync.WaitGroup
	for _, c := range []string{"o", "e"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				a.offer([]byte(strings.Repeat(c, 100)))
			}
		}()
	}
	var got bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&got, a); close(done) }()
	wg.Wait()
	a.Close()
	<-done
	if got.Len() != 200000 || strings.Count(got.String(), "o") != 100000 || a.Skipped() != 0 {
		t.Errorf("read %d bytes, skipped %d", got.Len(), a.Skipped())
	}
}

// TestRunReportSaysWhatWasSkipped: when the analysis skipped output, the
// report says how much; a cut at the input bound is said too.
func TestRunReportSaysWhatWasSkipped(t *testing.T) {
	env, _, errb := testEnv(strings.NewReader(""), false, nil)
	c := &RunCmd{ReportFlags: ReportFlags{Format: "text", Color: "never"}}
	c.report(env, parsed{res: &parser.Result{Input: "sh", Lines: 3}, err: parser.ErrInputLimit}, 1, 1234, rules.Hints{})
	for _, want := range []string{"skipped 1234 bytes", "the passthrough is complete", "4 GiB"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, errb.String())
		}
	}
}
