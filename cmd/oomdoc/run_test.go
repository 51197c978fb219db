//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestRunGivesTheCommandATerminal: under a terminal, the command's stdout
// and stderr are terminals of the same size (so Python stays line-buffered
// and progress bars stay live), resized with the user's window; with
// stdout a pipe they are pipes.
func TestRunGivesTheCommandATerminal(t *testing.T) {
	bin := oomdocBinary(t)
	script := `test -t 1 && echo STDOUT-TTY; test -t 2 && echo STDERR-TTY; stty size </dev/tty; ` +
		`command -v python3 >/dev/null && python3 -c 'import sys; print("isatty", sys.stdout.isatty())'; ` +
		`echo RESIZE-NOW; sleep 1; echo "now $(stty size </dev/tty)"; exit 0`
	cmd := exec.Command(bin, "run", "--", "sh", "-c", script)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 33, Cols: 101})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	var got lockedBuffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			got.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(got.String(), "RESIZE-NOW") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_ = pty.Setsize(tty, &pty.Winsize{Rows: 40, Cols: 120}) // the user resizes the window
	if err := cmd.Wait(); err != nil {
		t.Fatalf("oomdoc: %v\n%s", err, got.String())
	}
	time.Sleep(100 * time.Millisecond) // the last bytes on the terminal
	out := got.String()
	for _, want := range []string{"STDOUT-TTY", "STDERR-TTY", "33 101", "now 40 120"} {
		if !strings.Contains(out, want) {
			t.Errorf("under a terminal the command lacks %q:\n%s", want, out)
		}
	}
	if _, err := exec.LookPath("python3"); err == nil && !strings.Contains(out, "isatty True") {
		t.Errorf("python's sys.stdout.isatty() is not True:\n%s", out)
	}

	piped := runBinary(t, 10*time.Second, nil, "run", "--", "sh", "-c", "test -t 1 || echo STDOUT-PIPE")
	if !strings.Contains(piped.stdout, "STDOUT-PIPE") {
		t.Errorf("with stdout a pipe the command got a terminal: %q", piped.stdout)
	}
}

// TestRunDefaultSignalDispositions: the command starts with no ignored
// signals, so `yes | head -1` ends as it does in a shell: status 0, no
// "Broken pipe".
func TestRunDefaultSignalDispositions(t *testing.T) {
	e := runBinary(t, 10*time.Second, nil, "run", "--", "sh", "-c", "yes | head -1")
	if e.code != 0 || strings.Contains(e.stderr, "Broken pipe") {
		t.Errorf("yes | head -1: status %d, stderr %q; want 0 and silence", e.code, e.stderr)
	}
	if runtime.GOOS == "linux" {
		e := runBinary(t, 10*time.Second, nil, "run", "--", "grep", "SigIgn", "/proc/self/status")
		if !strings.Contains(e.stdout, "SigIgn:\t0000000000000000") {
			t.Errorf("the command starts with ignored signals: %q", e.stdout)
		}
	}
}

// TestRunForwardsSignalsAndDiesByThem: a signal sent to oomdoc's own pid
// reaches the command (a `sleep 30` ends at once), and oomdoc then dies by
// that same signal, as a shell loop needs to stop. SIGQUIT prints no Go
// stack dump. Ctrl-C (SIGINT) prints no report.
func TestRunForwardsSignalsAndDiesByThem(t *testing.T) {
	bin := oomdocBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "run", "--", "sh", "-c", "echo ready; exec sleep 30")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
			defer timer.Stop()
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				t.Fatalf("child said %q", line)
			}
			time.Sleep(100 * time.Millisecond) // sh has exec'd sleep
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			e := endedOf(t, cmd, "", errb.String(), time.Since(start))
			if e.signal != sig {
				t.Fatalf("oomdoc ended with status %d, signal %v; want death by %v (stderr %q)", e.code, e.signal, sig, e.stderr)
			}
			if e.elapsed > 10*time.Second {
				t.Errorf("took %v: the signal did not reach the command", e.elapsed)
			}
			if strings.Contains(e.stderr, "goroutine") {
				t.Errorf("a Go stack dump on stderr:\n%.300s", e.stderr)
			}
			if sig == syscall.SIGINT && e.stderr != "" {
				t.Errorf("Ctrl-C printed %q; want nothing", e.stderr)
			}
		})
	}
}

