// Command oomdoc reads a crash log — piped, named, or pasted — and says
// what ran out of memory, what holds it, why, and which change fixes it.
//
// Exit status:
//
//	0  a report was printed (whether or not a failure was found)
//	2  bad usage (unknown flag, bad --gpu value, unknown explain id)
//	3  an input could not be read (missing, a directory, a read error);
//	   the readable inputs are still reported
//	1  the report could not be written
//
// In `oomdoc run -- CMD`, oomdoc exits with CMD's own status, or dies by
// the signal that killed CMD (a shell sees 128+N); 127 when CMD could not
// be started.
package main

import (
	"os"
	"syscall"

	"golang.org/x/term"
)

func main() {
	code := run(os.Args[1:], realEnv())
	if code < 0 {
		dieBy(syscall.Signal(-code)) // `run`: end as the command ended
	}
	os.Exit(code)
}

// realEnv binds the program to the process's own streams and terminal.
func realEnv() *Env {
	return &Env{
		Stdin:  os.Stdin,
		Stdout: noSIGPIPE(os.Stdout), // a closed pipe is EPIPE, not SIGPIPE
		Stderr: noSIGPIPE(os.Stderr),
		Getenv: os.Getenv,
		IsTerminal: func(f any) bool {
			file, ok := f.(*os.File)
			return ok && term.IsTerminal(int(file.Fd()))
		},
		TermWidth: func(f any) int {
			file, ok := f.(*os.File)
			if !ok {
				return 0
			}
			w, _, err := term.GetSize(int(file.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
		Open:    openFile,
		Command: startCommand,
	}
}

// openFile opens an input for reading, refusing directories with a clear
// error rather than a read failure later.
func openFile(name string) (ReadCloser, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, errIsDirectory
	}
	return os.Open(name)
}
