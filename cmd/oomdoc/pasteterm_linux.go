package main

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// pasteTerminal turns the terminal's line editing off while a log is
// pasted: in canonical mode the kernel keeps at most 4,095 bytes of one
// line and drops the rest, and tracebacks paste as long lines. Echo and
// Ctrl-C stay on; Ctrl-D arrives as a byte, which pasteReader treats as the
// end. The returned function restores the terminal; a signal that ends
// oomdoc meanwhile restores it first.
func pasteTerminal(stdin any) (restore func()) {
	f, ok := stdin.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}
	}
	raw := *old
	raw.Lflag &^= unix.ICANON
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		return func() {}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	stop := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			_ = unix.IoctlSetTermios(fd, unix.TCSETS, old)
			dieBy(s.(syscall.Signal))
		case <-stop:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(stop)
		_ = unix.IoctlSetTermios(fd, unix.TCSETS, old)
	}
}
