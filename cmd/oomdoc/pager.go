package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// defaultPager is what git and gh run when $PAGER is not set: -F quits at
// once when the text fits the screen, -R passes colour through, -X leaves
// the text on the screen afterwards.
const defaultPager = "less -FRX"

// pageable is the terminal a report may be paged on: out itself, when it
// is a terminal, with its height. ok is false for a pipe or a file.
func pageable(out io.Writer) (file *os.File, rows int, ok bool) {
	f, isFile := out.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return nil, 0, false
	}
	_, rows, err := term.GetSize(int(f.Fd()))
	if err != nil || rows <= 0 {
		return nil, 0, false
	}
	return f, rows, true
}

// pagerCommand is the user's pager: $OOMDOC_PAGER, else $PAGER, else
// less -FRX; "" when paging is switched off ("cat" pages nothing).
func pagerCommand(env *Env) string {
	for _, k := range []string{"OOMDOC_PAGER", "PAGER"} {
		if v := env.Getenv(k); v != "" {
			if v == "cat" {
				return ""
			}
			return v
		}
	}
	return defaultPager
}

// writePaged writes text to out, through the user's pager when out is a
// terminal and text is taller than it, as git and gh do. A pager that
// cannot start falls back to writing directly.
func writePaged(env *Env, out io.Writer, text []byte, noPager bool) error {
	file, rows, ok := pageable(out)
	pager := pagerCommand(env)
	if noPager || !ok || pager == "" || bytes.Count(text, []byte("\n")) < rows {
		_, err := out.Write(text)
		return err
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin = bytes.NewReader(text)
	cmd.Stdout, cmd.Stderr = file, env.Stderr
	cmd.Env = os.Environ()
	if env.Getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if env.Getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	// Ctrl-C belongs to the pager while it runs.
	signal.Ignore(syscall.SIGINT)
	defer signal.Reset(syscall.SIGINT)
	if err := cmd.Start(); err != nil {
		_, werr := out.Write(text)
		return werr
	}
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 127 {
			_, werr := out.Write(text) // sh found no such pager
			return werr
		}
		if errors.As(err, &exit) {
			return nil // the pager's own status (q before the end, a signal) is not a failure to write
		}
		return fmt.Errorf("pager %q: %w", pager, err)
	}
	return nil
}