// TestRunCtrlCEndsQuietly: a command that printed an OOM and was then
// interrupted gets no report: the user pressed Ctrl-C.
func TestRunCtrlCEndsQuietly(t *testing.T) {
	e := runBinary(t, 10*time.Second, nil, "run", "--", "sh", "-c",
		`echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.'; kill -INT $$; sleep 5`)
	if e.signal != syscall.SIGINT || strings.Contains(e.stderr, "Culprits") || strings.Contains(e.stderr, "Fixes") {
		t.Errorf("signal %v, stderr %q; want death by SIGINT and no report", e.signal, e.stderr)
	}
}

// TestRunDoesNotWaitForBackgroundHolders: a command that leaves a
// background process holding its output ends oomdoc within a few seconds,
// with the command's status.
func TestRunDoesNotWaitForBackgroundHolders(t *testing.T) {
	e := runBinary(t, 30*time.Second, nil, "run", "--", "bash", "-c", "sleep 30 & echo $!; exit 1")
	if pid, err := strconv.Atoi(strings.TrimSpace(e.stdout)); err == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if e.code != 1 || e.elapsed > 5*time.Second {
		t.Errorf("status %d after %v; want 1 within 5 s", e.code, e.elapsed)
	}
	t.Logf("returned after %v", e.elapsed.Round(time.Millisecond))
}

// TestRunSIGKILLIsASuspectedHostKill: a command killed by SIGKILL (or
// ending with status 137) with no failure in its output is reported as a
// suspected host OOM kill with the steps that confirm it; oomdoc dies by
// SIGKILL too (status 137 in a shell).
func TestRunSIGKILLIsASuspectedHostKill(t *testing.T) {
	for _, tc := range []struct {
		script string
		sig    syscall.Signal
		code   int
	}{
		{"echo training; kill -9 $$", syscall.SIGKILL, -1},
		{"echo training; exit 137", 0, 137},
	} {
		e := runBinary(t, 10*time.Second, nil, "run", "--", "sh", "-c", tc.script)
		if e.signal != tc.sig || e.code != tc.code {
			t.Errorf("%s: status %d, signal %v; want %d, %v", tc.script, e.code, e.signal, tc.code, tc.sig)
		}
		for _, want := range []string{"host-ram", "SIGKILL", "dmesg", "journalctl -k", "memory.events"} {
			if !strings.Contains(e.stderr, want) {
				t.Errorf("%s: the report lacks %q:\n%s", tc.script, want, e.stderr)
			}
		}
		if strings.Contains(e.stderr, "No out-of-memory failure found") {
			t.Errorf("%s: says no failure", tc.script)
		}
	}
}

