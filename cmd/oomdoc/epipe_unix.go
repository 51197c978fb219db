//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// noSIGPIPE returns the stream oomdoc writes f's output through: a
// duplicate of f's descriptor, so that a closed downstream pipe (`oomdoc
// log | head -3`) makes the write fail with EPIPE, which ends oomdoc
// quietly, instead of Go's runtime killing the process by SIGPIPE — the
// runtime does that only for writes on descriptors 1 and 2 themselves.
// This replaces signal.Notify(SIGPIPE), which costs each run a signal
// thread (about 0.3 ms of a 5 KB paste's start-up); nothing is ignored,
// so `oomdoc run`'s command still inherits SIGPIPE's default action.
// The duplicate is close-on-exec: a child gets f's own descriptor through
// exec.Cmd. When the descriptor cannot be duplicated, f itself is returned
// and the runtime's behaviour applies.
func noSIGPIPE(f *os.File) *os.File {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
