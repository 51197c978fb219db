//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestClosedPipeProcessEndsQuietly is TestClosedPipeEndsQuietly on a real
// process and a real pipe, where the kernel sends SIGPIPE: a reader gone
// before the report (`oomdoc log | head -0`) ends oomdoc with status 0
// and nothing on stderr, not death by SIGPIPE — text and JSON reports.
func TestClosedPipeProcessEndsQuietly(t *testing.T) {
	log := filepath.Join("..", "..", "fixtures", "reference", "ovis2.5-2b-visual-softmax.log")
	for _, args := range [][]string{
		{"--color=never", log},
		{"--format=json", log},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // the reader is gone before oomdoc writes
		cmd := exec.Command(oomdocBinary(t), args...)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = w, &errb
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		timer := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		timer.Stop()
		e := endedOf(t, cmd, "", errb.String(), time.Since(start))
		if e.signal != 0 || e.code != 0 || e.stderr != "" {
			t.Errorf("%v into a closed pipe: status %d, signal %v, stderr %q; want 0, none, silence", args, e.code, e.signal, e.stderr)
		}
	}
}
