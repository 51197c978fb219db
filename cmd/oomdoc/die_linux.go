package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// dieBy ends oomdoc by sig, as the command it ran ended: the signal's
// default action is restored with the kernel's own sigaction (Go's runtime
// would otherwise turn SIGQUIT into a goroutine dump and catch the rest),
// then the signal is sent to this very thread, unblocked. A shell then sees
// a real signal death: "Killed", "Quit (core dumped)", or a loop that
// stops on Ctrl-C. If the signal does not end the process (a core dump can
// take a moment), oomdoc exits 128+sig after a grace.
func dieBy(sig syscall.Signal) {
	runtime.LockOSThread()
	var act struct {
		handler  uintptr // SIG_DFL
		flags    uint64
		restorer uintptr
		mask     uint64
	}
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	var unblock uint64 = 1 << (uint(sig) - 1)
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 1 /* SIG_UNBLOCK */, uintptr(unsafe.Pointer(&unblock)), 0, 8, 0, 0)
	_ = syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
	time.Sleep(2 * time.Second)
	os.Exit(128 + int(sig))
}
