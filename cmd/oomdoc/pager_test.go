package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// pagerMark is what the test's pager prints before passing the report on.
const pagerMark = "PAGER-RAN"

// TestPagerOnTerminalOnly runs the real binary on a 100×30 pseudo-terminal
// and through a pipe, with a pager that marks its output: a report taller
// than the terminal is paged, a short one, a piped one and --no-pager are
// not.
func TestPagerOnTerminalOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "oomdoc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	long := fixture("reference", "ovis2.5-2b-visual-softmax.log")
	short := fixture("formats", "no-failure.log")
	env := append(os.Environ(), "PAGER=echo "+pagerMark+"; cat", "OOMDOC_PAGER=", "NO_COLOR=1")
	onTTY := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
		if err != nil {
			t.Skipf("no pseudo-terminal here: %v", err)
		}
		defer tty.Close()
		var got bytes.Buffer
		_, _ = io.Copy(&got, tty) // ends with EIO once the child exits
		if err := cmd.Wait(); err != nil {
			t.Fatalf("oomdoc %v: %v\n%s", args, err, got.String())
		}
		return got.String()
	}
	piped := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("oomdoc %v: %v", args, err)
		}
		return string(out)
	}
	tests := []struct {
		name  string
		out   func() string
		paged bool
	}{
		{"long report on a terminal", func() string { return onTTY(long) }, true},
		{"short report on a terminal", func() string { return onTTY(short) }, false},
		{"--no-pager on a terminal", func() string { return onTTY("--no-pager", long) }, false},
		{"piped", func() string { return piped(long) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.out()
			if !strings.Contains(got, "visual-tokens") && !strings.Contains(got, "No out-of-memory failure") {
				t.Fatalf("no report:\n%s", got)
			}
			if paged := strings.Contains(got, pagerMark); paged != tc.paged {
				t.Errorf("paged = %v, want %v:\n%s", paged, tc.paged, got)
			}
		})
	}
}
