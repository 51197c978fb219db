package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// mixedLog builds a large deterministic log with \r progress bars, ANSI
// colour, invalid UTF-8, NUL bytes, CRLF and an OOM at the end.
func mixedLog() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 0; b.Len() < 4<<20; i++ {
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "Epoch 1: %3d%%|███▌   | %d/1000 [00:%02d<01:00, 5.1it/s]\r", i%100, i%1000, i%60)
		case 1:
			fmt.Fprintf(&b, "\x1b[32mINFO\x1b[0m step %d loss %.3f\r\n", i, r.Float64())
		case 2:
			b.Write([]byte{0xff, 0xfe, 'b', 'a', 'd', 0x00, '\n'})
		default:
			fmt.Fprintf(&b, "[rank%d]: step %d tokens/s %d\n", i%4, i, r.IntN(100000))
		}
	}
	data, _ := os.ReadFile(fixture("corpus", "trn-034.log"))
	b.Write(data)
	return b.Bytes()
}

// TestTeePassesBytesThrough: --tee copies stdin to stdout byte for byte and
// reports on stderr.
func TestTeePassesBytesThrough(t *testing.T) {
	in := mixedLog()
	env, out, errb := testEnv(bytes.NewReader(in), false, nil)
	if code := run([]string{"--tee", "--color=never"}, env); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if sha256.Sum256(out.Bytes()) != sha256.Sum256(in) {
		t.Fatalf("stdout differs from stdin (%d vs %d bytes)", out.Len(), len(in))
	}
	if !strings.Contains(errb.String(), "CUDA out of memory") {
		t.Errorf("no report on stderr: %q", errb.String())
	}
}

// TestRunPassesBytesThroughAndKeepsStatus runs this test binary as the
// child (see TestHelperChild): its stdout must arrive unchanged, the
// report must follow on stderr, and oomdoc must exit with its status.
func TestRunPassesBytesThroughAndKeepsStatus(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want := mixedLog()
	t.Setenv("OOMDOC_HELPER_CHILD", "1")
	env, out, errb := testEnv(strings.NewReader(""), false, nil)
	code := run([]string{"run", "--color=never", "--", self, "-test.run=^TestHelperChild$"}, env)
	if code != 3 {
		t.Fatalf("exit %d, want the child's 3; stderr: %.500s", code, errb.String())
	}
	if sha256.Sum256(out.Bytes()) != sha256.Sum256(want) {
		t.Fatalf("stdout differs from the child's (%d vs %d bytes)", out.Len(), len(want))
	}
	if !strings.Contains(errb.String(), "child stderr line") || !strings.Contains(errb.String(), "Culprits") {
		t.Errorf("stderr lacks the child's stderr or the report: %.300s", errb.String())
	}
	t.Run("missing command", func(t *testing.T) {
		env, _, errb := testEnv(strings.NewReader(""), false, nil)
		if code := run([]string{"run", "--", filepath.Join(t.TempDir(), "no-such-binary")}, env); code != exitNoCommand {
			t.Errorf("exit %d, want %d (%s)", code, exitNoCommand, errb.String())
		}
	})
	t.Run("success prints no report", func(t *testing.T) {
		env, _, errb := testEnv(strings.NewReader(""), false, nil)
		if code := run([]string{"run", "--", "true"}, env); code != 0 || errb.Len() != 0 {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	})
}

// TestHelperChild is the child process of the run test, not a test itself.
func TestHelperChild(t *testing.T) {
	if os.Getenv("OOMDOC_HELPER_CHILD") != "1" {
		t.Skip("helper process")
	}
	os.Stdout.Write(mixedLog())
	fmt.Fprintln(os.Stderr, "child stderr line")
	os.Exit(3)
}

// TestPasteMode drives the real binary through a pseudo-terminal as a
// person would: the prompt appears, the log is pasted, Ctrl-D ends it, and
// the report comes back.
func TestPasteMode(t *testing.T) {
	bin := oomdocBinary(t)
	cmd := exec.Command(bin, "--color=never", "--width=80")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	var got lockedBuffer
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			got.write(buf[:n])
			if err != nil {
				close(done)
				return
			}
		}
	}()
	waitFor := func(s string) {
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(got.String(), s) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %q; screen so far:\n%s", s, got.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("Paste the crash log")
	log, _ := os.ReadFile(fixture("corpus", "inf-029.log"))
	// A line longer than the terminal's 4,095-byte line buffer, whose end
	// holds a failure: in canonical mode the kernel would drop its tail.
	long := "[rank1]: " + strings.Repeat("progress ", 700) + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.77 GiB.\n"
	tty.Write([]byte(long))
	tty.Write(log)
	tty.Write([]byte("\n\x04"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("oomdoc: %v\n%s", err, got.String())
	}
	<-done
	if !strings.Contains(got.String(), "Culprits, most likely first") || !strings.Contains(got.String(), "224.00 MiB") {
		t.Errorf("no report after Ctrl-D:\n%s", got.String())
	}
	if !strings.Contains(got.String(), "7.77 GiB requested") {
		t.Errorf("the failure at the end of a 6 KB pasted line was lost:\n%s", got.String())
	}
}

// lockedBuffer is a bytes.Buffer shared by the reader goroutine and the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) write(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
