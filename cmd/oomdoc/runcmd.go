package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"

	"github.com/oomdoc/oomdoc/parser"
)

// RunCmd runs a command, passes its output through, and reports on failure.
type RunCmd struct {
	ReportFlags
	Command []string `arg:"" passthrough:"" name:"command" help:"The command and its arguments (after --)."`
	Capture bool     `help:"Record PyTorch's CUDA memory history in the command (a sitecustomize on PYTHONPATH) and read the memory snapshot dumped when it runs out. Off by default: recording slows every CUDA allocation."`
	capt    *captureRun
}

// Run starts the command with its stdout and stderr passed through
// unchanged and live, reads a copy of both, and — when the command fails —
// prints the report on stderr. It returns the command's own exit status.
func (c *RunCmd) Run(env *Env) error {
	h, err := c.hints()
	if err != nil {
		return err
	}
	args := c.Command
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return &exitError{code: exitUsage, err: errors.New("run: no command given (oomdoc run -- python train.py)")}
	}
	pr, pw := io.Pipe()
	shared := &lockedWriter{w: pw}
	done := make(chan *parser.Result, 1)
	go func() {
		done <- parseDraining(pr, args[0])
	}()
	wait, err := c.startChild(env, args, io.MultiWriter(env.Stdout, shared), io.MultiWriter(env.Stderr, shared)) // capture.go
	if err != nil {
		pw.Close()
		<-done
		return &exitError{code: exitNoCommand, err: fmt.Errorf("run %s: %w", args[0], err)}
	}
	status := wait()
	pw.Close()
	res := <-done
	c.takeCapture(env, res, status)
	if status != 0 && res != nil {
		if err := c.write(env, env.Stderr, c.analyse([]*parser.Result{res}, h)); err != nil && !isBrokenPipe(err) {
			fmt.Fprintf(env.Stderr, "oomdoc: %s\n", oneLine(err.Error()))
		}
	}
	return &exitError{code: status}
}

// parseDraining parses r and, whatever happens to the analysis, reads r to
// its end so that the command's output never blocks on oomdoc.
func parseDraining(r io.Reader, name string) *parser.Result {
	res, _ := safeParse(r, name)
	return res
}

// safeParse parses r; if the analysis fails in any way it still reads r to
// its end, so that bytes passed through (--tee, run) are never cut short.
func safeParse(r io.Reader, name string) (res *parser.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("internal error while reading %s: %v", name, p)
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	return parser.Parse(r, name)
}

// lockedWriter serialises the command's stdout and stderr copies into one
// stream for the parser.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write passes p on under the lock; the parser's copy never fails the child.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(p)
	return len(p), nil
}

// startCommand starts a child process. Ctrl-C reaches it directly (it
// shares the terminal's process group); oomdoc itself ignores SIGINT while
// the child runs and forwards SIGTERM, so that it can report after the
// child ends.
func startCommand(name string, args []string, stdout, stderr io.Writer) (func() int, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			if s != os.Interrupt {
				_ = cmd.Process.Signal(s)
			}
		}
	}()
	return func() int {
		err := cmd.Wait()
		signal.Stop(sigs)
		close(sigs)
		if err == nil {
			return 0
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		return exitWriteError
	}, nil
}
