package main

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// lowerPriority runs the calling goroutine, from now until it ends, on an
// OS thread of its own at the lowest scheduling priority (nice 19): the
// analysis then takes only CPU time that the command and the passthrough
// do not want. The thread is not returned to Go's pool (the goroutine ends
// locked to it), so no other goroutine inherits the priority.
func lowerPriority() {
	runtime.LockOSThread()
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
}
