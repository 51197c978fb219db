//go:build unix && !linux

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// dieBy ends oomdoc by sig, as the command it ran ended: Go's handling of
// the signal is reset and the signal sent to oomdoc itself; if that does
// not end it (SIGQUIT stays Go's), oomdoc exits 128+sig.
func dieBy(sig syscall.Signal) {
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	os.Exit(128 + int(sig))
}
