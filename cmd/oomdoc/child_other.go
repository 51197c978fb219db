//go:build !unix

package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// startCommand starts the command with oomdoc's stdin and its output
// copied to stdout and stderr. Where there are no Unix signals or
// pseudo-terminals, it only keeps the rule that a background process
// holding the output does not hold oomdoc: outputGrace after the command
// exits, the copy stops. The wait function returns the exit status.
func startCommand(name string, args []string, stdout, stderr io.Writer) (func() int, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.WaitDelay = outputGrace
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() int {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil, errors.Is(err, exec.ErrWaitDelay):
			return cmd.ProcessState.ExitCode()
		case errors.As(err, &ee):
			return ee.ExitCode()
		}
		return exitWriteError
	}, nil
}

// dieBy ends oomdoc with the status a shell gives a death by sig.
func dieBy(sig syscall.Signal) { os.Exit(128 + int(sig)) }
