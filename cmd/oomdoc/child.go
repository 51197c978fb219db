//go:build unix

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
	"time"

	"github.com/creack/pty"
)

// forwardedSignals are the signals oomdoc passes on to the command's
// process group. SIGWINCH resizes the command's terminal instead; SIGTSTP
// and SIGCONT stop and continue the command with oomdoc.
func forwardedSignals() []os.Signal {
	return []os.Signal{
		syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH,
		syscall.SIGTSTP, syscall.SIGCONT,
	}
}

// startCommand starts the command as if it ran directly. Its stdin is
// oomdoc's. When oomdoc's stdout is a terminal the command gets a
// pseudo-terminal of the same size for stdout (and for stderr when that is
// a terminal too), so programs stay line-buffered and keep their progress
// bars and colours; otherwise it gets pipes. It runs in its own session, so
// every signal oomdoc receives is forwarded once to its process group; it
// starts with default signal dispositions (Go resets handled signals on
// exec, and oomdoc ignores none).
//
// The returned wait function returns the exit status, or minus the signal
// number when a signal ended the command. It returns at most outputGrace
// after the command exits, whoever else still holds the output; signals
// received after that end oomdoc at once, the way they would end it alone.
func startCommand(name string, args []string, stdout, stderr io.Writer) (func() int, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdin = os.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var sources []*os.File // what oomdoc reads the output from
	var dsts []io.Writer
	var childEnds []*os.File // closed in oomdoc once the command has them
	var master *os.File
	closeAll := func() {
		for _, f := range append(sources, childEnds...) {
			f.Close()
		}
	}
	if term := terminalOf(stdout); term != nil {
		m, slave, err := pty.Open()
		if err != nil {
			return nil, fmt.Errorf("open a pseudo-terminal: %w", err)
		}
		if ws, err := pty.GetsizeFull(term); err == nil {
			_ = pty.Setsize(m, ws)
		}
		master = m
		cmd.Stdout = slave
		cmd.SysProcAttr.Setctty = true
		cmd.SysProcAttr.Ctty = 1
		sources, dsts, childEnds = append(sources, m), append(dsts, stdout), append(childEnds, slave)
		if terminalOf(stderr) != nil {
			cmd.Stderr = slave
		}
	}
	for _, s := range []struct {
		set *io.Writer
		dst io.Writer
	}{{&cmd.Stdout, stdout}, {&cmd.Stderr, stderr}} {
		if *s.set != nil {
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("create a pipe: %w", err)
		}
		*s.set = w
		growPipe(w)
		sources, dsts, childEnds = append(sources, r), append(dsts, s.dst), append(childEnds, w)
	}
	// Signals are caught from before the start, so none can end oomdoc and
	// leave the command running.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwardedSignals()...)
	// exec.Cmd's Stdout and Stderr are io.Writers; the *os.File values set
	// above are handed to the child as they are.
	if err := cmd.Start(); err != nil {
		signal.Stop(sigs)
		closeAll()
		return nil, err
	}
	for _, f := range childEnds {
		f.Close()
	}

	var copying sync.WaitGroup
	for i, src := range sources {
		copying.Add(1)
		go func() {
			defer copying.Done()
			_ = pump(src, dsts[i], func(err error) bool {
				if isBrokenPipe(err) && src != master {
					// Our reader went away: close the pipe so that the
					// command's next write gets SIGPIPE, as it would
					// writing to that reader directly.
					src.Close()
					return true
				}
				return false
			})
		}()
	}
	copied := make(chan struct{})
	go func() { copying.Wait(); close(copied) }()

	exited := make(chan struct{})
	go forward(sigs, cmd.Process.Pid, master, exited)

	return func() int {
		err := cmd.Wait()
		close(exited)
		select {
		case <-copied:
		case <-time.After(outputGrace):
			// A background process still holds the output: stop reading it.
			for _, src := range sources {
				src.Close()
			}
		}
		return statusOf(err)
	}, nil
}

// forward passes every signal on to the command's process group until the
// command has exited; after that a signal ends oomdoc itself, by that
// signal. Ctrl-Z (SIGTSTP) stops the command and then oomdoc, as a shell
// job; SIGCONT, when the job is resumed, continues the command too.
func forward(sigs chan os.Signal, pid int, master *os.File, exited chan struct{}) {
	for s := range sigs {
		sig := s.(syscall.Signal)
		done := false
		select {
		case <-exited:
			done = true
		default:
		}
		switch {
		case sig == syscall.SIGWINCH:
			if master != nil && !done {
				_ = pty.InheritSize(os.Stdout, master)
			}
		case sig == syscall.SIGTSTP:
			if !done {
				// SIGSTOP, not SIGTSTP: the command's group, in a session
				// of its own, counts as orphaned, and the kernel drops
				// SIGTSTP sent to an orphaned group.
				_ = syscall.Kill(-pid, syscall.SIGSTOP)
			}
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		case sig == syscall.SIGCONT:
			if !done {
				_ = syscall.Kill(-pid, syscall.SIGCONT)
			}
		case done:
			dieBy(sig)
		default:
			_ = syscall.Kill(-pid, sig)
		}
	}
}

// statusOf turns the command's end into oomdoc's convention: the exit
// status, or minus the signal that killed it.
func statusOf(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return exitWriteError
}