// TestRunPassesArgumentBytes: the command receives its arguments byte for
// byte, invalid UTF-8 included, and a file whose name is not UTF-8 opens.
func TestRunPassesArgumentBytes(t *testing.T) {
	e := runBinary(t, 10*time.Second, nil, "run", "--", "printf", "%s|%s", "caf\xe9", "a\xffb")
	if e.stdout != "caf\xe9|a\xffb" {
		t.Errorf("the command printed %q; want the bytes given", e.stdout)
	}
	name := filepath.Join(t.TempDir(), "caf\xe9.log")
	data, err := os.ReadFile(fixture("corpus", "inf-029.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	e = runBinary(t, 10*time.Second, nil, "--color=never", name)
	if e.code != 0 || !strings.Contains(e.stdout, "224.00 MiB") {
		t.Errorf("a Latin-1 file name: status %d, stderr %q", e.code, e.stderr)
	}
}

// TestTeeWriteErrorIsReported: --tee into a full disk says so in one line,
// exits 1, and still prints the analysis.
func TestTeeWriteErrorIsReported(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	in, err := os.Open(fixture("corpus", "inf-029.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(oomdocBinary(t), "--tee", "--color=never")
	var errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, full, &errb
	_ = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	lines := 0
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.HasPrefix(l, "oomdoc:") {
			lines++
			if !strings.Contains(l, "no space left on device") {
				t.Errorf("error line %q", l)
			}
		}
	}
	if code != exitWriteError || lines != 1 || !strings.Contains(errb.String(), "Culprits") {
		t.Errorf("status %d, %d error lines, stderr:\n%s", code, lines, errb.String())
	}
}

// TestTeeEndsOnOneCtrlD: with a terminal on stdin, --tee ends on the first
// Ctrl-D.
func TestTeeEndsOnOneCtrlD(t *testing.T) {
	cmd := exec.Command(oomdocBinary(t), "--tee", "--color=never")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	go func() { _, _ = bufio.NewReader(tty).WriteTo(&bytes.Buffer{}) }()
	_, _ = tty.Write([]byte("step 1 loss 0.5\n"))
	time.Sleep(200 * time.Millisecond)
	_, _ = tty.Write([]byte{0x04})
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("oomdoc: %v", err)
		}
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("one Ctrl-D did not end --tee")
	}
}

// TestRunClosedReaderGivesSIGPIPE: when oomdoc's reader goes away (`| head
// -c 10`), the command's next write dies of SIGPIPE, as it would writing
// to that reader directly.
func TestRunClosedReaderGivesSIGPIPE(t *testing.T) {
	cmd := exec.Command(oomdocBinary(t), "run", "--", "sh", "-c", `yes; echo "yes-status $?" >&2`)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	buf := make([]byte, 10)
	_, _ = out.Read(buf)
	out.Close()
	_ = cmd.Wait()
	if !strings.Contains(errb.String(), "yes-status 141") {
		t.Errorf("yes did not die of SIGPIPE: %q", errb.String())
	}
}

// TestRunRefusedOutputIsNotNoFailure: output the parser refuses (binary) is
// said to be unanalysed, never reported as "no failure found". The output
// starts with NUL bytes: random bytes alone now and then open like UTF-16
// text (a byte-order mark, FE FF), and are then rightly read as text.
func TestRunRefusedOutputIsNotNoFailure(t *testing.T) {
	r := runWith(t, "", "run", "--", "sh", "-c", "head -c 512 /dev/zero; head -c 100000 /dev/urandom; exit 1")
	if r.code != 1 || !strings.Contains(r.stderr, "not analysed") || strings.Contains(r.stderr, "No out-of-memory") {
		t.Errorf("status %d, stderr %q", r.code, r.stderr)
	}
}

// TestRunSignalAfterExitEndsAtOnce: once the command has exited, a signal
// ends oomdoc at once, by that signal, even while a background process
// still holds the output.
func TestRunSignalAfterExitEndsAtOnce(t *testing.T) {
	cmd := exec.Command(oomdocBinary(t), "run", "--", "bash", "-c", "sleep 30 & echo $!; exit 1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
		defer syscall.Kill(pid, syscall.SIGKILL)
	}
	time.Sleep(300 * time.Millisecond) // bash has exited; sleep holds the output
	start := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	e := endedOf(t, cmd, "", "", time.Since(start))
	if e.signal != syscall.SIGTERM || e.elapsed > time.Second {
		t.Errorf("ended by %v (status %d) after %v; want SIGTERM at once", e.signal, e.code, e.elapsed)
	}
}

// TestRunCtrlZStopsTheJob: SIGTSTP stops the command and oomdoc, as a shell
// job; SIGCONT continues both.
func TestRunCtrlZStopsTheJob(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command(oomdocBinary(t), "run", "--", "sh", "-c", "echo $$; exec sleep 30")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("child said %q", line)
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	state := func(pid int) string {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(data, ')'); i >= 0 && i+2 < len(data) {
			return string(data[i+2])
		}
		return "?"
	}
	waitState := func(pid int, want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for state(pid) != want {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d in state %s, want %s", pid, state(pid), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTSTP)
	waitState(child, "T")
	waitState(cmd.Process.Pid, "T")
	_ = cmd.Process.Signal(syscall.SIGCONT)
	waitState(child, "S")
	waitState(cmd.Process.Pid, "S")
}
