package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe asks for a 1 MiB pipe buffer (the kernel's default limit for
// unprivileged processes), so that the command can write a burst ahead of
// oomdoc's copier without waiting for it to be scheduled.
func growPipe(f *os.File) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20)
}
