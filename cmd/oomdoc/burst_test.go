//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunBurstDoesNotSlowTheCommand: a command writing a 10 MB burst of
// OOM lines takes no longer under `oomdoc run` than writing to a plain
// pipe (within 2×, plus 50 ms for scheduling noise): the passthrough never
// waits on the analysis.
func TestRunBurstDoesNotSlowTheCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10 MB")
	}
	dir := t.TempDir()
	burst := filepath.Join(dir, "burst.log")
	var b bytes.Buffer
	for i := 0; b.Len() < 10<<20; i++ {
		fmt.Fprintf(&b, "Received request %d\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate %d.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.\n", i, 2+i%4000)
	}
	if err := os.WriteFile(burst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The child times itself: from before the burst to after its last write.
	script := func(n int) string {
		return fmt.Sprintf(`s=$(date +%%s%%N); cat %s; e=$(date +%%s%%N); echo $((e-s)) > %s; exit 1`, burst, filepath.Join(dir, strconv.Itoa(n)))
	}
	took := func(n int) time.Duration {
		data, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(n)))
		if err != nil {
			t.Fatal(err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			t.Skipf("date +%%N unsupported here: %q", data)
		}
		return time.Duration(ns)
	}
	best := func(d []time.Duration) time.Duration {
		m := d[0]
		for _, x := range d {
			m = min(m, x)
		}
		return m
	}
	var direct, wrapped []time.Duration
	for i := range 2 { // best of two: scheduling noise is in milliseconds
		cmd := exec.Command("sh", "-c", script(2*i))
		cmd.Stdout = io.Discard
		_ = cmd.Run()
		direct = append(direct, took(2*i))

		env, _, _ := testEnv(strings.NewReader(""), false, nil)
		out := &countingWriter{}
		env.Stdout = out
		if code := run([]string{"run", "--color=never", "--", "sh", "-c", script(2*i + 1)}, env); code != 1 {
			t.Fatalf("status %d", code)
		}
		if out.n != b.Len() {
			t.Fatalf("passed %d of %d bytes", out.n, b.Len())
		}
		wrapped = append(wrapped, took(2*i+1))
	}
	d, w := best(direct), best(wrapped)
	t.Logf("10 MB burst: %v to a pipe, %v under run", d, w)
	if w > 2*d+50*time.Millisecond {
		t.Errorf("the burst took %v under run against %v to a pipe", w, d)
	}
}

// countingWriter counts what it is given, as io.Discard would take it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}
