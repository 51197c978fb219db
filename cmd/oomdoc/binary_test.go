package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// builtBinary builds oomdoc once per test run, for the tests that need a
// real process: signals, exit by signal, terminals.
var builtBinary = sync.OnceValues(func() (string, error) {
	if err := os.MkdirAll(binaryDir(), 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(binaryDir(), "oomdoc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", &buildError{out: out, err: err}
	}
	return bin, nil
})

// binaryDir is where the binary is built: one folder per test process,
// removed by TestMain.
func binaryDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("oomdoc-test-%d", os.Getpid()))
}

// TestMain removes the built binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	os.RemoveAll(binaryDir())
	os.Exit(code)
}

type buildError struct {
	out []byte
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + string(e.out) }

// oomdocBinary returns the built binary, skipping in -short mode.
func oomdocBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if bin := os.Getenv("OOMDOC_TEST_BINARY"); bin != "" {
		return bin // to check the tests against another build
	}
	bin, err := builtBinary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return bin
}

// ended is how a process ended.
type ended struct {
	code    int            // exit status, -1 when killed
	signal  syscall.Signal // the signal that killed it, 0 when none
	stdout  string
	stderr  string
	elapsed time.Duration
}

// runBinary runs oomdoc with args, stdin from a file (or nothing), and
// returns how it ended; it fails the test after limit.
func runBinary(t *testing.T, limit time.Duration, stdin *os.File, args ...string) ended {
	t.Helper()
	cmd := exec.Command(oomdocBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	_ = cmd.Wait()
	return endedOf(t, cmd, out.String(), errb.String(), time.Since(start))
}

func endedOf(t *testing.T, cmd *exec.Cmd, stdout, stderr string, elapsed time.Duration) ended {
	t.Helper()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok {
		t.Fatalf("no wait status")
	}
	e := ended{code: ws.ExitStatus(), stdout: stdout, stderr: stderr, elapsed: elapsed}
	if ws.Signaled() {
		e.code, e.signal = -1, ws.Signal()
	}
	return e
}
